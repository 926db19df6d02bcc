package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/internal/sdkwire"
	"github.com/invx/invx/schema"
)

// The synchronous path encodes its request body and decodes the answer
// itself (and sends it itself, call.go). The SDK's reflective encoder
// re-walked the constant system prompt and response schema on every call, and its decoder goes through
// gjson: together a third of a millisecond of CPU per document, more than
// the rest of a call. What goes on the wire is the same JSON object as
// the SDK encoded (TestRequestBodyMatchesSDK); the batch path's lines,
// encoded the SDK's way, are a golden file (batchBody).

// head is the part of a request body that is the same for every document
// of a schema version: everything up to the user message's content.
type head struct {
	once  sync.Once
	bytes []byte
	err   error
}

// requestHead is what json.Marshal writes before the user message: the
// messages array comes last so that the per-document part can be appended.
type requestHead struct {
	Model               string          `json:"model"`
	MaxCompletionTokens int64           `json:"max_completion_tokens"`
	ResponseFormat      json.RawMessage `json:"response_format"`
	Messages            []wireMessage   `json:"messages"`
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// responseFormat is the strict json_schema response format of version v.
type responseFormat struct {
	Type       string `json:"type"`
	JSONSchema struct {
		Name   string `json:"name"`
		Strict bool   `json:"strict"`
		Schema any    `json:"schema"`
	} `json:"json_schema"`
}

// requestHead returns the encoded head for v, built once per version.
func (p *Provider) requestHead(v *schema.Version) ([]byte, error) {
	h, _ := p.heads.LoadOrStore(v, &head{})
	hd := h.(*head)
	hd.once.Do(func() {
		var rf responseFormat
		rf.Type = "json_schema"
		rf.JSONSchema.Name, rf.JSONSchema.Strict, rf.JSONSchema.Schema = formatName(v.Name), true, responseSchema(v)
		format, err := json.Marshal(rf)
		if err != nil {
			hd.err = fmt.Errorf("encode response format of %s: %w", v.Name, err)
			return
		}
		b, err := json.Marshal(requestHead{Model: p.model, MaxCompletionTokens: p.maxTokens, ResponseFormat: format,
			Messages: []wireMessage{{Role: "system", Content: v.Prompt()}}})
		if err != nil {
			hd.err = fmt.Errorf("encode request head of %s: %w", v.Name, err)
			return
		}
		// Cut the closing "]}" so that further messages can follow.
		hd.bytes = b[:len(b)-2]
	})
	return hd.bytes, hd.err
}

// wireBody is a chat completion request body in two parts: the version's
// head, shared by every request of the version (a few KiB: the system
// prompt and the response schema), and the document's own tail. A request
// holds its body until the answer comes, so at --concurrency 256 a copy of
// the head in each was most of what the calls in flight held.
type wireBody struct{ head, tail []byte }

// size is the body's length in bytes.
func (b wireBody) Size() int64 { return int64(len(b.head) + len(b.tail)) }

// reader reads the body from its start; the head is read in place.
func (b wireBody) Reader() io.ReadCloser { return &partsReader{parts: [2][]byte{b.head, b.tail}} }

// partsReader reads its parts one after the other, filling each Read from
// as many of them as fit. Not io.MultiReader: net/http copies a body with a
// known length through a buffer of that length in one write, then drains
// what is left with io.Copy, which a MultiReader serves through WriteTo
// with a fresh 32 KiB buffer, and a MultiReader's Read stops at the end of
// a part, so head and tail went out in two writes. At --concurrency 256
// those buffers were a quarter of the bytes a run allocated.
type partsReader struct{ parts [2][]byte }

func (r *partsReader) Read(p []byte) (int, error) {
	n := 0
	for i := range r.parts {
		c := copy(p[n:], r.parts[i])
		r.parts[i] = r.parts[i][c:]
		n += c
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (r *partsReader) Close() error { return nil }

// bytes is the body in one piece (tests).
func (b wireBody) bytes() []byte { return append(append([]byte(nil), b.head...), b.tail...) }

// requestBody is the chat completion request for req: the version's head,
// then the document's user message and the feedback of a re-ask.
func (p *Provider) requestBody(req *extract.Request) (wireBody, error) {
	hd, err := p.requestHead(req.Schema)
	if err != nil {
		return wireBody{}, err
	}
	user := req.Schema.UserMessage(req.Text)
	var fb string
	if req.Feedback != nil {
		fb = fmt.Sprintf(feedbackFormat, req.Feedback.Error())
	}
	// Each message is what json.Marshal writes for a wireMessage, encoded
	// straight into the one buffer; room for a few escapes each.
	tail := make([]byte, 0, len(user)+len(user)/8+len(fb)+len(fb)/8+2*len(userPrefix)+8)
	tail = appendUserMessage(append(tail, ','), user)
	if req.Feedback != nil {
		tail = appendUserMessage(append(tail, ','), fb)
	}
	return wireBody{head: hd, tail: append(tail, "]}"...)}, nil
}

// userPrefix opens a user message as json.Marshal writes a wireMessage.
const userPrefix = `{"role":"user","content":`

// appendUserMessage appends the user message with content as json.Marshal
// encodes wireMessage{Role: "user", Content: content}.
func appendUserMessage(dst []byte, content string) []byte {
	return append(appendJSONString(append(dst, userPrefix...), content), '}')
}

// completion is the part of a chat completion that answer reads.
type completion struct {
	Model   string
	Choices []choice
	Usage   struct{ PromptTokens, CompletionTokens int64 }
	// Error is the answer's "error" member: OpenRouter and some proxies
	// send HTTP 200 with an error and no choices.
	Error json.RawMessage
}

type choice struct{ FinishReason, Content, Refusal string }

// wireCompletion is the common shape of a chat completion, for
// json.Unmarshal.
type wireCompletion struct {
	Model   string `json:"model"`
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// decodeCompletion reads a 200 answer's body as openai-go's decoder did
// (TestDecodeCompletionMatchesSDK). The common shape is read by
// fastCompletion, or failing that into wireCompletion with json.Unmarshal, in place (a json.Decoder copies the
// body into a buffer of its own first); anything else (no choices, a field
// of another type, a JSON null, a body cut short or with more after its
// value) is read leniently, field by field, as the SDK read it: its first
// value whatever follows it, a truncated body an io.ErrUnexpectedEOF
// (category truncated_body), a string field of another type as its JSON
// text, an integer from a number or a numeric string. A nil completion and
// nil error: the body was null.
func decodeCompletion(body []byte) (*completion, error) {
	if cc, ok := fastCompletion(body); ok {
		return cc, nil
	}
	return unmarshalCompletion(body)
}

// unmarshalCompletion is decodeCompletion without its fast path: what
// fastCompletion must agree with wherever it reads a body.
func unmarshalCompletion(body []byte) (*completion, error) {
	var w wireCompletion
	if err := json.Unmarshal(body, &w); err == nil && len(w.Choices) > 0 {
		cc := &completion{Model: w.Model, Choices: make([]choice, len(w.Choices))}
		cc.Usage.PromptTokens, cc.Usage.CompletionTokens = w.Usage.PromptTokens, w.Usage.CompletionTokens
		for i, c := range w.Choices {
			cc.Choices[i] = choice{FinishReason: c.FinishReason, Content: c.Message.Content, Refusal: c.Message.Refusal}
		}
		return cc, nil
	}
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&raw); err != nil {
		return nil, fmt.Errorf("error parsing response json: %w", err)
	}
	return lenientCompletion(raw)
}

// lenientCompletion reads one JSON value as the SDK's decoder read a chat
// completion; members of the wrong kind read as empty.
func lenientCompletion(raw json.RawMessage) (*completion, error) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil, nil
	}
	top := sdkwire.ObjectOf(raw)
	if top == nil {
		return nil, fmt.Errorf("error parsing response json: json: cannot unmarshal %s into Go value of type openai.ChatCompletion", jsonKind(raw))
	}
	cc := &completion{Model: sdkwire.FieldString(top["model"]), Error: top["error"]}
	usage := sdkwire.ObjectOf(top["usage"])
	cc.Usage.PromptTokens, cc.Usage.CompletionTokens = fieldInt(usage["prompt_tokens"]), fieldInt(usage["completion_tokens"])
	var list []json.RawMessage
	if t := bytes.TrimSpace(top["choices"]); len(t) > 0 && t[0] == '[' {
		_ = json.Unmarshal(t, &list)
	}
	for _, item := range list {
		if k := bytes.TrimSpace(item); len(k) > 0 && k[0] != '{' && string(k) != "null" {
			// One member of another kind and the SDK read no choices.
			list = nil
			break
		}
	}
	for _, item := range list {
		c := sdkwire.ObjectOf(item)
		msg := sdkwire.ObjectOf(c["message"])
		cc.Choices = append(cc.Choices, choice{FinishReason: sdkwire.FieldString(c["finish_reason"]),
			Content: sdkwire.FieldString(msg["content"]), Refusal: sdkwire.FieldString(msg["refusal"])})
	}
	return cc, nil
}
