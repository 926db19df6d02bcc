package anthropic_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/extract/anthropic"
)

const (
	testKey   = "sk-ant-test-key"
	testModel = "claude-test"
	// answerModel is the model the fake says answered, to tell it from the
	// model asked for.
	answerModel = "claude-test-20261101"
)

// wireRequest is what the fake decodes from POST /v1/messages.
type wireRequest struct {
	Model     string `json:"model"`
	MaxTokens int64  `json:"max_tokens"`
	System    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"system"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"messages"`
	OutputConfig *struct {
		Format struct {
			Type   string         `json:"type"`
			Schema map[string]any `json:"schema"`
		} `json:"format"`
	} `json:"output_config"`
	Tools []struct {
		Name        string         `json:"name"`
		Strict      bool           `json:"strict"`
		InputSchema map[string]any `json:"input_schema"`
	} `json:"tools"`
	ToolChoice *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
}

// userTexts returns the text blocks of the user turn.
func (r wireRequest) userTexts() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		for _, c := range m.Content {
			if c.Type == "text" {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// step answers one call; n is the 1-based call number.
type step func(w http.ResponseWriter, r *http.Request, n int)

// fake is an httptest Anthropic Messages API. It checks every request
// against the wire format, answers with its steps in order and fails the
// test on a call it has no step for or on a step left unused.
type fake struct {
	t    *testing.T
	srv  *httptest.Server
	mode string
	key  string

	mu    sync.Mutex
	steps []step
	reqs  []wireRequest
}

func newFake(t *testing.T, mode string, steps ...step) *fake {
	t.Helper()
	f := &fake{t: t, mode: mode, key: testKey, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.steps) > 0 {
			t.Errorf("fake anthropic: %d scripted response(s) never used", len(f.steps))
		}
	})
	return f
}

// provider returns a Provider pointed at f.
func (f *fake) provider(t *testing.T, mut ...func(*anthropic.Config)) *anthropic.Provider {
	t.Helper()
	cfg := anthropic.Config{BaseURL: f.srv.URL, APIKey: f.key, Model: testModel, Mode: f.mode,
		HTTPClient: f.srv.Client()}
	for _, m := range mut {
		m(&cfg)
	}
	p, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		t.Errorf("fake anthropic: got %s %s, want POST /v1/messages", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("anthropic-version") == "" {
		t.Errorf("no anthropic-version header")
	}
	// anthropic-sdk-go v2 authenticates with a bearer token, v1 and raw
	// HTTP with x-api-key: either is fine, exactly one is expected.
	bearer, xkey := r.Header.Get("Authorization"), r.Header.Get("X-Api-Key")
	if bearer != "Bearer "+f.key && xkey != f.key {
		t.Errorf("request not authenticated with the key (Authorization set: %t, x-api-key set: %t)", bearer != "", xkey != "")
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		t.Errorf("decode request: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	for _, k := range []string{"temperature", "top_p", "top_k", "output_format", "stream"} {
		if _, ok := raw[k]; ok {
			t.Errorf("request has %q (the 2026-10-21 API version refuses sampling parameters)", k)
		}
	}
	body, _ := json.Marshal(raw)
	var req wireRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Errorf("decode request: %v", err)
	}
	f.check(req)
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	n := len(f.reqs)
	var s step
	if len(f.steps) > 0 {
		s, f.steps = f.steps[0], f.steps[1:]
	}
	f.mu.Unlock()
	if s == nil {
		t.Errorf("fake anthropic: unexpected request %d", n)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	s(w, r, n)
}

// check verifies the shape of one request for the fake's mode.
func (f *fake) check(req wireRequest) {
	t := f.t
	if req.Model != testModel {
		t.Errorf("model = %q, want %q", req.Model, testModel)
	}
	if req.MaxTokens <= 0 {
		t.Errorf("max_tokens = %d", req.MaxTokens)
	}
	if len(req.System) != 1 || !strings.Contains(req.System[0].Text, "invoice") {
		t.Errorf("system is not the schema prompt")
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != "user" {
		t.Errorf("messages: want one user turn, got %d", len(req.Messages))
	}
	if texts := req.userTexts(); len(texts) == 0 || !strings.HasPrefix(texts[0], "<<<INVOICE\n") ||
		!strings.Contains(texts[0], "Acme Tools Ltd") {
		t.Errorf("the user turn does not start with the framed document")
	}
	switch f.mode {
	case anthropic.ModeTool:
		if req.OutputConfig != nil {
			t.Errorf("tool mode sent output_config")
		}
		if len(req.Tools) != 1 || req.Tools[0].Name != anthropic.ToolName || !req.Tools[0].Strict {
			t.Errorf("tools: want one strict %s tool", anthropic.ToolName)
		} else {
			checkSchema(t, req.Tools[0].InputSchema)
		}
		if req.ToolChoice == nil || req.ToolChoice.Type != "tool" || req.ToolChoice.Name != anthropic.ToolName {
			t.Errorf("tool_choice does not force %s", anthropic.ToolName)
		}
	default:
		if req.OutputConfig == nil || req.OutputConfig.Format.Type != "json_schema" {
			t.Errorf("output_config.format is not a json_schema")
		} else {
			checkSchema(t, req.OutputConfig.Format.Schema)
		}
		if len(req.Tools) > 0 || req.ToolChoice != nil {
			t.Errorf("json_schema mode sent tools")
		}
	}
}

// checkSchema checks what Anthropic's structured outputs require of a
// schema: a closed root object with the document's keys, no keyword it
// refuses anywhere.
func checkSchema(t *testing.T, s map[string]any) {
	t.Helper()
	if s["type"] != "object" || s["additionalProperties"] != false {
		t.Errorf("schema root is not a closed object")
	}
	props, _ := s["properties"].(map[string]any)
	for _, k := range []string{"schema_version", "title", "bullets", "invoice", "action_items"} {
		if _, ok := props[k]; !ok {
			t.Errorf("schema has no property %q", k)
		}
	}
	if bad := refused(s, "$"); len(bad) > 0 {
		t.Errorf("schema has keywords Anthropic refuses: %v", bad)
	}
}

// refused lists the places in s that Anthropic's structured outputs refuse.
func refused(s map[string]any, path string) []string {
	var bad []string
	for _, k := range []string{"maxItems", "minimum", "maximum", "minLength", "maxLength", "format", "multipleOf"} {
		if _, ok := s[k]; ok {
			bad = append(bad, path+"."+k)
		}
	}
	if n, ok := s["minItems"].(float64); ok && n != 0 && n != 1 {
		bad = append(bad, path+".minItems")
	}
	if props, ok := s["properties"].(map[string]any); ok {
		if s["additionalProperties"] != false {
			bad = append(bad, path+": object not closed")
		}
		for name, p := range props {
			if pm, ok := p.(map[string]any); ok {
				bad = append(bad, refused(pm, path+"."+name)...)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		bad = append(bad, refused(items, path+"[]")...)
	}
	return bad
}

func (f *fake) requests() []wireRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wireRequest(nil), f.reqs...)
}

// requestID is the request-id of call n.
func requestID(n int) string { return fmt.Sprintf("req_%03d", n) }

// message answers 200 with a Messages API message.
func message(stopReason string, content []map[string]any, in, out int64, extra map[string]any) step {
	return func(w http.ResponseWriter, _ *http.Request, n int) {
		body := map[string]any{
			"id": fmt.Sprintf("msg_%03d", n), "type": "message", "role": "assistant", "model": answerModel,
			"content": content, "stop_reason": stopReason, "stop_sequence": nil, "stop_details": nil,
			"usage": map[string]any{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": 0,
				"cache_read_input_tokens": 0, "service_tier": "standard"},
		}
		for k, v := range extra {
			body[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", requestID(n))
		json.NewEncoder(w).Encode(body)
	}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func toolUse(name string, input string) map[string]any {
	return map[string]any{"type": "tool_use", "id": "toolu_01", "name": name, "input": json.RawMessage(input)}
}

// ok is a json_schema-mode answer: one text block, end_turn.
func ok(answer string) step {
	return message("end_turn", []map[string]any{text(answer)}, 812, 143, nil)
}

// toolOK is a tool-mode answer: thinking and text before the tool call.
func toolOK(answer string) step {
	return message("tool_use", []map[string]any{
		{"type": "thinking", "thinking": "Reading the invoice.", "signature": "sig"},
		text("I'll record the summary."),
		toolUse("other_tool", `{"x":1}`),
		toolUse(anthropic.ToolName, answer),
	}, 1020, 210, nil)
}

// apiError answers status with the Messages API error body.
func apiError(status int, typ, msg string, headers map[string]string, details map[string]any) step {
	return func(w http.ResponseWriter, _ *http.Request, n int) {
		e := map[string]any{"type": typ, "message": msg}
		if details != nil {
			e["details"] = details
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", requestID(n))
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": e, "request_id": requestID(n)})
	}
}

// htmlPage answers status with an HTML page, as a proxy would.
func htmlPage(status int) step {
	return func(w http.ResponseWriter, _ *http.Request, n int) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("request-id", requestID(n))
		w.WriteHeader(status)
		fmt.Fprint(w, "<html><body><h1>Bad Gateway</h1>secret-page-content</body></html>")
	}
}

// rawCut writes a 200 head and part of a body straight to the connection,
// then closes it. chunked picks the framing: a cut chunked stream, or a
// Content-Length longer than what is sent.
func rawCut(chunked bool) step {
	return func(w http.ResponseWriter, _ *http.Request, n int) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		part := `{"id":"msg_x","type":"message","role":"assistant","model":"` + answerModel + `","content":[{"type":"text","text":"{\"schema_`
		head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nrequest-id: " + requestID(n) + "\r\n"
		if chunked {
			head += "Transfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n", len(part), part)
		} else {
			head += "Content-Length: 1000\r\n\r\n" + part
		}
		writeFlush(buf, head)
	}
}

func writeFlush(buf *bufio.ReadWriter, s string) {
	buf.WriteString(s)
	buf.Flush()
}

// stall never answers; it returns when the client gives up.
func stall() step {
	return func(_ http.ResponseWriter, r *http.Request, _ int) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
}
