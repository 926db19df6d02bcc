package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/bench/internal/synth"
	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/openai"
	"github.com/invx/invx/extract/replay"
	"github.com/invx/invx/extract/rules"
	"github.com/invx/invx/schema"
)

const testLatency = 50 * time.Millisecond

// setup starts the fake on loopback and returns invx's real openai
// provider pointed at it, so every test goes through the exact requests
// invx sends and the exact parsing invx does.
func setup(t *testing.T, answersDir string) (*openai.Provider, string) {
	t.Helper()
	a, err := newAnswerer(answersDir, "default")
	if err != nil {
		t.Fatalf("newAnswerer: %v", err)
	}
	srv := httptest.NewServer(newServer(a, testLatency).handler())
	t.Cleanup(srv.Close)
	p, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "fake-model", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("openai.New: %v", err)
	}
	return p, srv.URL
}

func version(t *testing.T, name string) *schema.Version {
	t.Helper()
	v, err := schema.Lookup(name)
	if err != nil {
		t.Fatalf("schema.Lookup(%q): %v", name, err)
	}
	return v
}

// rulesAnswer is what invx's rules provider answers for text under v.
func rulesAnswer(t *testing.T, v *schema.Version, text string) []byte {
	t.Helper()
	resp, err := rules.New().Extract(t.Context(), &extract.Request{Tenant: "default", Attempt: 1, Text: text, Schema: v})
	if err != nil {
		t.Fatalf("rules: %v", err)
	}
	return resp.Output
}

// extractVia sends one document through invx's openai provider and checks
// the latency was kept.
func extractVia(t *testing.T, p *openai.Provider, v *schema.Version, text string) *extract.Response {
	t.Helper()
	start := time.Now()
	resp, err := p.Extract(t.Context(), &extract.Request{Tenant: "default", JobKey: "k", Attempt: 1, Text: text, Schema: v})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	if d := time.Since(start); d < testLatency {
		t.Errorf("answered after %v, want at least the latency %v", d, testLatency)
	}
	return resp
}

// TestAnswersRealRequest: a synthetic invoice sent by invx's openai adapter
// gets the rules answer for exactly that text, which invx's validation
// accepts (evidence included), with the metadata the adapter records.
func TestAnswersRealRequest(t *testing.T) {
	t.Parallel()
	p, _ := setup(t, "")
	text, err := extract.Normalize(synth.Doc(1, 7))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{schema.V2, schema.V1} {
		t.Run(name, func(t *testing.T) {
			v := version(t, name)
			resp := extractVia(t, p, v, text)
			if diff := cmp.Diff(string(rulesAnswer(t, v, text)), string(resp.Output)); diff != "" {
				t.Errorf("answer is not the rules answer for the document (-want +got):\n%s", diff)
			}
			if _, err := v.ValidateReviewable(resp.Output, text); err != nil {
				t.Errorf("answer does not validate: %v", err)
			}
			if resp.HTTPStatus != http.StatusOK || !strings.HasPrefix(resp.RequestID, "req_fake_") || resp.Model != "fake-model" {
				t.Errorf("metadata: status %d, request id %q, model %q", resp.HTTPStatus, resp.RequestID, resp.Model)
			}
			if resp.InputTokens <= 0 || resp.OutputTokens <= 0 {
				t.Errorf("tokens: in %d, out %d, want both > 0", resp.InputTokens, resp.OutputTokens)
			}
		})
	}
}

// TestUnreadableDocument: text the rules find nothing in gets a valid
// answer whose facts are null, as a model that cannot read a document
// should answer; never an error, never invented values.
func TestUnreadableDocument(t *testing.T) {
	t.Parallel()
	p, _ := setup(t, "")
	v := version(t, schema.V2)
	const text = "%%%% ~~~~ 0x7f scan failed ~~~~ %%%%"
	resp := extractVia(t, p, v, text)
	res, err := v.ValidateReviewable(resp.Output, text)
	if err != nil {
		t.Fatalf("answer does not validate: %v\n%s", err, resp.Output)
	}
	d := res.InvoiceV2
	if d.SupplierName != nil || d.InvoiceNumber != nil || d.TotalMinor != nil || d.Currency != nil || d.IssueDate != nil {
		t.Errorf("facts invented from nothing: %s", resp.Output)
	}
}

// TestRecordedAnswers: with -answers the fake serves the recorded answer of
// a document (found by the job key invx gives it) and falls back to the
// rules for a document the recording lacks.
func TestRecordedAnswers(t *testing.T) {
	t.Parallel()
	v := version(t, schema.V2)
	recorded, _ := extract.Normalize(synth.Doc(1, 1))
	other, _ := extract.Normalize(synth.Doc(1, 2))
	// A recorded answer that differs from the rules one, so the test sees
	// where the answer came from.
	want := bytes.Replace(rulesAnswer(t, v, recorded), []byte(`"title":"`), []byte(`"title":"Recorded: `), 1)
	dir := t.TempDir()
	rec, err := replay.NewRecorder(stub{out: want}, dir)
	if err != nil {
		t.Fatal(err)
	}
	key, err := extract.JobKey("default", extract.Transformation, v.Name, extract.Digest(recorded))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Extract(t.Context(), &extract.Request{Tenant: "default", JobKey: key, Attempt: 1, Text: recorded, Schema: v}); err != nil {
		t.Fatalf("record: %v", err)
	}
	p, _ := setup(t, dir)
	if got := extractVia(t, p, v, recorded).Output; !bytes.Equal(got, want) {
		t.Errorf("recorded document: got %s\nwant the recorded answer %s", got, want)
	}
	if got, want := extractVia(t, p, v, other).Output, rulesAnswer(t, v, other); !bytes.Equal(got, want) {
		t.Errorf("document not recorded: got %s\nwant the rules answer %s", got, want)
	}
}

type stub struct{ out []byte }

func (stub) Name() string { return "stub" }
func (s stub) Extract(context.Context, *extract.Request) (*extract.Response, error) {
	return &extract.Response{Output: s.out, Model: "stub"}, nil
}

// TestBadRequests: what the fake cannot answer gets the real API's error
// object and status, never a made-up answer.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	_, url := setup(t, "")
	v2 := version(t, schema.V2)
	good := func(edit func(m map[string]any)) string {
		m := map[string]any{
			"model":    "fake-model",
			"messages": []any{map[string]any{"role": "user", "content": v2.UserMessage("Invoice 1")}},
			"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{
				"name": "invoice", "strict": true, "schema": v2.StrictJSONSchema()}},
		}
		edit(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantParam                any
	}{
		{"wrong route", http.MethodGet, "/v1/models", "", http.StatusNotFound, nil},
		{"not JSON", http.MethodPost, "/v1/chat/completions", "{", http.StatusBadRequest, nil},
		{"no model", http.MethodPost, "/v1/chat/completions", good(func(m map[string]any) { delete(m, "model") }), http.StatusBadRequest, "model"},
		{"json_object", http.MethodPost, "/v1/chat/completions",
			good(func(m map[string]any) { m["response_format"] = map[string]any{"type": "json_object"} }), http.StatusBadRequest, "response_format"},
		{"unknown version", http.MethodPost, "/v1/chat/completions", good(func(m map[string]any) {
			m["response_format"].(map[string]any)["json_schema"] = map[string]any{"name": "x", "schema": map[string]any{
				"properties": map[string]any{"schema_version": map[string]any{"enum": []string{"invoice-v9"}}}}}
		}), http.StatusBadRequest, "response_format"},
		{"no user message", http.MethodPost, "/v1/chat/completions",
			good(func(m map[string]any) { m["messages"] = []any{map[string]any{"role": "system", "content": "x"}} }), http.StatusBadRequest, "messages"},
		{"ok", http.MethodPost, "/v1/chat/completions", good(func(map[string]any) {}), http.StatusOK, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequestWithContext(t.Context(), tt.method, url+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tt.wantStatus, body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tt.wantStatus == http.StatusOK {
				return
			}
			var e struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
					Param   any    `json:"param"`
					Code    any    `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Message == "" || e.Error.Type != "invalid_request_error" {
				t.Errorf("not an OpenAI error object (%v): %s", err, body)
			}
			if e.Error.Param != tt.wantParam {
				t.Errorf("param %v, want %v", e.Error.Param, tt.wantParam)
			}
		})
	}
}
