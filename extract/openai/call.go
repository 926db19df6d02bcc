package openai

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
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
	send       sdkwire.Sender
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
	e.send = sdkwire.Sender{Client: e.client, APIError: func(res *http.Response, data []byte) error {
		apiErr, err := newAPIError(res, data)
		if err != nil {
			return err
		}
		return apiErr
	}}
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

// do sends c once as openai-go sent it (sdkwire.Sender.Do): an answer
// with status 400 or more is an *apiError.
func (e *endpoint) do(ctx context.Context, c sdkwire.Call) (data []byte, raw *http.Response, err error) {
	return e.send.Do(ctx, c)
}

// post sends a chat completion request body with the shared headers and
// returns the answer's bytes (see do).
func (e *endpoint) post(ctx context.Context, b wireBody) (data []byte, raw *http.Response, err error) {
	return e.do(ctx, sdkwire.Call{Method: http.MethodPost, URL: e.chatURL, Header: e.chatHeader, Body: b, Timeout: e.timeout})
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
