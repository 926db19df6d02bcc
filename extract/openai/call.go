package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/tidwall/gjson"
)

// The synchronous path sends its request with net/http directly. Through
// the SDK, each call built a request config (option closures, platform
// headers, a header map, a cloned request and client) and waited for its
// answer under the SDK's frames: at --concurrency 256 that was about 10 KiB
// of heap and 12 KiB of goroutine stack per call in flight, a fifth of the
// run's peak memory, and a third of the adapter's CPU. The request on the
// wire is the SDK's: its URL and headers are taken from one request the SDK
// builds in New (endpointOf), and errors become the SDK's *openai.Error as
// the SDK makes them, so classify is unchanged (TestCallMatchesSDK).

// endpoint is what every synchronous call shares: the request target, the
// SDK's headers, the client and the per-call timeout.
type endpoint struct {
	url    string
	origin *url.URL
	// header is shared by every request, read-only: an http.RoundTripper
	// must not modify a request, and http.Client copies a request before
	// changing its headers (redirects).
	header  http.Header
	client  *http.Client
	timeout time.Duration
}

// errCaptured stops the request endpointOf lets the SDK build.
var errCaptured = errors.New("openai: request captured, not sent")

// endpointOf has the SDK build one chat completion request with opts and
// keeps its URL and headers, without sending it. hc's transport is wrapped
// as the SDK wraps it: no request (nor redirect) leaves base's origin.
func endpointOf(opts []option.RequestOption, base *url.URL, hc *http.Client, timeout time.Duration) (*endpoint, error) {
	var captured *http.Request
	capture := func(r *http.Request, _ option.MiddlewareNext) (*http.Response, error) {
		captured = r
		return nil, errCaptured
	}
	chat := oai.NewChatCompletionService(opts...)
	_, err := chat.New(context.Background(), oai.ChatCompletionNewParams{},
		option.WithRequestBody("application/json", bytes.NewReader(nil)), option.WithMiddleware(capture))
	if captured == nil {
		return nil, fmt.Errorf("build the request: %w", err)
	}
	client := *hc
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	client.Transport = originGuard{origin: base, next: next}
	return &endpoint{url: captured.URL.String(), origin: base, header: captured.Header.Clone(), client: &client,
		timeout: timeout}, nil
}

// post sends body and returns the answer's bytes, as the SDK's
// ChatCompletionService.New does with a []byte destination: raw is the
// response whenever the SDK would have handed it over (also beside an
// error), an HTTP status of 400 or more is an *openai.Error, and a call
// that outlives its timeout (or ctx) returns the context's error.
func (e *endpoint) post(ctx context.Context, body wireBody) (data []byte, raw *http.Response, err error) {
	if e.timeout != 0 && beforeDeadline(time.Now().Add(e.timeout), ctx) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, body.reader())
	if err != nil {
		return nil, nil, err
	}
	req.Header = e.header
	req.ContentLength = body.size()
	req.GetBody = func() (io.ReadCloser, error) { return body.reader(), nil }
	res, err := e.client.Do(req)
	if ctx.Err() != nil {
		if res != nil && res.Body != nil {
			_ = res.Body.Close()
		}
		return nil, nil, ctx.Err()
	}
	if err != nil {
		return nil, res, err
	}
	data, err = io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode >= 400 {
		if err != nil {
			return nil, res, err
		}
		// Kept readable for whoever inspects the error, as the SDK does.
		res.Body = io.NopCloser(bytes.NewReader(data))
		apiErr := &oai.Error{Request: req, Response: res, StatusCode: res.StatusCode}
		if err := apiErr.UnmarshalJSON([]byte(gjson.GetBytes(data, "error").Raw)); err != nil {
			return nil, res, err
		}
		return nil, res, apiErr
	}
	if err != nil {
		return nil, res, fmt.Errorf("error reading response body: %w", err)
	}
	return data, res, nil
}

// beforeDeadline reports whether t comes before ctx's deadline, if any.
func beforeDeadline(t time.Time, ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return !ok || t.Before(d)
}

// errOrigin is the SDK's error for a request that left the base URL's
// origin, word for word.
var errOrigin = errors.New("requestconfig: request URL origin must match the configured base URL")

// originGuard refuses any request, a redirect's included, whose URL does
// not have the base URL's scheme, host and port, so the Authorization
// header never follows a redirect elsewhere (the SDK's rule).
type originGuard struct {
	origin *url.URL
	next   http.RoundTripper
}

func (g originGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL == nil || r.URL.Opaque != "" || r.RequestURI != "" || !sameOrigin(r.URL, g.origin) ||
		(r.Host != "" && !sameOrigin(&url.URL{Scheme: r.URL.Scheme, Host: r.Host}, r.URL)) {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, errOrigin
	}
	return g.next.RoundTrip(r)
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		effectivePort(a) == effectivePort(b)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
