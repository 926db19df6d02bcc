package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
)

// Encoding a request walks the system prompt and the whole response schema
// (a map, its keys sorted at every level): through the SDK's reflective
// encoder about a millisecond of CPU per document, more than all the rest
// of invx's work on it. Everything but the document's text and a re-ask's
// feedback is the same for every request of a schema version, so each
// version's request is encoded once, with placeholders where those texts
// go, and each call fills them in. The request is the JSON object the
// SDK's params encoded (TestRequestBodyMatchesSDK).

// Placeholders for the texts: plain ASCII, so that every encoder writes
// them as they are, and nothing a prompt or schema could contain.
const (
	userSlot     = "invx-slot-user-3b0c9e51d2"
	feedbackSlot = "invx-slot-feedback-8f41a7c6e0"
)

type templateKey struct {
	v        *schema.Version
	feedback bool
}

// template is an encoded request cut at its placeholders: parts[0], the user
// message, parts[1], then (with feedback) the feedback and parts[2].
type template struct {
	once  sync.Once
	parts [][]byte
	tool  bool
	err   error
}

func (p *Provider) template(v *schema.Version, feedback bool) (*template, error) {
	t, _ := p.templates.LoadOrStore(templateKey{v, feedback}, &template{})
	tp := t.(*template)
	tp.once.Do(func() {
		fb := ""
		if feedback {
			fb = feedbackSlot
		}
		r, tool := p.requestFor(v, userSlot, fb)
		enc, err := json.Marshal(r)
		if err != nil {
			tp.err = fmt.Errorf("encode request of %s: %w", v.Name, err)
			return
		}
		tp.tool = tool
		slots := []string{userSlot}
		if feedback {
			slots = append(slots, feedbackSlot)
		}
		rest := enc
		for _, slot := range slots {
			quoted := []byte(`"` + slot + `"`)
			i := bytes.Index(rest, quoted)
			if i < 0 || bytes.Contains(rest[i+len(quoted):], quoted) {
				tp.err = fmt.Errorf("encode request of %s: placeholder not found once", v.Name)
				return
			}
			tp.parts = append(tp.parts, rest[:i])
			rest = rest[i+len(quoted):]
		}
		tp.parts = append(tp.parts, rest)
	})
	return tp, tp.err
}

// requestBody is the encoded request for req and whether it forces the emit
// tool (params' second result).
func (p *Provider) requestBody(req *extract.Request) ([]byte, bool, error) {
	fb := feedbackText(req)
	t, err := p.template(req.Schema, fb != "")
	if err != nil {
		return nil, false, err
	}
	texts := []string{req.Schema.UserMessage(req.Text)}
	if fb != "" {
		texts = append(texts, fb)
	}
	size := len(texts[0]) + len(fb) + 64
	for _, part := range t.parts {
		size += len(part)
	}
	body := make([]byte, 0, size)
	for i, text := range texts {
		q, err := json.Marshal(text)
		if err != nil {
			return nil, false, fmt.Errorf("encode message: %w", err)
		}
		body = append(append(body, t.parts[i]...), q...)
	}
	return append(body, t.parts[len(texts)]...), t.tool, nil
}

// messageRequest is a Messages request body (and a batch request's
// params): the members invx sets, as the SDK's MessageNewParams encoded
// them.
type messageRequest struct {
	MaxTokens    int64         `json:"max_tokens"`
	Messages     []userMessage `json:"messages"`
	Model        string        `json:"model"`
	OutputConfig *outputConfig `json:"output_config,omitempty"`
	System       []textBlock   `json:"system"`
	ToolChoice   *toolChoice   `json:"tool_choice,omitempty"`
	Tools        []tool        `json:"tools,omitempty"`
}

type textBlock struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type userMessage struct {
	Content []textBlock `json:"content"`
	Role    string      `json:"role"`
}

type outputConfig struct {
	Format struct {
		Schema map[string]any `json:"schema"`
		Type   string         `json:"type"`
	} `json:"format"`
}

type toolChoice struct {
	Name                   string `json:"name"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use"`
	Type                   string `json:"type"`
}

type tool struct {
	InputSchema map[string]any `json:"input_schema"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Strict      bool           `json:"strict,omitempty"`
}

// requestFor builds the request of version v with the user message user
// and, unless it is "", the re-ask's feedback, and reports whether it
// forces the emit tool. No temperature: the 2026-10-21 API version
// answers 400 to it.
//
// A schema beyond the limits of strict schemas (fitsStrict) cannot be sent
// as output_config.format or a strict tool: the API would refuse every
// request with a 400. It goes as the input schema of a forced tool without
// strict instead, in either mode: the model is still shown the schema and
// asked for exactly that tool, and validation (with repair) checks what the
// grammar no longer guarantees.
func (p *Provider) requestFor(v *schema.Version, user, feedback string) (messageRequest, bool) {
	blocks := []textBlock{{Text: user, Type: "text"}}
	if feedback != "" {
		blocks = append(blocks, textBlock{Text: feedback, Type: "text"})
	}
	r := messageRequest{
		MaxTokens: p.maxTokens,
		Messages:  []userMessage{{Content: blocks, Role: "user"}},
		Model:     p.model,
		System:    []textBlock{{Text: v.Prompt(), Type: "text"}},
	}
	s, strict := versionSchema(v)
	if p.mode == ModeJSONSchema && strict {
		r.OutputConfig = &outputConfig{}
		r.OutputConfig.Format.Schema, r.OutputConfig.Format.Type = s, "json_schema"
		return r, false
	}
	r.Tools = []tool{{InputSchema: toolSchema(s), Name: ToolName,
		Description: "Return the " + v.Name + " document for the invoice.", Strict: strict}}
	r.ToolChoice = &toolChoice{Name: ToolName, DisableParallelToolUse: true, Type: "tool"}
	return r, true
}

// toolSchema is a root object schema as a tool's input schema: type
// object, the names it requires, and the rest (properties,
// additionalProperties, description) as they are.
func toolSchema(s map[string]any) map[string]any {
	ts := make(map[string]any, len(s)+1)
	for k, v := range s {
		ts[k] = v
	}
	ts["type"] = "object"
	var required []string
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required = append(required, name)
			}
		}
	}
	delete(ts, "required")
	if required != nil {
		ts["required"] = required
	}
	return ts
}
