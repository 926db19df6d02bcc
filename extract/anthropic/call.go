package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	send           sdkwire.Sender
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
	e.send = sdkwire.Sender{Client: hc, WrapErrorReads: true, APIError: func(res *http.Response, data []byte) error {
		return newAPIError(res.StatusCode, res.Header.Get("request-id"), res, data)
	}}
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

// do sends c once as anthropic-sdk-go sent it (sdkwire.Sender.Do): an
// answer with status 400 or more is an *apiError.
func (e *endpoint) do(ctx context.Context, c sdkwire.Call) (data []byte, raw *http.Response, err error) {
	return e.send.Do(ctx, c)
}

// bodyOf is a request's body: none for nil.
func bodyOf(b []byte) sdkwire.Body {
	if b == nil {
		return nil
	}
	return sdkwire.Bytes(b)
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
