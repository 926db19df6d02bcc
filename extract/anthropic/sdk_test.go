package anthropic

import (
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
)

// anthropic-sdk-go is the reference the adapter is held to: only tests
// import it, so invx does not link it (deps_test.go).

// sdkClient is the client invx configured before it sent its requests
// itself: p's base URL, client, key and timeout, no retries, no
// environment.
func sdkClient(p *Provider, apiKey string) sdk.Client {
	return sdk.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(apiKey),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(p.ep.timeout),
		option.WithOpenTelemetryTracesContentMode(option.OpenTelemetryContentModeMetadataOnly),
		option.WithBaseURL(p.ep.base.String()),
		option.WithHTTPClient(p.ep.client),
	)
}

// sdkParams is req's request as the SDK's params type, as invx built it,
// and whether it forces the emit tool.
func sdkParams(p *Provider, req *extract.Request) (sdk.MessageNewParams, bool) {
	return sdkParamsFor(p, req.Schema, req.Schema.UserMessage(req.Text), feedbackText(req))
}

func sdkParamsFor(p *Provider, v *schema.Version, user, feedback string) (sdk.MessageNewParams, bool) {
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
		InputSchema: sdkToolSchema(s),
	}
	if strict {
		tool.Strict = sdk.Bool(true)
	}
	params.Tools = []sdk.ToolUnionParam{{OfTool: tool}}
	params.ToolChoice = sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{
		Name: ToolName, DisableParallelToolUse: sdk.Bool(true)}}
	return params, true
}

func sdkToolSchema(s map[string]any) sdk.ToolInputSchemaParam {
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
