package cmd_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// v2Call is what a fake decoded from one provider request: the parts every
// wire format has, in its own spelling.
type v2Call struct {
	System string
	// User holds the user turn's texts in order: the framed document, then
	// a repair's feedback.
	User []string
	// Schema is the JSON Schema the request asks the answer to follow.
	Schema map[string]any
	// Body is the whole request, for format-specific checks, and Raw its
	// bytes as sent.
	Body map[string]any
	Raw  []byte
}

// v2Wire is one provider's wire format as the loopback fakes speak it.
type v2Wire struct {
	name string
	// path is the only path the adapter may call.
	path string
	// args are the provider flags of `invx run` for a server at url.
	args func(url string) []string
	env  map[string]string
	// decode reads a request body, reporting any departure from the wire
	// format the API accepts.
	decode func(t *testing.T, body map[string]any) v2Call
	// reply wraps a candidate document in the API's success envelope.
	reply func(answer string) any
	// checkSchema applies the API's own schema rules.
	checkSchema func(t *testing.T, s map[string]any)
}

// v2Fake is a loopback server that answers with a script of documents, one
// per request, in w's envelope, and fails the test on a request beyond the
// script or a scripted answer never asked for.
type v2Fake struct {
	t   *testing.T
	w   v2Wire
	srv *httptest.Server

	mu      sync.Mutex
	answers []string
	calls   []v2Call
}

func newV2Fake(t *testing.T, w v2Wire, answers ...string) *v2Fake {
	t.Helper()
	f := &v2Fake{t: t, w: w, answers: answers}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.answers) > 0 {
			t.Errorf("fake %s: %d scripted answer(s) never requested", w.name, len(f.answers))
		}
	})
	return f
}

func (f *v2Fake) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if r.Method != http.MethodPost || r.URL.Path != f.w.path {
		t.Errorf("fake %s: got %s %s, want POST %s", f.w.name, r.Method, r.URL.Path, f.w.path)
		http.NotFound(w, r)
		return
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("fake %s: read request: %v", f.w.name, err)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Errorf("fake %s: request is not a JSON object: %v", f.w.name, err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	c := f.w.decode(t, body)
	c.Raw = b
	f.mu.Lock()
	f.calls = append(f.calls, c)
	var answer string
	ok := len(f.answers) > 0
	if ok {
		answer, f.answers = f.answers[0], f.answers[1:]
	}
	f.mu.Unlock()
	if !ok {
		t.Errorf("fake %s: unexpected request %d", f.w.name, len(f.calls))
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(f.w.reply(answer)); err != nil {
		t.Errorf("fake %s: write reply: %v", f.w.name, err)
	}
}

func (f *v2Fake) Calls() []v2Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]v2Call(nil), f.calls...)
}

// The JSON helpers below report a wrong shape through t and return zero
// values, so one malformed request shows every problem at once.

func obj(t *testing.T, v any, what string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: got %T, want a JSON object", what, v)
	}
	return m
}

func arr(t *testing.T, v any, what string) []any {
	t.Helper()
	a, ok := v.([]any)
	if !ok {
		t.Errorf("%s: got %T, want a JSON array", what, v)
	}
	return a
}

func str(t *testing.T, v any, what string) string {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Errorf("%s: got %T, want a string", what, v)
	}
	return s
}

// v2OpenAI is the Chat Completions format with strict structured output.
var v2OpenAI = v2Wire{
	name: "openai",
	path: "/v1/chat/completions",
	args: func(url string) []string {
		return []string{"--provider", "openai", "--model", "gpt-x", "--base-url", url + "/v1"}
	},
	env: map[string]string{"OPENAI_API_KEY": "sk-test"},
	decode: func(t *testing.T, body map[string]any) v2Call {
		t.Helper()
		var c v2Call
		c.Body = body
		rf := obj(t, body["response_format"], "response_format")
		if rf["type"] != "json_schema" {
			t.Errorf("response_format.type = %v, want json_schema", rf["type"])
		}
		js := obj(t, rf["json_schema"], "response_format.json_schema")
		if js["strict"] != true {
			t.Errorf("json_schema.strict = %v, want true", js["strict"])
		}
		if js["name"] != "invoice" {
			t.Errorf("json_schema.name = %v, want invoice", js["name"])
		}
		c.Schema = obj(t, js["schema"], "json_schema.schema")
		for i, m := range arr(t, body["messages"], "messages") {
			msg := obj(t, m, "message")
			text := str(t, msg["content"], "message content")
			switch {
			case i == 0 && msg["role"] == "system":
				c.System = text
			case i > 0 && msg["role"] == "user":
				c.User = append(c.User, text)
			default:
				t.Errorf("messages[%d].role = %v", i, msg["role"])
			}
		}
		return c
	},
	reply: func(answer string) any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": "gpt-x",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer, "refusal": nil}}},
			"usage": map[string]any{"prompt_tokens": 42, "completion_tokens": 9, "total_tokens": 51}}
	},
	checkSchema: func(t *testing.T, s map[string]any) {
		t.Helper()
		checkStrict(t, s)
		// Refused by strict mode with a 400 before any generation.
		forbid(t, s, "$", "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
			"patternProperties", "unevaluatedProperties", "propertyNames", "minProperties", "maxProperties")
	},
}

// anthropicDecode reads a Messages request; the mode-specific part (where
// the schema travels) is left to the caller.
func anthropicDecode(t *testing.T, body map[string]any) v2Call {
	t.Helper()
	c := v2Call{Body: body}
	for _, k := range []string{"temperature", "top_p", "top_k", "output_format", "stream"} {
		if _, ok := body[k]; ok {
			t.Errorf("request has %q, which API version 2026-10-21 refuses", k)
		}
	}
	for _, b := range arr(t, body["system"], "system") {
		c.System += str(t, obj(t, b, "system block")["text"], "system text")
	}
	msgs := arr(t, body["messages"], "messages")
	if len(msgs) != 1 {
		t.Errorf("got %d messages, want one user turn", len(msgs))
	}
	for _, m := range msgs {
		msg := obj(t, m, "message")
		if msg["role"] != "user" {
			t.Errorf("message role %v, want user", msg["role"])
		}
		for _, b := range arr(t, msg["content"], "content") {
			blk := obj(t, b, "content block")
			if blk["type"] != "text" {
				t.Errorf("content block type %v, want text", blk["type"])
			}
			c.User = append(c.User, str(t, blk["text"], "text"))
		}
	}
	return c
}

// anthropicTool reads the forced emit tool; strict says whether the tool
// must be strict.
func anthropicTool(t *testing.T, body map[string]any, c *v2Call, strict bool) {
	t.Helper()
	if _, ok := body["output_config"]; ok {
		t.Errorf("tool request also has output_config")
	}
	tools := arr(t, body["tools"], "tools")
	if len(tools) != 1 {
		t.Fatalf("got %d tools, want 1", len(tools))
	}
	tool := obj(t, tools[0], "tool")
	if tool["name"] != "emit_invoice_summary" {
		t.Errorf("tool name %v", tool["name"])
	}
	if got, _ := tool["strict"].(bool); got != strict {
		t.Errorf("tool strict = %v, want %v", tool["strict"], strict)
	}
	choice := obj(t, body["tool_choice"], "tool_choice")
	if choice["type"] != "tool" || choice["name"] != "emit_invoice_summary" {
		t.Errorf("tool_choice = %v, want the emit tool forced", choice)
	}
	c.Schema = obj(t, tool["input_schema"], "input_schema")
}

func anthropicText(answer string) any {
	return map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
		"content":     []any{map[string]any{"type": "text", "text": answer}},
		"stop_reason": "end_turn", "stop_sequence": nil, "usage": map[string]any{"input_tokens": 12, "output_tokens": 7}}
}

func anthropicToolUse(answer string) any {
	var input any
	if err := json.Unmarshal([]byte(answer), &input); err != nil {
		panic(err)
	}
	return map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "emit_invoice_summary",
			"input": input}},
		"stop_reason": "tool_use", "stop_sequence": nil, "usage": map[string]any{"input_tokens": 12, "output_tokens": 7}}
}

// checkAnthropicSchema applies the limits of Anthropic's structured outputs
// (PROVIDERS.md section 5): closed objects, no numeric or length bounds, no
// maxItems, minItems only 0 or 1.
func checkAnthropicSchema(t *testing.T, s map[string]any) {
	t.Helper()
	checkStrict(t, s)
	forbid(t, s, "$", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
		"minLength", "maxLength", "maxItems", "format", "minProperties", "maxProperties")
	walkSchema(s, "$", func(n map[string]any, path string) {
		if m, ok := n["minItems"]; ok && m != 0.0 && m != 1.0 {
			t.Errorf("%s: minItems %v, Anthropic accepts only 0 or 1", path, m)
		}
	})
}

func v2Anthropic(mode string) v2Wire {
	w := v2Wire{
		name: "anthropic-" + mode,
		path: "/v1/messages",
		args: func(url string) []string {
			return []string{"--provider", "anthropic", "--model", "claude-x", "--anthropic-mode", mode, "--base-url", url}
		},
		env:         map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"},
		checkSchema: checkAnthropicSchema,
	}
	// invoice-v2 has more nullable facts (31) than Anthropic compiles into
	// one strict schema (16 union-typed parameters), so in both modes the
	// adapter forces the emit tool without strict: a schema the API
	// accepts, with validation and repair doing what the grammar cannot.
	w.decode = func(t *testing.T, body map[string]any) v2Call {
		t.Helper()
		c := anthropicDecode(t, body)
		anthropicTool(t, body, &c, false)
		return c
	}
	w.reply = anthropicToolUse
	return w
}

// v2Ollama is the native /api/chat format with a JSON Schema in format.
var v2Ollama = v2Wire{
	name: "ollama",
	path: "/api/chat",
	args: func(url string) []string {
		return []string{"--provider", "ollama", "--model", "llama3.2", "--base-url", url}
	},
	decode: func(t *testing.T, body map[string]any) v2Call {
		t.Helper()
		c := v2Call{Body: body}
		if body["stream"] != false {
			t.Errorf("stream = %v, want false (Ollama streams NDJSON by default)", body["stream"])
		}
		c.Schema = obj(t, body["format"], "format")
		for i, m := range arr(t, body["messages"], "messages") {
			msg := obj(t, m, "message")
			text := str(t, msg["content"], "message content")
			switch {
			case i == 0 && msg["role"] == "system":
				c.System = text
			case i > 0 && msg["role"] == "user":
				c.User = append(c.User, text)
			default:
				t.Errorf("messages[%d].role = %v", i, msg["role"])
			}
		}
		return c
	},
	reply: func(answer string) any {
		return map[string]any{"model": "llama3.2", "created_at": "2026-11-01T10:00:00.1Z",
			"message": map[string]any{"role": "assistant", "content": answer}, "done": true, "done_reason": "stop",
			"total_duration": 812345678, "prompt_eval_count": 26, "eval_count": 9}
	},
	// Ollama turns the full JSON Schema into a grammar: checked by
	// checkSame against the schema package's own.
	checkSchema: func(*testing.T, map[string]any) {},
}
