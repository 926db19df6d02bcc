package outbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/invx/invx/internal/sanitize"

	"github.com/invx/invx/internal/backoff"
	"github.com/invx/invx/store"
)

// ErrTextMax is how much of a receiver's answer or a command's stderr an
// error message keeps.
const ErrTextMax = 300

// Webhook POSTs each event's payload as JSON to URL, with the headers
// Content-Type: application/json and Idempotency-Key: <event key>, plus
// Header. A 2xx answer is a delivery; 408, 429, 5xx, a transport error or a
// timeout are retried (a Retry-After is honoured); any other status (a
// 4xx, or a redirect, which is never followed) parks the event.
type Webhook struct {
	URL string
	// Header holds extra headers (invx outbox deliver --header K:V). Their
	// values never appear in errors or logs.
	Header http.Header
	// UserAgent is sent as User-Agent unless Header has one.
	UserAgent string
	// Client sends the requests; nil: a client that never follows redirects.
	Client *http.Client
	// NowFunc is the clock for a Retry-After given as a date.
	NowFunc func() time.Time
}

var noRedirects = &http.Client{
	// Following a redirect would turn the POST into a GET, or send the
	// payload somewhere the user did not name: report it instead.
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// Send implements Sink.
func (w *Webhook) Send(ctx context.Context, ev *store.OutboxEvent) Result {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(ev.Payload))
	if err != nil {
		return Result{Outcome: Failed, Err: "build request: " + transportMessage(err)}
	}
	for k, vs := range w.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", ev.EventKey)
	if w.UserAgent != "" && req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", w.UserAgent)
	}
	client := w.Client
	if client == nil {
		client = noRedirects
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Result{Outcome: Retry, Err: "timed out"}
		}
		return Result{Outcome: Retry, Err: transportMessage(err)}
	}
	defer resp.Body.Close()
	// Read a little of the answer for the error message, and drain a bounded
	// amount so the connection can be reused.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))

	code := resp.StatusCode
	res := Result{Status: code}
	switch {
	case code >= 200 && code < 300:
		res.Outcome = Delivered
		return res
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests, code >= 500:
		res.Outcome = Retry
		res.RetryAfter = backoff.RetryAfter(resp.Header, w.now())
	default:
		res.Outcome = Failed
	}
	res.Err = "http " + strconv.Itoa(code)
	if code >= 300 && code < 400 {
		if loc := resp.Header.Get("Location"); loc != "" {
			res.Err += ": redirect not followed (deliver to the final URL)"
		}
	} else if snippet := oneLine(body, ErrTextMax); snippet != "" {
		res.Err += ": " + snippet
	} else if text := http.StatusText(code); text != "" {
		res.Err += " " + text
	}
	return res
}

func (w *Webhook) now() time.Time {
	if w.NowFunc != nil {
		return w.NowFunc()
	}
	return time.Now()
}

// transportMessage drops the URL from a client error: it may carry a token
// in its query string.
func transportMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return oneLine([]byte(err.Error()), ErrTextMax)
}

// oneLine makes text safe for one line of output and a database column:
// valid UTF-8, control characters as spaces, blanks collapsed, at most max
// bytes (cut at a rune boundary, marked with an ellipsis).
func oneLine(b []byte, maxBytes int) string { return sanitize.Line(string(b), maxBytes) }

// String describes the sink without its headers' values.
func (w *Webhook) String() string {
	u, err := url.Parse(w.URL)
	if err != nil {
		return "webhook"
	}
	return fmt.Sprintf("webhook %s://%s%s", u.Scheme, u.Host, u.Path)
}
