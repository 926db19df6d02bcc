package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/invx/invx/extract"
)

// Categories this adapter adds to the ones extract.TransportError uses.
const (
	categoryEmpty         = "empty"
	categoryContextLength = "context_length"
	categoryNotFound      = "not_found"
	categoryContentFilter = "content_filter"
)

// quotaCodes mark an exhausted account: retrying cannot help.
var quotaCodes = map[string]bool{
	"insufficient_quota":         true,
	"billing_hard_limit_reached": true,
	"billing_not_active":         true,
}

// contextCodes mark a prompt longer than the model's context window
// (OpenAI, and llama.cpp's type).
var contextCodes = map[string]bool{
	"context_length_exceeded":   true,
	"exceed_context_size_error": true,
}

// classify turns a call's error into a ProviderError. It never wraps the
// *apiError, which holds the response with its raw body.
func (p *Provider) classify(ctx context.Context, err error, raw *http.Response) error {
	var apiErr *apiError
	if errors.As(err, &apiErr) {
		return p.apiError(apiErr)
	}
	pe := extract.TransportError(ctx, err)
	if pe.Category == "transport" && raw != nil && raw.StatusCode < 300 {
		// The status line arrived but the body is no chat completion:
		// an HTML error page from a proxy, a captive portal, ...
		ct, _, _ := mime.ParseMediaType(raw.Header.Get("Content-Type"))
		pe.Msg = fmt.Sprintf("the server answered HTTP %d with a body that is not a chat completion (content type %q)",
			raw.StatusCode, capString(sanitize(ct), 60))
	}
	return pe
}

// apiError classifies an HTTP error status, refined by the body's error
// code: exhausted quota and context overflow are permanent whatever the
// status says.
func (p *Provider) apiError(e *apiError) *extract.ProviderError {
	status := e.StatusCode
	pe := &extract.ProviderError{Class: extract.ClassForStatus(status), Status: status}
	if e.Response != nil {
		pe.RetryAfter = extract.RetryAfter(e.Response.Header, time.Now())
	}
	code, typ := strings.ToLower(e.Code), strings.ToLower(e.Type)
	detail := p.detail(e)
	switch {
	case quotaCodes[code] || quotaCodes[typ] || status == http.StatusPaymentRequired:
		pe.Class, pe.Category = extract.ClassPermanent, extract.CategoryQuota
		pe.Msg = "the account's quota or credit is exhausted: " + detail
	case status == http.StatusBadRequest && (contextCodes[code] || contextCodes[typ] ||
		strings.Contains(strings.ToLower(e.Message), "maximum context length")):
		pe.Class, pe.Category = extract.ClassPermanent, categoryContextLength
		pe.Msg = "the document does not fit the model's context window: " + detail
	case status == http.StatusBadRequest && code == "content_filter":
		// Azure filters the prompt itself: the same document would be
		// filtered again.
		pe.Class, pe.Category = extract.ClassPermanent, categoryContentFilter
		pe.Msg = "the provider's content filter rejected the request: " + detail
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		pe.Msg = "the server refused the credentials (check OPENAI_API_KEY and --base-url): " + detail
	case status == http.StatusNotFound:
		pe.Category = categoryNotFound
		pe.Msg = fmt.Sprintf("model %q or the endpoint was not found (check --model and --base-url): %s",
			capString(sanitize(p.model), 100), detail)
	case status == http.StatusTooManyRequests:
		pe.Msg = "rate limited: " + detail
	default:
		pe.Msg = detail
	}
	return pe
}

// emptyAnswer reports a 200 without choices. OpenRouter and some proxies
// send HTTP 200 with an {"error":{...}} body, which decodes into a
// completion without choices and no error.
func (p *Provider) emptyAnswer(cc *completion, raw *http.Response) error {
	pe := &extract.ProviderError{Class: extract.ClassTransient, Category: categoryEmpty,
		Msg: "the server answered without any choices"}
	if raw != nil {
		pe.RetryAfter = extract.RetryAfter(raw.Header, time.Now())
	}
	if f := bytes.TrimSpace(cc.Error); len(f) > 0 && string(f) != "null" {
		var e apiError
		if err := e.decode(f); err == nil {
			pe.Msg = "the server answered HTTP 200 with an error and no choices: " + p.detail(&e)
		}
	}
	return pe
}

// detail is the safe summary of an API error: its type and code, and its
// message scrubbed of credentials and cut to 200 bytes. Never the raw body.
func (p *Provider) detail(e *apiError) string {
	var tags []string
	for _, s := range []string{e.Type, e.Code} {
		s = capString(sanitize(p.scrub(s)), 64)
		if s != "" && (len(tags) == 0 || tags[0] != s) {
			tags = append(tags, s)
		}
	}
	msg := capString(sanitize(p.scrub(e.Message)), 200)
	switch {
	case len(tags) > 0 && msg != "":
		return strings.Join(tags, "/") + ": " + msg
	case len(tags) > 0:
		return strings.Join(tags, "/")
	case msg != "":
		return msg
	case e.StatusCode != 0 && http.StatusText(e.StatusCode) != "":
		return http.StatusText(e.StatusCode) + " (no JSON error details)"
	default:
		return "no JSON error details"
	}
}

// keyPattern matches OpenAI-style secret keys, including the masked form
// OpenAI echoes on a 401 ("sk-proj-****abcd"), which still leaks a part.
var keyPattern = regexp.MustCompile(`sk-[A-Za-z0-9_*\-.]{3,}`)

// scrub removes the configured key and anything shaped like a key.
func (p *Provider) scrub(s string) string {
	if p.apiKey != "" {
		s = strings.ReplaceAll(s, p.apiKey, "[redacted]")
	}
	return keyPattern.ReplaceAllString(s, "sk-[redacted]")
}

// sanitize makes server-supplied text one printable line.
func sanitize(s string) string {
	s = strings.ToValidUTF8(s, "?")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// capString cuts s to at most n bytes on a rune boundary, marking the cut.
func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-3, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
