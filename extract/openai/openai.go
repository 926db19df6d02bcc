// Package openai is the invx provider for the OpenAI Chat Completions API and
// every server that copies it (Ollama /v1, vLLM, llama.cpp llama-server, LM
// Studio, OpenRouter, ...), chosen by base URL alone. It asks for the
// schema's strict structured output and turns every HTTP, transport and
// answer failure into a classified *extract.ProviderError.
//
// invx owns retries: every request is sent once (call.go), and only from
// Config, so no OPENAI_* environment variable can change where requests go
// or which credentials they carry (cmd reads the environment and passes it
// in Config).
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/internal/sdkwire"
)

// DefaultBaseURL is the OpenAI API; requests append "chat/completions",
// "files", "batches" to it.
const DefaultBaseURL = "https://api.openai.com/v1/"

// Defaults for the zero values of Config.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultMaxTokens = 4096
)

// Config configures a Provider.
type Config struct {
	// BaseURL is the API root. Empty means DefaultBaseURL. A bare host such
	// as http://localhost:11434 gets "/v1/" appended; any other path is
	// kept, with a trailing slash added.
	BaseURL string
	// APIKey is sent as a bearer token. It is required only for the OpenAI
	// host; local servers need none.
	APIKey string
	// Model is the model name sent with every request. Required.
	Model string
	// Timeout bounds one request (0: DefaultTimeout).
	Timeout time.Duration
	// MaxTokens is max_completion_tokens (0: DefaultMaxTokens).
	MaxTokens int64
	// HTTPClient replaces the default client (tests).
	HTTPClient *http.Client
}

// Provider calls a Chat Completions endpoint. It is safe for concurrent use.
type Provider struct {
	// ep sends every request, the batch path's too (call.go).
	ep        *endpoint
	model     string
	maxTokens int64
	// apiKey is kept only to scrub it from error messages.
	apiKey string
	// heads caches each schema version's encoded request head
	// (*schema.Version -> *head, wire.go).
	heads sync.Map
}

var _ extract.Provider = (*Provider)(nil)

// New checks cfg and builds a Provider. A missing API key for the OpenAI
// host is a ClassAuth error; a missing model or a malformed base URL is
// ClassPermanent. Each error's Msg is a sentence for the user.
func New(cfg Config) (*Provider, error) {
	base, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Msg: err.Error()}
	}
	if cfg.APIKey == "" && strings.EqualFold(base.Hostname(), "api.openai.com") {
		return nil, &extract.ProviderError{Class: extract.ClassAuth, Msg: "OPENAI_API_KEY is not set"}
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Msg: "--model is required for the openai provider"}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	maxTokens := cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = extract.HTTPClient()
	}
	return &Provider{ep: newEndpoint(base, cfg.APIKey, hc, timeout), model: cfg.Model, maxTokens: maxTokens, apiKey: cfg.APIKey}, nil
}

// parseBaseURL normalises a base URL: default when empty, http or https
// only, "/v1/" for a bare host, a trailing slash always (request paths
// such as "chat/completions" are appended to it).
func parseBaseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = DefaultBaseURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("--base-url must be an http:// or https:// URL, such as http://localhost:11434/v1")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("--base-url %s: a query or fragment is not supported", u.Redacted())
	}
	p := strings.TrimRight(u.Path, "/")
	if p == "" {
		p = "/v1"
	}
	u.Path, u.RawPath = p+"/", ""
	return u, nil
}

// Name implements extract.Provider.
func (*Provider) Name() string { return "openai" }

// feedbackFormat frames a repair re-ask. The validation error never carries
// document text or candidate values (see schema.ValidationError).
const feedbackFormat = "Your previous answer was rejected by validation: %s. Return a corrected JSON document only."

// Extract implements extract.Provider. The Response is returned whenever
// one exists, also beside an error, so the attempt row gets the model,
// tokens, request id and status.
func (p *Provider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	resp := &extract.Response{Model: p.model}
	body, err := p.requestBody(req)
	if err != nil {
		return resp, &extract.ProviderError{Class: extract.ClassPermanent, Msg: err.Error()}
	}
	data, raw, err := p.ep.post(ctx, body)
	if raw != nil {
		resp.HTTPStatus = raw.StatusCode
		resp.RequestID = requestID(raw.Header)
	}
	if err == nil && raw != nil && !sdkwire.IsJSON(raw.Header) {
		// Refuse a body of another content type, as the SDK's decoder did.
		err = fmt.Errorf("expected destination type of 'string' or '[]byte' for responses with content-type '%s' that is not 'application/json'",
			raw.Header.Get("Content-Type"))
	}
	var cc *completion
	if err == nil {
		cc, err = decodeCompletion(data)
	}
	if err != nil {
		return resp, p.classify(ctx, err, raw)
	}
	resp.HTTPStatus = http.StatusOK
	if cc == nil {
		// A JSON null body decodes to no completion and no error.
		return resp, &extract.ProviderError{Class: extract.ClassTransient, Category: categoryEmpty,
			Msg: "the server answered with an empty document"}
	}
	return p.answer(cc, resp, raw)
}

// answer interprets a decoded chat completion: the one reading of an answer
// that the synchronous path (Extract) and the batch path (a 200 line of a
// batch's output file) share, so both reject, strip and record alike. raw,
// if not nil, is the HTTP response (for retry-after on an empty answer).
func (p *Provider) answer(cc *completion, resp *extract.Response, raw *http.Response) (*extract.Response, error) {
	if m := capString(sanitize(cc.Model), 200); m != "" {
		resp.Model = m
	}
	resp.InputTokens, resp.OutputTokens = cc.Usage.PromptTokens, cc.Usage.CompletionTokens
	if len(cc.Choices) == 0 {
		return resp, p.emptyAnswer(cc, raw)
	}
	choice := cc.Choices[0]
	switch {
	case choice.Refusal != "":
		// Kept for the reviewer on the attempt row, never in the message.
		resp.Output = []byte(choice.Refusal)
		return resp, &extract.ProviderError{Class: extract.ClassRejected, Category: "refusal", Msg: "the model refused to answer"}
	case choice.FinishReason == "length":
		resp.Output = []byte(choice.Content)
		return resp, &extract.ProviderError{Class: extract.ClassRejected, Category: "truncated",
			Msg: fmt.Sprintf("the answer was cut off at the output token limit (max_completion_tokens %d)", p.maxTokens)}
	case choice.FinishReason == "content_filter":
		resp.Output = []byte(choice.Content)
		return resp, &extract.ProviderError{Class: extract.ClassRejected, Category: "content_filter",
			Msg: "the provider's content filter withheld the answer"}
	}
	// Prose, an empty answer or broken JSON is not an error here: validation
	// rejects it (category decode) and the runner may re-ask.
	resp.Output = []byte(stripFence(choice.Content))
	return resp, nil
}

// formatName derives the response_format name from a schema version name:
// "invoice-summary-v1" -> "invoice_summary". OpenAI allows [a-zA-Z0-9_-],
// at most 64 characters.
func formatName(version string) string {
	name := version
	if i := strings.LastIndex(name, "-v"); i > 0 && i+2 < len(name) && strings.Trim(name[i+2:], "0123456789") == "" {
		name = name[:i]
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "answer"
	}
	return b.String()
}

// stripFence removes one surrounding Markdown code fence (``` or ```json)
// that some models put around JSON. Anything else is returned unchanged.
func stripFence(content string) string {
	s := strings.TrimSpace(content)
	if !strings.HasPrefix(s, "```") {
		return content
	}
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return content
	}
	if lang := strings.TrimSpace(s[3:nl]); lang != "" && !strings.EqualFold(lang, "json") {
		return content
	}
	body := strings.TrimRightFunc(s[nl+1:], unicode.IsSpace)
	if !strings.HasSuffix(body, "```") {
		return content
	}
	return strings.TrimSpace(strings.TrimSuffix(body, "```"))
}

func requestID(h http.Header) string {
	return capString(sanitize(h.Get("x-request-id")), 200)
}
