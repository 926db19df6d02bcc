package openai_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/extract/openai"
	"github.com/invx/invx/store"
)

// row is the part of an attempt row these tests compare.
type row struct {
	Outcome, Class, Category string
	HTTPStatus               int
	RequestID, Model         string
	In, Out                  int64
}

// anyCategory in a wanted row accepts whatever category was recorded.
const anyCategory = "*"

func okRow(n int) row {
	return row{store.OutcomeSucceeded, "", "", 200, reqID(n), respModel, 42, 9}
}

func reqID(n int) string { return "req-" + string(rune('0'+n)) }

// withUnknownField is a valid answer plus a key the schema does not have.
var withUnknownField = strings.Replace(extracttest.ValidAnswer, `"title":`, `"confidence":0.9,"title":`, 1)

const fenced = "```json\n" + extracttest.ValidAnswer + "\n```\n"

type scenario struct {
	name  string
	steps []http.HandlerFunc
	// cfg and runner adjust the defaults.
	cfg    func(*openai.Config)
	runner func(*extract.Runner)
	// wantErr is what the run error must wrap (nil: no error).
	wantErr     error
	wantStates  []string
	wantResults int
	wantRows    []row
	// check asserts anything else.
	check func(t *testing.T, h *harness)
}

// harness is one scenario's wiring: store, fake server, provider, runner.
type harness struct {
	env    *extracttest.Env
	fake   *fake
	runner *extract.Runner
	clock  *extracttest.FakeClock
	runErr error
}

const testKey = "sk-test-key-0001"

func setup(t *testing.T, key string, cfgFn func(*openai.Config), runnerFn func(*extract.Runner), steps ...http.HandlerFunc) *harness {
	t.Helper()
	h := &harness{env: extracttest.New(t), fake: newFake(t, key, steps...)}
	cfg := openai.Config{BaseURL: h.fake.URL(), APIKey: key, Model: cfgModel}
	if cfgFn != nil {
		cfgFn(&cfg)
	}
	if cfg.MaxTokens != 0 {
		h.fake.maxTokens = cfg.MaxTokens
	}
	p, err := openai.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.runner = h.env.Runner(p)
	// Room for Retry-After: the fake clock makes any wait instant.
	h.runner.MaxBackoff = time.Minute
	h.clock = extracttest.NewFakeClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	h.clock.Use(h.runner)
	if runnerFn != nil {
		runnerFn(h.runner)
	}
	return h
}

func (h *harness) run(t *testing.T) {
	t.Helper()
	_, h.runErr = h.env.Run(t, h.runner, extracttest.Doc("a.txt", extracttest.Invoice))
}

func (h *harness) rows(t *testing.T) []row {
	t.Helper()
	var out []row
	for _, a := range h.env.Attempts(t) {
		out = append(out, row{a.Outcome, a.Class, a.Category, a.HTTPStatus, a.RequestID, a.Model, a.InputTokens, a.OutputTokens})
	}
	return out
}

func repair0(r *extract.Runner) { r.Repair = 0 }

func TestScenarios(t *testing.T) {
	t.Parallel()
	tests := []scenario{
		{
			name:       "valid answer",
			steps:      []http.HandlerFunc{answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{okRow(1)},
		},
		{
			name:       "fenced answer",
			steps:      []http.HandlerFunc{answer(fenced)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{okRow(1)},
		},
		{
			name: "429 retry-after-ms then success",
			steps: []http.HandlerFunc{
				apiError(429, "requests", "rate_limit_exceeded", "Rate limit reached for requests", "retry-after-ms", "1500",
					"x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "1.5s"),
				answer(extracttest.ValidAnswer),
			},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "rate_limited", "", 429, "req-1", cfgModel, 0, 0}, okRow(2)},
			check: func(t *testing.T, h *harness) {
				if got := h.env.Attempts(t)[0].NextDelayMS; got != 1500 {
					t.Errorf("next_delay_ms = %d, want 1500 (retry-after-ms)", got)
				}
				if w := h.clock.Waited(); w < 1500*time.Millisecond {
					t.Errorf("clock waited %v, want >= 1.5s", w)
				}
			},
		},
		{
			name: "503 retry-after seconds then success",
			steps: []http.HandlerFunc{
				apiError(503, "server_error", "", "The server is overloaded", "retry-after", "3"),
				answer(extracttest.ValidAnswer),
			},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "", 503, "req-1", cfgModel, 0, 0}, okRow(2)},
			check: func(t *testing.T, h *harness) {
				if got := h.env.Attempts(t)[0].NextDelayMS; got != 3000 {
					t.Errorf("next_delay_ms = %d, want 3000", got)
				}
			},
		},
		{
			name:       "500 JSON then success",
			steps:      []http.HandlerFunc{apiError(500, "server_error", "", "The server had an error"), answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "", 500, "req-1", cfgModel, 0, 0}, okRow(2)},
		},
		{
			name:       "502 HTML then success",
			steps:      []http.HandlerFunc{html(502), answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "", 502, "req-1", cfgModel, 0, 0}, okRow(2)},
		},
		{
			name:       "connection cut mid-body then success",
			steps:      []http.HandlerFunc{cutBody, answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "truncated_body", 200, "", cfgModel, 0, 0}, okRow(2)},
		},
		{
			name:       "Content-Length longer than body then success",
			steps:      []http.HandlerFunc{shortBody, answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "truncated_body", 200, "req-1", cfgModel, 0, 0}, okRow(2)},
		},
		{
			name:       "connection closed without answer then success",
			steps:      []http.HandlerFunc{hangUp, answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", anyCategory, 0, "", cfgModel, 0, 0}, okRow(2)},
		},
		{
			name:       "stall past the timeout then success",
			cfg:        func(c *openai.Config) { c.Timeout = 3 * time.Second }, // not tiny: the retry must answer within it on a loaded machine
			steps:      []http.HandlerFunc{stall, answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "timeout", 0, "", cfgModel, 0, 0}, okRow(2)},
		},
		{
			name:       "200 text/html then success",
			steps:      []http.HandlerFunc{html(200), answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "transport", 200, "req-1", cfgModel, 0, 0}, okRow(2)},
			check: func(t *testing.T, h *harness) {
				if m := h.env.Attempts(t)[0].Message; !strings.Contains(m, `content type "text/html"`) {
					t.Errorf("message %q does not name the content type", m)
				}
			},
		},
		{
			name:       "200 JSON content type with HTML body then success",
			steps:      []http.HandlerFunc{reply(200, "<html>oops</html>"), answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "transport", 200, "req-1", cfgModel, 0, 0}, okRow(2)},
		},
		{
			name: "200 with an error body then success",
			steps: []http.HandlerFunc{
				reply(200, `{"error":{"code":502,"message":"upstream provider error","metadata":{}}}`),
				answer(extracttest.ValidAnswer),
			},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "empty", 200, "req-1", cfgModel, 0, 0}, okRow(2)},
			check: func(t *testing.T, h *harness) {
				if m := h.env.Attempts(t)[0].Message; !strings.Contains(m, "502: upstream provider error") {
					t.Errorf("message %q does not carry the embedded error", m)
				}
			},
		},
		{
			name:       "200 null body then success",
			steps:      []http.HandlerFunc{reply(200, "null"), answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "empty", 200, "req-1", cfgModel, 0, 0}, okRow(2)},
		},
		{
			name: "empty choices then success",
			steps: []http.HandlerFunc{
				reply(200, map[string]any{"id": "c", "object": "chat.completion", "model": respModel, "choices": []any{},
					"usage": map[string]any{"prompt_tokens": 42, "completion_tokens": 0}}),
				answer(extracttest.ValidAnswer),
			},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRetry, "transient", "empty", 200, "req-1", respModel, 42, 0}, okRow(2)},
		},
		{
			name:       "unknown field then repaired",
			steps:      []http.HandlerFunc{answer(withUnknownField), answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRejected, "rejected", "unknown_field", 200, "req-1", respModel, 42, 9}, okRow(2)},
			check: func(t *testing.T, h *harness) {
				reqs := h.fake.Requests()
				if n := len(reqs[0].Body.Messages); n != 2 {
					t.Errorf("first request has %d messages, want 2", n)
				}
				if n := len(reqs[1].Body.Messages); n != 3 {
					t.Fatalf("repair request has %d messages, want 3", n)
				}
				fb := reqs[1].Body.Messages[2].Content
				if !strings.Contains(fb, "unknown_field") || !strings.Contains(fb, "confidence") {
					t.Errorf("feedback %q does not name the rejection", fb)
				}
			},
		},
		{
			name:       "prose then repaired",
			steps:      []http.HandlerFunc{answer("Sure! Here is the summary you asked for."), answer(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded}, wantResults: 1,
			wantRows: []row{{store.OutcomeRejected, "rejected", "decode", 200, "req-1", respModel, 42, 9}, okRow(2)},
		},
		{
			name:       "refusal",
			runner:     repair0,
			steps:      []http.HandlerFunc{refusal("I'm sorry, I cannot help with SECRET-REFUSAL-TEXT.")},
			wantStates: []string{store.StateRejected},
			wantRows:   []row{{store.OutcomeRejected, "rejected", "refusal", 200, "req-1", respModel, 42, 9}},
			check: func(t *testing.T, h *harness) {
				if m := h.env.Attempts(t)[0].Message; strings.Contains(m, "SECRET-REFUSAL-TEXT") || !strings.Contains(m, "refused") {
					t.Errorf("message %q: want a plain 'refused', not the refusal text", m)
				}
			},
		},
		{
			name:       "finish_reason length",
			runner:     repair0,
			steps:      []http.HandlerFunc{answerWith(extracttest.ValidAnswer[:60], "length")},
			wantStates: []string{store.StateRejected},
			wantRows:   []row{{store.OutcomeRejected, "rejected", "truncated", 200, "req-1", respModel, 42, 9}},
		},
		{
			name:       "finish_reason content_filter",
			runner:     repair0,
			steps:      []http.HandlerFunc{answerWith(nil, "content_filter")},
			wantStates: []string{store.StateRejected},
			wantRows:   []row{{store.OutcomeRejected, "rejected", "content_filter", 200, "req-1", respModel, 42, 9}},
		},
		{
			name: "insufficient_quota",
			steps: []http.HandlerFunc{apiError(429, "insufficient_quota", "insufficient_quota",
				"You exceeded your current quota, please check your plan and billing details.", "retry-after-ms", "1")},
			wantErr:    extract.ErrQuota,
			wantStates: []string{store.StateFailed},
			wantRows:   []row{{store.OutcomeFailed, "permanent", extract.CategoryQuota, 429, "req-1", cfgModel, 0, 0}},
		},
		{
			name:       "402 payment required",
			steps:      []http.HandlerFunc{reply(402, `{"error":{"code":402,"message":"Insufficient credits"}}`)},
			wantErr:    extract.ErrQuota,
			wantStates: []string{store.StateFailed},
			wantRows:   []row{{store.OutcomeFailed, "permanent", extract.CategoryQuota, 402, "req-1", cfgModel, 0, 0}},
		},
		{
			name: "context length exceeded",
			steps: []http.HandlerFunc{apiError(400, "invalid_request_error", "context_length_exceeded",
				"This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.")},
			wantStates: []string{store.StateFailed},
			wantRows:   []row{{store.OutcomeFailed, "permanent", "context_length", 400, "req-1", cfgModel, 0, 0}},
		},
		{
			name: "400 schema rejected",
			steps: []http.HandlerFunc{apiError(400, "invalid_request_error", "invalid_json_schema",
				"Invalid schema for response_format 'invoice_summary'.")},
			wantStates: []string{store.StateFailed},
			wantRows:   []row{{store.OutcomeFailed, "permanent", "", 400, "req-1", cfgModel, 0, 0}},
		},
		{
			name:       "401",
			steps:      []http.HandlerFunc{apiError(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")},
			wantErr:    extract.ErrAuth,
			wantStates: []string{store.StateQueued},
			wantRows:   []row{{store.OutcomeReleased, "auth", "", 401, "req-1", cfgModel, 0, 0}},
		},
		{
			name: "404 model",
			steps: []http.HandlerFunc{apiError(404, "invalid_request_error", "model_not_found",
				"The model `gpt-test` does not exist or you do not have access to it.")},
			wantStates: []string{store.StateFailed},
			wantRows:   []row{{store.OutcomeFailed, "permanent", "not_found", 404, "req-1", cfgModel, 0, 0}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t, testKey, tc.cfg, tc.runner, tc.steps...)
			h.run(t)
			switch {
			case tc.wantErr == nil && h.runErr != nil:
				t.Errorf("run error: %v", h.runErr)
			case tc.wantErr != nil && !errors.Is(h.runErr, tc.wantErr):
				t.Errorf("run error = %v, want it to wrap %v", h.runErr, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantStates, h.env.JobStates(t)); diff != "" {
				t.Errorf("job states (-want +got):\n%s", diff)
			}
			if got := h.env.Results(t); got != tc.wantResults {
				t.Errorf("results = %d, want %d", got, tc.wantResults)
			}
			got := h.rows(t)
			for i := range tc.wantRows {
				if tc.wantRows[i].Category == anyCategory && i < len(got) {
					tc.wantRows[i].Category = got[i].Category
				}
			}
			if diff := cmp.Diff(tc.wantRows, got); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			if n := len(h.fake.Requests()); n != len(tc.steps) {
				t.Errorf("%d requests, want %d", n, len(tc.steps))
			}
			for _, a := range h.env.Attempts(t) {
				for _, secret := range []string{"Acme", "4500012345", testKey, "SECRET-REFUSAL-TEXT"} {
					if strings.Contains(a.Message, secret) {
						t.Errorf("attempt %d message %q contains %q", a.No, a.Message, secret)
					}
				}
				if a.PromptHash == "" {
					t.Errorf("attempt %d has no prompt hash", a.No)
				}
			}
			if tc.check != nil {
				tc.check(t, h)
			}
		})
	}
}
