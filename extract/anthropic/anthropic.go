// Package anthropic is the extract.Provider for the Anthropic Messages API
// (POST /v1/messages), built on anthropic-sdk-go v2.
//
// It asks for the schema version's document either through native
// structured outputs (output_config.format, the default) or through one
// forced tool whose input schema is the document schema. A schema beyond
// what Anthropic compiles strictly (invoice-v2: more than 16 nullable
// parameters) goes as a forced tool without strict in either mode.
//
// The SDK never retries: invx owns retries, so every HTTP call is one
// attempt row. Errors
// are classified into *extract.ProviderError values whose messages carry the
// API's error type and a truncated error message, never document text, model
// output, the API key or a raw body.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
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
	// Timeout bounds one HTTP request (0 is DefaultTimeout). It is always
	// set because the SDK refuses large non-streaming requests without one.
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
	client    sdk.Client
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
	opts := []option.RequestOption{
		// invx decides where requests go and with which key: no
		// ANTHROPIC_* variable or profile may change it behind its back.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.APIKey),
		// invx owns retries, so each HTTP call is one attempt row.
		option.WithMaxRetries(0),
		option.WithRequestTimeout(timeout),
		// The SDK emits OpenTelemetry spans through the global provider and
		// lets ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content put the
		// prompt (the invoice text) and the answer into them. Pin it off.
		option.WithOpenTelemetryTracesContentMode(option.OpenTelemetryContentModeMetadataOnly),
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, &extract.ProviderError{Class: extract.ClassPermanent,
				Msg: fmt.Sprintf("anthropic base URL %q is not an http(s) URL", extract.Truncate(cfg.BaseURL, 200))}
		}
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = extract.HTTPClient()
	}
	opts = append(opts, option.WithHTTPClient(hc))
	return &Provider{client: sdk.NewClient(opts...), model: cfg.Model, mode: mode, maxTokens: maxTokens}, nil
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
	var raw *http.Response
	// The SDK sends body in place of params (wire.go says why); params keep
	// the model and max_tokens, from which the SDK derives its timeout and
	// span attributes as before.
	msg, err := p.client.Messages.New(ctx, sdk.MessageNewParams{Model: p.model, MaxTokens: p.maxTokens},
		option.WithRequestBody("application/json", body), option.WithResponseInto(&raw))
	if raw != nil {
		resp.HTTPStatus = raw.StatusCode
		resp.RequestID = raw.Header.Get("request-id")
	}
	if err != nil {
		var ae *sdk.Error
		if errors.As(err, &ae) {
			resp.HTTPStatus = ae.StatusCode
			if resp.RequestID == "" {
				resp.RequestID = ae.RequestID
			}
			return resp, apiError(ae)
		}
		return resp, transportError(ctx, err, raw)
	}
	resp.HTTPStatus = http.StatusOK
	if raw != nil {
		resp.HTTPStatus = raw.StatusCode
	}
	if msg.Model != "" {
		resp.Model = msg.Model
	}
	u := msg.Usage
	resp.InputTokens = u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
	resp.OutputTokens = u.OutputTokens
	return p.answer(msg, resp, tool)
}

// answer reads the candidate document out of a decoded message; tool says
// the request forced the emit tool, so the document is its input.
func (p *Provider) answer(msg *sdk.Message, resp *extract.Response, tool bool) (*extract.Response, error) {
	switch msg.StopReason {
	case sdk.StopReasonRefusal:
		// The refusal text is the model's and may quote the document: it
		// goes nowhere. The policy category is a bounded API enum.
		m := "the model refused to answer"
		if c := category(string(msg.StopDetails.Category)); c != "" {
			m += " (policy category " + c + ")"
		}
		return resp, &extract.ProviderError{Class: extract.ClassRejected, Category: "refusal", Msg: m}
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
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
func output(msg *sdk.Message, tool bool) []byte {
	if tool {
		if out, ok := toolInput(msg); ok {
			return out
		}
	}
	return textOf(msg)
}

// toolInput returns the input of the first tool_use block calling ToolName.
// It never trusts the block's position: the model may think or talk first.
func toolInput(msg *sdk.Message) ([]byte, bool) {
	for _, b := range msg.Content {
		if b.Type == "tool_use" && b.Name == ToolName {
			return append([]byte(nil), b.Input...), true
		}
	}
	return nil, false
}

// textOf concatenates the text blocks, skipping thinking and other blocks.
func textOf(msg *sdk.Message) []byte {
	var sb strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	if sb.Len() == 0 {
		return nil
	}
	return []byte(sb.String())
}

func hasText(msg *sdk.Message) bool {
	for _, b := range msg.Content {
		if b.Type == "text" {
			return true
		}
	}
	return false
}

// params builds the request and reports whether it forces the emit tool.
// No temperature: the 2026-10-21 API version answers 400 to it.
//
// A schema beyond the limits of strict schemas (fitsStrict) cannot be sent
// as output_config.format or a strict tool: the API would refuse every
// request with a 400. It goes as the input schema of a forced tool without
// strict instead, in either mode: the model is still shown the schema and
// asked for exactly that tool, and validation (with repair) checks what the
// grammar no longer guarantees.
func (p *Provider) params(req *extract.Request) (sdk.MessageNewParams, bool) {
	return p.paramsFor(req.Schema, req.Schema.UserMessage(req.Text), feedbackText(req))
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

// paramsFor is the request of version v with the user message user and,
// unless it is "", the re-ask's feedback.
func (p *Provider) paramsFor(v *schema.Version, user, feedback string) (sdk.MessageNewParams, bool) {
	blocks := []sdk.ContentBlockParamUnion{sdk.NewTextBlock(user)}
	if feedback != "" {
		blocks = append(blocks, sdk.NewTextBlock(feedback))
	}
	params := sdk.MessageNewParams{
		Model:     p.model,
		MaxTokens: p.maxTokens,
		System:    []sdk.TextBlockParam{{Text: v.Prompt()}},
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(blocks...)},
	}
	s, strict := versionSchema(v)
	if p.mode == ModeJSONSchema && strict {
		params.OutputConfig = sdk.OutputConfigParam{Format: sdk.JSONOutputFormatParam{Schema: s}}
		return params, false
	}
	tool := &sdk.ToolParam{
		Name:        ToolName,
		Description: sdk.String("Return the " + v.Name + " document for the invoice."),
		InputSchema: toolSchema(s),
	}
	if strict {
		tool.Strict = sdk.Bool(true)
	}
	params.Tools = []sdk.ToolUnionParam{{OfTool: tool}}
	params.ToolChoice = sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{
		Name: ToolName, DisableParallelToolUse: sdk.Bool(true)}}
	return params, true
}

// toolSchema puts a root object schema into the SDK's tool input schema
// type, which spells out properties, required and type and takes the rest
// (additionalProperties, description) as extra fields.
func toolSchema(s map[string]any) sdk.ToolInputSchemaParam {
	ts := sdk.ToolInputSchemaParam{Properties: s["properties"], ExtraFields: map[string]any{}}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				ts.Required = append(ts.Required, name)
			}
		}
	}
	for k, v := range s {
		switch k {
		case "properties", "required", "type":
		default:
			ts.ExtraFields[k] = v
		}
	}
	return ts
}
