package openai_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/invx/invx/extract/extracttest"
)

// fake is a loopback Chat Completions server that plays a script of
// responses, one per request. It checks every request against the wire
// format the adapter must send and fails the test on a request beyond the
// script or a scripted response that was never asked for.
type fake struct {
	t   *testing.T
	srv *httptest.Server
	// key is the bearer token every request must carry ("" = none).
	key       string
	model     string
	maxTokens int64

	mu    sync.Mutex
	steps []http.HandlerFunc
	reqs  []wireRequest
}

// wireRequest is what the fake decoded from one request.
type wireRequest struct {
	Header http.Header
	Raw    map[string]json.RawMessage
	Body   struct {
		Model               string `json:"model"`
		MaxCompletionTokens int64  `json:"max_completion_tokens"`
		Messages            []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string         `json:"name"`
				Strict *bool          `json:"strict"`
				Schema map[string]any `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
}

const (
	cfgModel  = "gpt-test"
	respModel = "gpt-test-2026-01-01"
)

func newFake(t *testing.T, key string, steps ...http.HandlerFunc) *fake {
	t.Helper()
	f := &fake{t: t, key: key, model: cfgModel, maxTokens: 4096, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		if n := len(f.steps) - len(f.reqs); n > 0 {
			t.Errorf("fake: %d scripted response(s) never requested (got %d requests, scripted %d)", n, len(f.reqs), len(f.steps))
		}
	})
	return f
}

// URL is the base URL to configure, with "/v1" as users write it.
func (f *fake) URL() string { return f.srv.URL + "/v1" }

// Requests returns what was received so far.
func (f *fake) Requests() []wireRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wireRequest(nil), f.reqs...)
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("fake: read request body: %v", err)
		return
	}
	wr := wireRequest{Header: r.Header.Clone()}
	f.check(r, body, &wr)

	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, wr)
	var step http.HandlerFunc
	if n < len(f.steps) {
		step = f.steps[n]
	}
	f.mu.Unlock()
	if step == nil {
		t.Errorf("fake: unexpected request #%d (only %d scripted)", n+1, len(f.steps))
		w.Header().Set("x-should-retry", "false")
		http.Error(w, `{"error":{"message":"unexpected request","type":"test"}}`, http.StatusTeapot)
		return
	}
	w.Header().Set("x-request-id", fmt.Sprintf("req-%d", n+1))
	step(w, r)
}

// check asserts the wire format of one request.
func (f *fake) check(r *http.Request, body []byte, wr *wireRequest) {
	t := f.t
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		t.Errorf("fake: got %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if got, want := r.Header.Get("Authorization"), bearer(f.key); got != want {
		t.Errorf("fake: Authorization = %q, want %q", got, want)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("fake: Content-Type = %q", ct)
	}
	if rc := r.Header.Get("X-Stainless-Retry-Count"); rc != "0" {
		t.Errorf("fake: X-Stainless-Retry-Count = %q: the SDK retried on its own", rc)
	}
	// Some OpenAI-compatible servers refuse a chunked request body.
	if r.ContentLength != int64(len(body)) || len(r.TransferEncoding) > 0 {
		t.Errorf("fake: Content-Length %d, Transfer-Encoding %q for a body of %d bytes: want the length, not chunked",
			r.ContentLength, r.TransferEncoding, len(body))
	}
	if err := json.Unmarshal(body, &wr.Raw); err != nil {
		t.Errorf("fake: request body is not a JSON object: %v", err)
		return
	}
	if err := json.Unmarshal(body, &wr.Body); err != nil {
		t.Errorf("fake: decode request: %v", err)
		return
	}
	for _, k := range []string{"temperature", "max_tokens", "stream", "n", "tools"} {
		if _, ok := wr.Raw[k]; ok {
			t.Errorf("fake: request carries %q; it must not", k)
		}
	}
	b := &wr.Body
	if b.Model != f.model {
		t.Errorf("fake: model = %q, want %q", b.Model, f.model)
	}
	if b.MaxCompletionTokens != f.maxTokens {
		t.Errorf("fake: max_completion_tokens = %d, want %d", b.MaxCompletionTokens, f.maxTokens)
	}
	rf := b.ResponseFormat
	if rf.Type != "json_schema" || rf.JSONSchema.Name != "invoice_summary" || rf.JSONSchema.Strict == nil || !*rf.JSONSchema.Strict {
		t.Errorf("fake: response_format = %s, want json_schema named invoice_summary, strict", wr.Raw["response_format"])
	}
	s := rf.JSONSchema.Schema
	if s["type"] != "object" || s["additionalProperties"] != false {
		t.Errorf("fake: schema root type=%v additionalProperties=%v, want a closed object", s["type"], s["additionalProperties"])
	}
	if req, _ := s["required"].([]any); len(req) == 0 || req[0] != "schema_version" {
		t.Errorf("fake: schema required = %v", s["required"])
	}
	v := extracttest.V1()
	if len(b.Messages) < 2 || len(b.Messages) > 3 {
		t.Errorf("fake: %d messages, want 2 or 3", len(b.Messages))
		return
	}
	if m := b.Messages[0]; m.Role != "system" || m.Content != v.Prompt() {
		t.Errorf("fake: first message role %q, content is the prompt: %v", m.Role, m.Content == v.Prompt())
	}
	if m := b.Messages[1]; m.Role != "user" || m.Content != v.UserMessage(mustNormalize(extracttest.Invoice)) {
		t.Errorf("fake: second message role %q, content %q", m.Role, m.Content)
	}
	if len(b.Messages) == 3 {
		m := b.Messages[2]
		if m.Role != "user" || !strings.HasPrefix(m.Content, "Your previous answer was rejected by validation: ") ||
			!strings.HasSuffix(m.Content, ". Return a corrected JSON document only.") {
			t.Errorf("fake: feedback message role %q content %q", m.Role, m.Content)
		}
	}
}

func bearer(key string) string {
	if key == "" {
		return ""
	}
	return "Bearer " + key
}

func mustNormalize(s string) string {
	return extracttest.Doc("x.txt", s).Text
}

// Responses the fake can play.

// reply writes a JSON body with a status and extra header pairs.
func reply(status int, body any, hdr ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		switch b := body.(type) {
		case string:
			io.WriteString(w, b)
		default:
			json.NewEncoder(w).Encode(b)
		}
	}
}

// completion is a chat.completion body with one choice.
func completion(message map[string]any, finish string) map[string]any {
	return map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": respModel,
		"system_fingerprint": "fp_1", "service_tier": "default",
		"choices": []any{map[string]any{"index": 0, "message": message, "logprobs": nil, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 42, "completion_tokens": 9, "total_tokens": 51},
	}
}

// answer is a normal completion whose content is s.
func answer(s string) http.HandlerFunc {
	return answerWith(s, "stop")
}

func answerWith(content any, finish string) http.HandlerFunc {
	return reply(http.StatusOK, completion(map[string]any{"role": "assistant", "content": content, "refusal": nil,
		"annotations": []any{}}, finish))
}

// refusal is a structured-output refusal: content null, refusal text.
func refusal(text string) http.HandlerFunc {
	return reply(http.StatusOK, completion(map[string]any{"role": "assistant", "content": nil, "refusal": text,
		"annotations": []any{}}, "stop"))
}

// apiError is an OpenAI error body.
func apiError(status int, typ, code, msg string, hdr ...string) http.HandlerFunc {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	return reply(status, map[string]any{"error": e}, hdr...)
}

// html is an HTML page, as proxies and load balancers send.
func html(status int) http.HandlerFunc {
	return reply(status, "<html><head><title>Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n",
		"Content-Type", "text/html; charset=utf-8")
}

// cutBody hijacks the connection, starts a chunked 200 answer, sends part
// of the JSON and hangs up.
func cutBody(w http.ResponseWriter, _ *http.Request) {
	part := `{"id":"chatcmpl-1","object":"chat.completion","model":"` + respModel + `","choices":[{"index":0,"mess`
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(part), part)
	buf.Flush()
}

// shortBody declares a Content-Length longer than the body it sends.
func shortBody(w http.ResponseWriter, _ *http.Request) {
	part := `{"id":"chatcmpl-1","object":"chat.completion","model":"` + respModel + `","choi`
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", "1000")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, part)
}

// hangUp closes the connection without any answer.
func hangUp(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

// stall answers nothing until the client gives up.
func stall(_ http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
}
