package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/invx/invx/internal/sanitize"

	"github.com/invx/invx/extract"
)

// CategoryContextLength marks a permanent failure: the prompt does not fit
// the model's context window or the request size limit.
const CategoryContextLength = "context_length"

// maxEcho bounds how much of the API's error message an error repeats.
const maxEcho = 200

// quotaCodes are the error_code values of a 429 that no wait will cure.
var quotaCodes = map[string]bool{
	"enforced_spend_limit_reached": true,
	"contract_spend_limit_reached": true,
}

// apiErrorOf classifies an error status answer. The *apiError is not
// wrapped: its Response holds the raw body.
func apiErrorOf(ae *apiError) *extract.ProviderError {
	status := ae.StatusCode
	typ := category(ae.Type)
	pe := &extract.ProviderError{Class: extract.ClassForStatus(status), Status: status, Category: typ}
	if ae.Response != nil {
		pe.RetryAfter = extract.RetryAfter(ae.Response.Header, time.Now())
	}
	detail := typ
	if detail == "" {
		detail = "no API error in the body"
	}
	if m := oneLine(ae.Message, maxEcho); m != "" {
		detail += ": " + m
	}
	pe.Msg = detail
	code := ae.Code
	switch {
	case status == http.StatusTooManyRequests && quotaCodes[code],
		status == http.StatusPaymentRequired:
		pe.Class, pe.Category, pe.RetryAfter = extract.ClassPermanent, extract.CategoryQuota, 0
		if code != "" {
			pe.Msg = fmt.Sprintf("%s (%s)", detail, category(code))
		}
	case status == http.StatusRequestEntityTooLarge,
		status == http.StatusBadRequest && strings.Contains(strings.ToLower(ae.Message), "prompt is too long"):
		pe.Class, pe.Category = extract.ClassPermanent, CategoryContextLength
	}
	return pe
}

// transportError classifies a call that got no complete, decodable answer.
// raw, if not nil, is the response whose body could not be read or decoded.
func transportError(ctx context.Context, err error, raw *http.Response) *extract.ProviderError {
	pe := extract.TransportError(ctx, err)
	if raw == nil || pe.Class != extract.ClassTransient {
		return pe
	}
	pe.Status = raw.StatusCode
	if pe.Category == "transport" && raw.StatusCode < 300 {
		// The whole body arrived but is not a Messages response (an HTML
		// page from a proxy, text/plain, ...). Its content is left out.
		pe.Category = "bad_response"
		pe.Msg = fmt.Sprintf("the API answered %d with a body that is not a Messages response (content-type %q)",
			raw.StatusCode, oneLine(raw.Header.Get("Content-Type"), 80))
	}
	return pe
}

// category returns s if it looks like an API enum value (snake case, short),
// so it can be a bounded label; "" otherwise.
func category(s string) string {
	if s == "" || len(s) > 64 {
		return ""
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return ""
		}
	}
	return s
}

// oneLine makes an API message safe for a one-line error: control
// characters become spaces and it is cut to n bytes on a rune boundary.
// keyLike matches API keys an error message may echo back (whole or
// masked), so they never reach attempt rows or logs.
var keyLike = regexp.MustCompile(`sk-[A-Za-z0-9_*.-]{4,}`)

func oneLine(s string, n int) string {
	return sanitize.Line(keyLike.ReplaceAllString(s, "sk-***"), n)
}
