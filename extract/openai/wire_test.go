package openai

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/schema"
)

// TestRequestBodyMatchesSDK holds the hand-encoded request body to what the
// SDK encodes from params: the same JSON object, for every schema version,
// with and without a re-ask's feedback, whatever the text holds.
func TestRequestBodyMatchesSDK(t *testing.T) {
	t.Parallel()
	p, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m-1", MaxTokens: 777})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"INVOICE 7\nTotal: EUR 1.00\n",
		"quotes \" and \\ backslash, <html> & tags\u2028\u2029, tab\t, bell \x07, emoji 🧾, Zürich",
		"",
	}
	feedback := []*schema.ValidationError{nil, {Path: "invoice.total_minor", Category: "type", Msg: `must be an integer, not "1.00"`}}
	for _, name := range schema.Versions() {
		v, err := schema.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			for _, fb := range feedback {
				req := &extract.Request{Text: text, Schema: v, Feedback: fb}
				body, err := p.requestBody(req)
				if err != nil {
					t.Fatalf("%s: requestBody: %v", name, err)
				}
				got := body.bytes()
				want, err := sdkParams(p, req).MarshalJSON()
				if err != nil {
					t.Fatalf("%s: SDK MarshalJSON: %v", name, err)
				}
				if d := cmp.Diff(extracttest.DecodeJSON(t, want), extracttest.DecodeJSON(t, got)); d != "" {
					t.Errorf("%s, text %.20q, feedback %v: body differs from the SDK's (-sdk +ours):\n%s", name, text, fb != nil, d)
				}
			}
		}
	}
}

// TestDecodeCompletionMatchesSDK holds the short decoder to the SDK's for
// every field answer reads, on the common shape and on the odd ones that
// fall back to the SDK.
func TestDecodeCompletionMatchesSDK(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"answer":            `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"{\"a\":1}","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":42,"completion_tokens":9,"total_tokens":51}}`,
		"refusal":           `{"model":"m","choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}`,
		"length":            `{"model":"m","choices":[{"message":{"content":"{\"a\":"},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":4096}}`,
		"two choices":       `{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"stop"},{"message":{"content":"y"},"finish_reason":"stop"}]}`,
		"no usage":          `{"choices":[{"message":{"content":"x"}}]}`,
		"no choices":        `{"model":"m","choices":[],"error":{"message":"upstream","type":"server_error"}}`,
		"odd usage":         `{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":"12"}}`,
		"content parts":     `{"model":"m","choices":[{"message":{"content":[{"type":"text","text":"x"}]},"finish_reason":"stop"}]}`,
		"trailing":          `{"model":"m","choices":[{"message":{"content":"x"}}]} trailing`,
		"odd kinds":         `{"model":5,"choices":[{"message":{"content":5,"refusal":true},"finish_reason":7}],"usage":{"prompt_tokens":3.5,"completion_tokens":"x"}}`,
		"choices object":    `{"model":"m","choices":{},"error":"upstream"}`,
		"choice not object": `{"model":"m","choices":[5,{"message":null}]}`,
		"null choice":       `{"model":"m","choices":[null,{"message":{"content":"x"}}]}`,
		"null message":      `{"model":"m","choices":[{"message":null,"finish_reason":"stop"}]}`,
		"array":             `[]`,
		"string":            `"x"`,
		"number":            `5`,
	} {
		got, gotErr := decodeCompletion([]byte(body))
		var want *oai.ChatCompletion
		wantErr := json.NewDecoder(strings.NewReader(body)).Decode(&want)
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("%s: error %v, the SDK's %v", name, gotErr, wantErr)
			continue
		}
		if gotErr != nil {
			continue
		}
		if d := cmp.Diff(sdkAnswerFields(want), answerFields(got)); d != "" {
			t.Errorf("%s: (-sdk +ours)\n%s", name, d)
		}
	}
	if cc, err := decodeCompletion([]byte("null")); cc != nil || err != nil {
		t.Errorf("null body: %v, %v; want no completion and no error", cc, err)
	}
	if _, err := decodeCompletion([]byte(`{"model":"m","choices":[{"mess`)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut body: %v, want io.ErrUnexpectedEOF (category truncated_body)", err)
	}
}

// sdkAnswerFields is what answer and emptyAnswer read from the SDK's
// completion.
func sdkAnswerFields(cc *oai.ChatCompletion) map[string]any {
	if cc == nil {
		return nil
	}
	m := map[string]any{"model": cc.Model, "in": cc.Usage.PromptTokens, "out": cc.Usage.CompletionTokens, "n": len(cc.Choices)}
	for i, c := range cc.Choices {
		m["choice"+string(rune('0'+i))] = [3]string{c.FinishReason, c.Message.Content, c.Message.Refusal}
	}
	if f, ok := cc.JSON.ExtraFields["error"]; ok {
		m["error"] = f.Raw()
	}
	return m
}

// answerFields is what answer and emptyAnswer read from a completion.
func answerFields(cc *completion) map[string]any {
	if cc == nil {
		return nil
	}
	m := map[string]any{"model": cc.Model, "in": cc.Usage.PromptTokens, "out": cc.Usage.CompletionTokens, "n": len(cc.Choices)}
	for i, c := range cc.Choices {
		m["choice"+string(rune('0'+i))] = [3]string{c.FinishReason, c.Content, c.Refusal}
	}
	if cc.Error != nil {
		m["error"] = string(cc.Error)
	}
	return m
}
