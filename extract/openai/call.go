package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/invx/invx/extract/internal/sdkwire"
)

// Every request is sent with net/http directly; openai-go is not linked
// into invx. Its package initialisation alone kept about 6 MiB of the
// binary resident in every invx process, provider or not (bench/README.md,
// "Memory"), and through it each synchronous call built a request config
// (option closures, a header map, a cloned request and client) and waited
// under the SDK's frames: at --concurrency 256 about 10 KiB of heap and 12
// KiB of goroutine stack per call in flight, and a third of the adapter's
// CPU. What goes on the wire is what openai-go v3.99.0 sent, header for
// header (its User-Agent and X-Stainless-* headers included, so that a
// server or proxy that keyed on them sees no change), and errors are read
// as it read them (TestCallMatchesSDK, TestBatchCallsMatchSDK hold both to
// the SDK, which only the tests import).

// sdkVersion is the openai-go release whose requests invx reproduces.
const sdkVersion = "3.99.0"

// endpoint is what every request shares: the base URL, the headers, the
// client and the default per-request timeout.
type endpoint struct {
	base *url.URL
	// header holds the headers of every request but Content-Type and
	// X-Stainless-Timeout.
	header http.Header
	// chatURL and chatHeader are the synchronous path's, built once. The
	// header is shared by every request, read-only: an http.RoundTripper
	// must not modify a request, and http.Client copies a request before
	// changing its headers (redirects).
	chatURL    string
	chatHeader http.Header
	client     *http.Client
	timeout    time.Duration
}

// newEndpoint builds the endpoint for base (normalised by parseBaseURL).
// Without a key no Authorization header is sent, which is what local
// servers expect. hc's transport is wrapped as the SDK wrapped it: no
// request (nor redirect) leaves base's origin.
func newEndpoint(base *url.URL, apiKey string, hc *http.Client, timeout time.Duration) *endpoint {
	h := http.Header{}
	h.Set("Accept", "application/json")
	// invx owns retries: every request is a first attempt.
	h.Set("X-Stainless-Retry-Count", "0")
	h.Set("User-Agent", "OpenAI/Go "+sdkVersion)
	h.Set("X-Stainless-Lang", "go")
	h.Set("X-Stainless-Package-Version", sdkVersion)
	h.Set("X-Stainless-OS", sdkwire.StainlessOS(runtime.GOOS))
	h.Set("X-Stainless-Arch", sdkwire.StainlessArch(runtime.GOARCH))
	h.Set("X-Stainless-Runtime", "go")
	h.Set("X-Stainless-Runtime-Version", runtime.Version())
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
	client := *hc
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	client.Transport = originGuard{origin: base, next: next}
	e := &endpoint{base: base, header: h, client: &client, timeout: timeout}
	e.chatURL = e.url("chat/completions")
	e.chatHeader = e.headers("application/json", timeout)
	return e
}

// url resolves a request path (no leading slash) against the base URL.
func (e *endpoint) url(path string) string { return e.base.String() + path }

// headers are a request's headers: the shared ones, its content type (""
// for a request without a body) and the timeout the SDK announced in whole
// seconds.
func (e *endpoint) headers(contentType string, timeout time.Duration) http.Header {
	h := e.header.Clone()
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	if timeout != 0 {
		h.Set("X-Stainless-Timeout", strconv.Itoa(int(timeout.Seconds())))
	}
	return h
}

// body is a request body that can be read again from its start (for a
// redirect), with its length known up front.
type body interface {
	size() int64
	reader() io.ReadCloser
}

// bytesBody is a body in one piece.
type bytesBody []byte

func (b bytesBody) size() int64           { return int64(len(b)) }
func (b bytesBody) reader() io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }

// call is one request.
type call struct {
	method, url string
	header      http.Header
	body        body // nil: none
	timeout     time.Duration
	// stream leaves a 2xx answer's body unread for the caller (a file's
	// content); every other answer is read whole.
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
		rd = c.body.reader()
	}
	req, err := http.NewRequestWithContext(ctx, c.method, c.url, rd)
	if err != nil {
		return nil, nil, err
	}
	req.Header = c.header
	if c.body != nil {
		req.ContentLength = c.body.size()
		req.GetBody = func() (io.ReadCloser, error) { return c.body.reader(), nil }
	}
	res, err := e.client.Do(req)
	var readErr error
	if err == nil && (res.StatusCode >= 400 || !c.stream) {
		data, readErr = readAll(res)
		_ = res.Body.Close()
		if readErr != nil && res.StatusCode < 400 {
			// The SDK wrapped only a successful answer's read error.
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
		apiErr, err := newAPIError(res, data)
		if err != nil {
			return nil, res, err
		}
		return nil, res, apiErr
	case c.stream:
		res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: cancel}
		cancel = func() {}
		return nil, res, nil
	}
	return data, res, nil
}

// readAll reads res's body whole into a buffer of exactly its size:
// io.ReadAll starts at 512 bytes and grows by copying, about three times
// an answer's size in garbage per call. With the length announced the
// buffer is sized from it (a body longer than announced is still read
// whole: net/http reports the mismatch); without (a chunked answer, which
// is what a server sends for more than 2 KiB written at once) the body is
// read into a pooled buffer and copied out.
func readAll(res *http.Response) ([]byte, error) {
	if n := res.ContentLength; n > 0 && n <= maxPresize {
		// bytes.MinRead more: ReadFrom grows the buffer when less than
		// that is free before its final read, which finds EOF.
		b := bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
		_, err := b.ReadFrom(res.Body)
		return b.Bytes(), err
	}
	b := readBufs.Get().(*bytes.Buffer)
	b.Reset()
	_, err := b.ReadFrom(res.Body)
	data := append(make([]byte, 0, b.Len()), b.Bytes()...)
	if b.Cap() <= maxPresize {
		readBufs.Put(b)
	}
	return data, err
}

// maxPresize bounds the buffer readAll sizes from a Content-Length header,
// and the buffers it keeps for reuse.
const maxPresize = 1 << 20

var readBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// post sends a chat completion request body with the shared headers and
// returns the answer's bytes (see do).
func (e *endpoint) post(ctx context.Context, b wireBody) (data []byte, raw *http.Response, err error) {
	return e.do(ctx, call{method: http.MethodPost, url: e.chatURL, header: e.chatHeader, body: b, timeout: e.timeout})
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
