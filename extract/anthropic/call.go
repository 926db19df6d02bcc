package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/invx/invx/extract/internal/sdkwire"
)

// Every request is sent with net/http directly; anthropic-sdk-go is not
// linked into invx. Its package initialisation alone kept about 7 MiB of
// the binary resident in every invx process, provider or not
// (bench/README.md, "Memory"). What goes on the wire is what
// anthropic-sdk-go v2.15.0 sent, header for header (its User-Agent and
// X-Stainless-* headers included, so that a server or proxy that keyed on
// them sees no change), and answers and errors are read as it read them
// (TestCallMatchesSDK and TestBatchCallsMatchSDK hold both to the SDK, which
// only the tests import).

// sdkVersion is the anthropic-sdk-go release whose requests invx
// reproduces, and apiVersion the API version it asks for.
const (
	sdkVersion = "2.15.0"
	apiVersion = "2026-10-21"
)

// DefaultBaseURL is the Anthropic API.
const DefaultBaseURL = "https://api.anthropic.com/"

// endpoint is what every request shares: the base URL, the headers, the
// client and the default per-request timeout.
type endpoint struct {
	base *url.URL
	// header holds the headers of every request but Content-Type and
	// X-Stainless-Timeout.
	header http.Header
	// messagesURL and messagesHeader are the synchronous path's, built
	// once and shared, read-only (http.Client copies a request before
	// changing its headers).
	messagesURL    string
	messagesHeader http.Header
	client         *http.Client
	timeout        time.Duration
}

// parseBaseURL reads a base URL as the SDK's WithBaseURL did: a path
// gets a trailing slash, so request paths resolve under it.
func parseBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultBaseURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("not an http(s) URL")
	}
	if u.Path != "" && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

func newEndpoint(base *url.URL, apiKey string, hc *http.Client, timeout time.Duration) (*endpoint, error) {
	h := http.Header{}
	h.Set("Accept", "application/json")
	// invx owns retries: every request is a first attempt.
	h.Set("X-Stainless-Retry-Count", "0")
	h.Set("User-Agent", "Anthropic/Go "+sdkVersion)
	h.Set("Anthropic-Version", apiVersion)
	h.Set("X-Stainless-Lang", "go")
	h.Set("X-Stainless-Package-Version", sdkVersion)
	h.Set("X-Stainless-OS", sdkwire.StainlessOS(runtime.GOOS))
	h.Set("X-Stainless-Arch", sdkwire.StainlessArch(runtime.GOARCH))
	h.Set("X-Stainless-Runtime", "go")
	h.Set("X-Stainless-Runtime-Version", runtime.Version())
	// API version 2026-10-21 takes the key as a bearer token.
	h.Set("Authorization", "Bearer "+apiKey)
	e := &endpoint{base: base, header: h, client: hc, timeout: timeout}
	u, err := e.url("v1/messages")
	if err != nil {
		return nil, err
	}
	e.messagesURL, e.messagesHeader = u, e.headers(true, timeout)
	return e, nil
}

// url resolves a request path (no leading slash) against the base URL.
func (e *endpoint) url(path string) (string, error) {
	u, err := e.base.Parse(path)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// headers are a request's headers: the shared ones, a JSON content type
// for a request with a body, and the timeout the SDK announced in whole
// seconds.
func (e *endpoint) headers(body bool, timeout time.Duration) http.Header {
	h := e.header.Clone()
	if body {
		h.Set("Content-Type", "application/json")
	}
	if timeout != 0 {
		h.Set("X-Stainless-Timeout", strconv.Itoa(int(timeout.Seconds())))
	}
	return h
}

// call is one request.
type call struct {
	method, url string
	header      http.Header
	body        []byte // nil: none
	timeout     time.Duration
	// stream leaves a 2xx answer's body unread for the caller (batch
	// results); every other answer is read whole.
	stream bool
}

// do sends c once and returns the answer as the SDK returned it: raw is
// the response whenever the SDK would have handed it over (also beside an
// error); an HTTP status of 400 or more is an *apiError; a call that
// outlives its timeout (or ctx) returns the context's error and no
// response. data is the body of an answer that was read. A streamed
// answer's body cancels the call's timeout when closed.
func (e *endpoint) do(ctx context.Context, c call) (data []byte, raw *http.Response, err error) {
	callerCtx := ctx
	cancel := context.CancelFunc(func() {})
	if c.timeout != 0 && beforeDeadline(time.Now().Add(c.timeout), ctx) {
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
	}
	defer func() { cancel() }()
	var rd io.Reader
	if c.body != nil {
		rd = bytes.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, c.url, rd)
	if err != nil {
		return nil, nil, err
	}
	req.Header = c.header
	res, err := e.client.Do(req)
	var readErr error
	if err == nil && (res.StatusCode >= 400 || !c.stream) {
		data, readErr = io.ReadAll(res.Body)
		_ = res.Body.Close()
		if readErr != nil {
			readErr = fmt.Errorf("error reading response body: %w", readErr)
		}
	}
	if err := callerCtx.Err(); err != nil {
		closeBody(res)
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		// Only the call's own timeout expired.
		closeBody(res)
		return nil, nil, err
	}
	switch {
	case err != nil:
		return nil, res, err
	case readErr != nil:
		return nil, res, readErr
	case res.StatusCode >= 400:
		// Kept readable for whoever inspects the response, as the SDK did.
		res.Body = io.NopCloser(bytes.NewReader(data))
		return nil, res, newAPIError(res.StatusCode, res.Header.Get("request-id"), res, data)
	case c.stream:
		res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: cancel}
		cancel = func() {}
		return nil, res, nil
	}
	return data, res, nil
}

// cancelOnClose releases a streamed call's timeout once its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func closeBody(res *http.Response) {
	if res != nil && res.Body != nil {
		_ = res.Body.Close()
	}
}

// beforeDeadline reports whether t comes before ctx's deadline, if any.
func beforeDeadline(t time.Time, ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return !ok || t.Before(d)
}

// decodeJSON decodes a 2xx answer as the SDK did: a JSON content type,
// then its first value; a member of an unexpected kind is left empty
// rather than failing the answer, as the SDK's lenient decoder left it.
func decodeJSON(h http.Header, data []byte, v any) error {
	if !sdkwire.IsJSON(h) {
		return fmt.Errorf("expected destination type of 'string' or '[]byte' for responses with content-type '%s' that is not 'application/json'",
			h.Get("content-type"))
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(v); err != nil && !isTypeError(err) {
		return fmt.Errorf("error parsing response json: %w", err)
	}
	return nil
}

// apiError is an answer with an HTTP status of 400 or more: its status,
// request id, the fields of its body's error object and the response (for
// its headers). It holds neither the request nor the raw body, so neither
// the key nor the document can leak through it.
type apiError struct {
	StatusCode int
	RequestID  string
	Response   *http.Response
	// Type, Message and Code are error.type, error.message and
	// error.details.error_code, each "" when absent.
	Type, Message, Code string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// newAPIError reads an error body as the SDK did: any body, JSON or not,
// is an API error, with whatever of its fields it has.
func newAPIError(status int, requestID string, res *http.Response, body []byte) *apiError {
	e := &apiError{StatusCode: status, RequestID: requestID, Response: res}
	errObj := sdkwire.ObjectOf(sdkwire.Member(body, "error"))
	e.Type, e.Message = sdkwire.FieldString(errObj["type"]), sdkwire.FieldString(errObj["message"])
	if code := bytes.TrimSpace(sdkwire.ObjectOf(errObj["details"])["error_code"]); len(code) > 0 && code[0] == '"' {
		e.Code = sdkwire.FieldString(code)
	}
	return e
}

// text and count are the string and integer members of an answer, read
// as the SDK's decoder read them: a string member of another kind is its
// JSON text (fieldString), an integer a truncated number or a numeric
// string, anything else zero.
type (
	text  string
	count int64
)

func (t *text) UnmarshalJSON(b []byte) error {
	*t = text(sdkwire.FieldString(b))
	return nil
}

func (n *count) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			*n = 0
			return nil
		}
		b = []byte(s)
	}
	if i, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*n = count(i)
	} else if f, err := strconv.ParseFloat(string(b), 64); err == nil {
		*n = count(int64(f))
	} else {
		*n = 0
	}
	return nil
}
