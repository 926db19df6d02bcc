package openai

import (
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/invx/invx/extract"
)

// openai-go is the reference the adapter is held to: only tests import it,
// so invx does not link it (deps_test.go).

// sdkOptions are the options invx configured the SDK with before it sent
// its requests itself: p's base URL, client, key and timeout, no retries.
func sdkOptions(p *Provider) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithBaseURL(p.ep.base.String()),
		option.WithHTTPClient(p.ep.client),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(p.ep.timeout),
	}
	if p.apiKey != "" {
		opts = append(opts, option.WithAPIKey(p.apiKey))
	}
	return opts
}

// sdkParams is req's request as the SDK's params type, as invx built it.
func sdkParams(p *Provider, req *extract.Request) oai.ChatCompletionNewParams {
	msgs := []oai.ChatCompletionMessageParamUnion{
		oai.SystemMessage(req.Schema.Prompt()),
		oai.UserMessage(req.Schema.UserMessage(req.Text)),
	}
	if req.Feedback != nil {
		msgs = append(msgs, oai.UserMessage(fmt.Sprintf(feedbackFormat, req.Feedback.Error())))
	}
	return oai.ChatCompletionNewParams{
		Model:               shared.ChatModel(p.model),
		Messages:            msgs,
		MaxCompletionTokens: oai.Int(p.maxTokens),
		ResponseFormat: oai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:   formatName(req.Schema.Name),
				Strict: oai.Bool(true),
				Schema: responseSchema(req.Schema),
			},
		}},
	}
}
