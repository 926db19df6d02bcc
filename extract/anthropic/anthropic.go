// Package anthropic is the extract.Provider for the Anthropic Messages API
// (POST /v1/messages), spoken with net/http as anthropic-sdk-go v2 spoke it
// (call.go).
//
// It asks for the schema version's document either through native
// structured outputs (output_config.format, the default) or through one
// forced tool whose input schema is the document schema. A schema beyond
// what Anthropic compiles strictly (invoice-v2: more than 16 nullable
// parameters) goes as a forced tool without strict in either mode.
//
// Nothing here retries: invx owns retries, so every HTTP call is one
// attempt row. Errors
// are classified into *extract.ProviderError values whose messages carry the
// API's error type and a truncated error message, never document text, model
// output, the API key or a raw body.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/internal/sdkwire"
)

// The modes a Provider can ask for JSON in.
const (
	// ModeJSONSchema uses native structured outputs: output_config.format
	// with a json_schema, answered as a text block.
	ModeJSONSchema = "json_schema"
	// ModeTool forces a single tool, ToolName, whose input is the document.
	ModeTool = "tool"
)

// ToolName is the forced tool of ModeTool.
const ToolName = "emit_invoice_summary"

// Defaults for Config's zero values.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultMaxTokens = 4096
)

// Config configures a Provider.
type Config struct {
	// BaseURL is the API root, without v1/ ("" is https://api.anthropic.com/).
	BaseURL string
	// APIKey is the API key (cmd reads ANTHROPIC_API_KEY); required.
	APIKey string
	// Model is the model id; required.
	Model string
	// Timeout bounds one HTTP request (0 is DefaultTimeout).
	Timeout time.Duration
	// MaxTokens caps the answer (0 is DefaultMaxTokens).
	MaxTokens int64
	// Mode is ModeJSONSchema ("" too) or ModeTool.
	Mode string
	// HTTPClient, if set, sends the requests (tests).
	HTTPClient *http.Client
}

// Provider calls the Anthropic Messages API. It is safe for concurrent use.
type Provider struct {
	ep        *endpoint
	model     string
	mode      string
	maxTokens int64
	// templates caches the encoded requests of each schema version, with
	// and without feedback (templateKey -> *template, wire.go).
	templates sync.Map
}

var _ extract.Provider = (*Provider)(nil)

// New checks cfg and returns a Provider. A missing API key is a ClassAuth
// *extract.ProviderError; any other bad setting is ClassPermanent. New makes
// no request.
func New(cfg Config) (*Provider, error) {
	if cfg.APIKey == "" {
		return nil, &extract.ProviderError{Class: extract.ClassAuth, Msg: "ANTHROPIC_API_KEY is not set"}
	}
	if cfg.Model == "" {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Msg: "--model is required for the anthropic provider"}
	}
	mode := cfg.Mode
	switch mode {
	case "":
		mode = ModeJSONSchema
	case ModeJSONSchema, ModeTool:
	default:
		return nil, &extract.ProviderError{Class: extract.ClassPermanent,
			Msg: fmt.Sprintf("anthropic mode %q is not %s or %s", extract.Truncate(mode, 40), ModeJSONSchema, ModeTool)}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	maxTokens := cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	// Only Config decides where requests go and with which key: no
	// ANTHROPIC_* variable or profile is read (the SDK was told
	// WithoutEnvironmentDefaults).
	base, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent,
			Msg: fmt.Sprintf("anthropic base URL %q is not an http(s) URL", extract.Truncate(cfg.BaseURL, 200))}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = extract.HTTPClient()
	}
	ep, err := newEndpoint(base, cfg.APIKey, hc, timeout)
	if err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent,
			Msg: fmt.Sprintf("anthropic base URL %q: %v", extract.Truncate(cfg.BaseURL, 200), err)}
	}
	return &Provider{ep: ep, model: cfg.Model, mode: mode, maxTokens: maxTokens}, nil
}

// Name implements extract.Provider.
func (*Provider) Name() string { return "anthropic" }

// Extract implements extract.Provider. It makes one HTTP request. The
// Response (request id, status, and for a decoded message its model and
// usage) is returned even alongside an error, so the attempt row records
// them. Errors are *extract.ProviderError:
//   - an API error status: the class of extract.ClassForStatus, with a spend
//     limit or billing failure permanent (extract.CategoryQuota) and a prompt
//     over the context window permanent ("context_length");
//   - no complete answer (timeout, reset, truncated or unreadable body):
//     transient, from extract.TransportError;
//   - a refusal (rejected, "refusal"), an answer cut off (rejected,
//     "truncated"), no emit_invoice_summary call in tool mode (rejected,
//     "decode"), an answer without content (transient, "empty").
//
// Prose instead of JSON is not an error here: it is returned as Output and
// validation rejects it.
func (p *Provider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	resp := &extract.Response{Model: p.model}
	body, tool, err := p.requestBody(req)
	if err != nil {
		return resp, &extract.ProviderError{Class: extract.ClassPermanent, Msg: err.Error()}
	}
	data, raw, err := p.ep.do(ctx, sdkwire.Call{Method: http.MethodPost, URL: p.ep.messagesURL, Header: p.ep.messagesHeader,
		Body: sdkwire.Bytes(body), Timeout: p.ep.timeout})
	if raw != nil {
		resp.HTTPStatus = raw.StatusCode
		resp.RequestID = raw.Header.Get("request-id")
	}
	var msg message
	if err == nil {
		err = decodeJSON(raw.Header, data, &msg)
	}
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			resp.HTTPStatus = ae.StatusCode
			if resp.RequestID == "" {
				resp.RequestID = ae.RequestID
			}
			return resp, apiErrorOf(ae)
		}
		return resp, transportError(ctx, err, raw)
	}
	resp.HTTPStatus = raw.StatusCode
	msg.record(resp)
	return p.answer(&msg, resp, tool)
}

// answer reads the candidate document out of a decoded message; tool says
// the request forced the emit tool, so the document is its input.
func (p *Provider) answer(msg *message, resp *extract.Response, tool bool) (*extract.Response, error) {
	switch msg.StopReason {
	case "refusal":
		// The refusal text is the model's and may quote the document: it
		// goes nowhere. The policy category is a bounded API enum.
		m := "the model refused to answer"
		if c := category(string(msg.StopDetails.Category)); c != "" {
			m += " (policy category " + c + ")"
		}
		return resp, &extract.ProviderError{Class: extract.ClassRejected, Category: "refusal", Msg: m}
	case "max_tokens", "model_context_window_exceeded":
		resp.Output = output(msg, tool)
		return resp, &extract.ProviderError{Class: extract.ClassRejected, Category: "truncated",
			Msg: fmt.Sprintf("the answer was cut off (stop_reason %s, max_tokens %d)", msg.StopReason, p.maxTokens)}
	}
	if len(msg.Content) == 0 {
		return resp, &extract.ProviderError{Class: extract.ClassTransient, Status: resp.HTTPStatus, Category: "empty",
			Msg: "the API returned a message without content"}
	}
	if tool {
		out, ok := toolInput(msg)
		if !ok {
			resp.Output = textOf(msg)
			return resp, &extract.ProviderError{Class: extract.ClassRejected, Category: "decode",
				Msg: "no " + ToolName + " tool call in the answer"}
		}
		resp.Output = out
		return resp, nil
	}
	if !hasText(msg) {
		return resp, &extract.ProviderError{Class: extract.ClassTransient, Status: resp.HTTPStatus, Category: "empty",
			Msg: "the API returned a message without a text block"}
	}
	resp.Output = textOf(msg)
	return resp, nil
}

// output is what the message holds for the request's way of asking, for a
// rejected attempt's record.
func output(msg *message, tool bool) []byte {
	if tool {
		if out, ok := toolInput(msg); ok {
			return out
		}
	}
	return textOf(msg)
}

// toolInput returns the input of the first tool_use block calling ToolName.
// It never trusts the block's position: the model may think or talk first.
func toolInput(msg *message) ([]byte, bool) {
	for _, b := range msg.Content {
		if b.Type == "tool_use" && b.Name == ToolName {
			return append([]byte(nil), b.Input...), true
		}
	}
	return nil, false
}

// textOf concatenates the text blocks, skipping thinking and other blocks.
func textOf(msg *message) []byte {
	var sb strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			sb.WriteString(string(b.Text))
		}
	}
	if sb.Len() == 0 {
		return nil
	}
	return []byte(sb.String())
}

func hasText(msg *message) bool {
	for _, b := range msg.Content {
		if b.Type == "text" {
			return true
		}
	}
	return false
}

// message is the part of a Messages response invx reads.
type message struct {
	Model       text `json:"model"`
	StopReason  text `json:"stop_reason"`
	StopDetails struct {
		Category text `json:"category"`
	} `json:"stop_details"`
	Content []struct {
		Type  text            `json:"type"`
		Name  text            `json:"name"`
		Text  text            `json:"text"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	Usage struct {
		InputTokens              count `json:"input_tokens"`
		OutputTokens             count `json:"output_tokens"`
		CacheCreationInputTokens count `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     count `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// record puts the message's model and token counts on resp.
func (m *message) record(resp *extract.Response) {
	if m.Model != "" {
		resp.Model = string(m.Model)
	}
	u := m.Usage
	resp.InputTokens = int64(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
	resp.OutputTokens = int64(u.OutputTokens)
}

// isTypeError reports a JSON value of another kind than its Go field:
// encoding/json leaves the field empty and goes on, as the SDK's lenient
// decoder did.
func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// feedbackText is a repair re-ask's message, "" for a first ask. The
// previous answer is not resent (it is model output), only the validation
// error, which carries no document text.
func feedbackText(req *extract.Request) string {
	if req.Feedback == nil {
		return ""
	}
	return "Your previous answer was rejected by validation: " + req.Feedback.Error() + ". Return a corrected JSON document only."
}
