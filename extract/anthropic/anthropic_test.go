package anthropic_test

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/anthropic"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

// leaks are strings that must never reach an attempt's message or an error:
// document text, fake bodies, the refusal explanation.
var leaks = []string{"Acme Tools", "AT-2026-0042", "4500012345", "secret-page-content", "REFUSAL-EXPLANATION",
	"PROSE-ANSWER", testKey}

var start = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

// attempt is an expected attempt row; zero fields read as "" or 0.
func attempt(no int, outcome, class, category string, status, reqNo int, model string, in, out int64) extracttest.Attempt {
	a := extracttest.Attempt{No: no, Outcome: outcome, Class: class, Category: category, HTTPStatus: status,
		Model: model, InputTokens: in, OutputTokens: out}
	if reqNo > 0 {
		a.RequestID = requestID(reqNo)
	}
	return a
}

// succeeded is the attempt row of ok() answered as request reqNo.
func succeeded(no, reqNo int) extracttest.Attempt {
	return attempt(no, store.OutcomeSucceeded, "", "", 200, reqNo, answerModel, 812, 143)
}

// retried is the attempt row of a transient failure.
func retried(category string, status, reqNo int) extracttest.Attempt {
	return attempt(1, store.OutcomeRetry, string(extract.ClassTransient), category, status, reqNo, testModel, 0, 0)
}

var ignored = cmpopts.IgnoreFields(extracttest.Attempt{}, "NextDelayMS", "PromptHash", "Message")

func TestScenarios(t *testing.T) {
	t.Parallel()
	unknownField := strings.Replace(extracttest.ValidAnswer, `"title":`, `"notes":"check the PO","title":`, 1)
	noRepair := func(r *extract.Runner) { r.Repair = 0 }

	tests := []struct {
		name   string
		mode   string
		steps  []step
		cfg    func(*anthropic.Config)
		runner func(*extract.Runner)
		// docs is how many documents the run gets (default 1).
		docs       int
		wantErr    error
		wantStates []string
		want       []extracttest.Attempt
		results    int
		check      func(t *testing.T, f *fake, env *extracttest.Env, clock *extracttest.FakeClock)
	}{
		{
			name:       "valid json_schema answer",
			steps:      []step{ok(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want:       []extracttest.Attempt{succeeded(1, 1)},
			results:    1,
		},
		{
			name:       "valid tool_use block among thinking, text and another tool",
			mode:       anthropic.ModeTool,
			steps:      []step{toolOK(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeSucceeded, "", "", 200, 1, answerModel, 1020, 210)},
			results:    1,
		},
		{
			name: "429 rate_limit_error with retry-after 2 then success",
			steps: []step{
				apiError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit",
					map[string]string{"retry-after": "2", "anthropic-ratelimit-tokens-remaining": "0"}, nil),
				ok(extracttest.ValidAnswer),
			},
			runner:     func(r *extract.Runner) { r.MaxBackoff = time.Minute },
			wantStates: []string{store.StateSucceeded},
			want: []extracttest.Attempt{
				attempt(1, store.OutcomeRetry, string(extract.ClassRateLimited), "rate_limit_error", 429, 1, testModel, 0, 0),
				succeeded(2, 2),
			},
			results: 1,
			check: func(t *testing.T, _ *fake, env *extracttest.Env, clock *extracttest.FakeClock) {
				if d := env.Attempts(t)[0].NextDelayMS; d < 2000 {
					t.Errorf("next_delay_ms = %d, want >= 2000 (retry-after: 2)", d)
				}
				if w := clock.Waited(); w < 2*time.Second {
					t.Errorf("the runner waited %v, want >= 2s", w)
				}
			},
		},
		{
			name:       "500 api_error then success",
			steps:      []step{apiError(500, "api_error", "Internal server error", nil, nil), ok(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want:       []extracttest.Attempt{retried("api_error", 500, 1), succeeded(2, 2)},
			results:    1,
		},
		{
			name:       "500 HTML page then success",
			steps:      []step{htmlPage(500), ok(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want:       []extracttest.Attempt{retried("", 500, 1), succeeded(2, 2)},
			results:    1,
		},
		{
			name:       "529 overloaded_error then success",
			steps:      []step{apiError(529, "overloaded_error", "Overloaded", nil, nil), ok(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want:       []extracttest.Attempt{retried("overloaded_error", 529, 1), succeeded(2, 2)},
			results:    1,
		},
		{
			name:       "connection cut mid-body then success",
			steps:      []step{rawCut(true), ok(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want:       []extracttest.Attempt{retried("truncated_body", 200, 1), succeeded(2, 2)},
			results:    1,
		},
		{
			name:       "Content-Length longer than the body then success",
			steps:      []step{rawCut(false), ok(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want:       []extracttest.Attempt{retried("truncated_body", 200, 1), succeeded(2, 2)},
			results:    1,
		},
		{
			name:       "stall past the request timeout then success",
			steps:      []step{stall(), ok(extracttest.ValidAnswer)},
			cfg:        func(c *anthropic.Config) { c.Timeout = 3 * time.Second }, // not tiny: the retry must answer within it on a loaded machine
			wantStates: []string{store.StateSucceeded},
			want:       []extracttest.Attempt{retried("timeout", 0, 0), succeeded(2, 2)},
			results:    1,
		},
		{
			name:       "200 with a non-JSON body then success",
			steps:      []step{htmlPage(200), ok(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want:       []extracttest.Attempt{retried("bad_response", 200, 1), succeeded(2, 2)},
			results:    1,
		},
		{
			name:       "200 without content then success",
			steps:      []step{message("end_turn", []map[string]any{}, 812, 0, nil), ok(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want: []extracttest.Attempt{
				attempt(1, store.OutcomeRetry, string(extract.ClassTransient), "empty", 200, 1, answerModel, 812, 0),
				succeeded(2, 2),
			},
			results: 1,
		},
		{
			name:       "unknown field then repaired answer",
			steps:      []step{ok(unknownField), ok(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want: []extracttest.Attempt{
				attempt(1, store.OutcomeRejected, string(extract.ClassRejected), "unknown_field", 200, 1, answerModel, 812, 143),
				succeeded(2, 2),
			},
			results: 1,
			check: func(t *testing.T, f *fake, _ *extracttest.Env, _ *extracttest.FakeClock) {
				reqs := f.requests()
				if n := len(reqs[0].userTexts()); n != 1 {
					t.Errorf("first request has %d user text blocks, want 1", n)
				}
				texts := reqs[1].userTexts()
				if len(texts) != 2 {
					t.Fatalf("repair request has %d user text blocks, want the document and the feedback", len(texts))
				}
				fb := texts[1]
				const prefix = "Your previous answer was rejected by validation: unknown_field: "
				if !strings.HasPrefix(fb, prefix) || !strings.HasSuffix(fb, ". Return a corrected JSON document only.") {
					t.Errorf("feedback = %q", fb)
				}
				if !strings.Contains(fb, "notes") || strings.Contains(fb, "Acme") {
					t.Errorf("feedback should name the key and carry no document text: %q", fb)
				}
			},
		},
		{
			name: "refusal with stop_details",
			steps: []step{message("refusal", []map[string]any{text("I can't help with REFUSAL-EXPLANATION.")}, 812, 12,
				map[string]any{"stop_details": map[string]any{"type": "refusal", "category": "cyber",
					"explanation": "REFUSAL-EXPLANATION: this request looks like malware development"}})},
			runner:     noRepair,
			wantStates: []string{store.StateRejected},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeRejected, string(extract.ClassRejected), "refusal", 200, 1, answerModel, 812, 12)},
			check: func(t *testing.T, _ *fake, env *extracttest.Env, _ *extracttest.FakeClock) {
				if m := env.Attempts(t)[0].Message; !strings.Contains(m, "refused") || !strings.Contains(m, "cyber") {
					t.Errorf("message = %q, want a refusal with its policy category", m)
				}
			},
		},
		{
			name:       "max_tokens truncation",
			steps:      []step{message("max_tokens", []map[string]any{text(extracttest.ValidAnswer[:80])}, 812, 4096, nil)},
			runner:     noRepair,
			wantStates: []string{store.StateRejected},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeRejected, string(extract.ClassRejected), "truncated", 200, 1, answerModel, 812, 4096)},
		},
		{
			name:       "prose instead of JSON",
			steps:      []step{ok("PROSE-ANSWER: Sure! The invoice is from a tool supplier.")},
			runner:     noRepair,
			wantStates: []string{store.StateRejected},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeRejected, string(extract.ClassRejected), "decode", 200, 1, answerModel, 812, 143)},
		},
		{
			name:       "tool mode answered with only a text block",
			mode:       anthropic.ModeTool,
			steps:      []step{message("end_turn", []map[string]any{text("PROSE-ANSWER: " + extracttest.ValidAnswer)}, 900, 150, nil)},
			runner:     noRepair,
			wantStates: []string{store.StateRejected},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeRejected, string(extract.ClassRejected), "decode", 200, 1, answerModel, 900, 150)},
			check: func(t *testing.T, _ *fake, env *extracttest.Env, _ *extracttest.FakeClock) {
				if m := env.Attempts(t)[0].Message; !strings.Contains(m, "no emit_invoice_summary tool call in the answer") {
					t.Errorf("message = %q", m)
				}
			},
		},
		{
			name: "tool mode calling another tool",
			mode: anthropic.ModeTool,
			steps: []step{message("tool_use", []map[string]any{toolUse("emit_invoice", extracttest.ValidAnswer)}, 900, 150, nil),
				toolOK(extracttest.ValidAnswer)},
			wantStates: []string{store.StateSucceeded},
			want: []extracttest.Attempt{
				attempt(1, store.OutcomeRejected, string(extract.ClassRejected), "decode", 200, 1, answerModel, 900, 150),
				attempt(2, store.OutcomeSucceeded, "", "", 200, 2, answerModel, 1020, 210),
			},
			results: 1,
		},
		{
			name: "spend limit reached",
			steps: []step{apiError(429, "rate_limit_error", "You have reached your API usage limits.", nil,
				map[string]any{"error_code": "enforced_spend_limit_reached"})},
			docs:       2,
			wantErr:    extract.ErrQuota,
			wantStates: []string{store.StateFailed, store.StateQueued},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeFailed, string(extract.ClassPermanent), extract.CategoryQuota, 429, 1, testModel, 0, 0)},
		},
		{
			name:       "402 billing_error",
			steps:      []step{apiError(402, "billing_error", "Your credit balance is too low.", nil, nil)},
			docs:       2,
			wantErr:    extract.ErrQuota,
			wantStates: []string{store.StateFailed, store.StateQueued},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeFailed, string(extract.ClassPermanent), extract.CategoryQuota, 402, 1, testModel, 0, 0)},
		},
		{
			name:       "401 authentication_error",
			steps:      []step{apiError(401, "authentication_error", "invalid x-api-key", nil, nil)},
			docs:       2,
			wantErr:    extract.ErrAuth,
			wantStates: []string{store.StateQueued, store.StateQueued},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeReleased, string(extract.ClassAuth), "authentication_error", 401, 1, testModel, 0, 0)},
		},
		{
			name:       "404 model not_found_error",
			steps:      []step{apiError(404, "not_found_error", "model: "+testModel, nil, nil)},
			wantStates: []string{store.StateFailed},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeFailed, string(extract.ClassPermanent), "not_found_error", 404, 1, testModel, 0, 0)},
		},
		{
			name:       "prompt is too long",
			steps:      []step{apiError(400, "invalid_request_error", "prompt is too long: 212345 tokens > 200000 maximum", nil, nil)},
			wantStates: []string{store.StateFailed},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeFailed, string(extract.ClassPermanent), anthropic.CategoryContextLength, 400, 1, testModel, 0, 0)},
		},
		{
			name:       "413 request_too_large",
			steps:      []step{apiError(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.", nil, nil)},
			wantStates: []string{store.StateFailed},
			want:       []extracttest.Attempt{attempt(1, store.OutcomeFailed, string(extract.ClassPermanent), anthropic.CategoryContextLength, 413, 1, testModel, 0, 0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.mode, tt.steps...)
			var muts []func(*anthropic.Config)
			if tt.cfg != nil {
				muts = append(muts, tt.cfg)
			}
			p := f.provider(t, muts...)
			env := extracttest.New(t)
			r := env.Runner(p)
			clock := extracttest.NewFakeClock(start)
			clock.Use(r)
			if tt.runner != nil {
				tt.runner(r)
			}
			docs := []extract.Found{extracttest.Doc("a.txt", extracttest.Invoice)}
			if tt.docs == 2 {
				docs = append(docs, extracttest.Doc("b.txt", extracttest.Invoice+"Second copy for the archive\n"))
			}
			_, err := env.Run(t, r, docs...)
			if tt.wantErr == nil && err != nil {
				t.Errorf("run error: %v", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("run error = %v, want one wrapping %v", err, tt.wantErr)
			}
			if err != nil {
				assertNoLeak(t, "run error", err.Error())
			}
			if diff := cmp.Diff(tt.wantStates, env.JobStates(t)); diff != "" {
				t.Errorf("job states (-want +got):\n%s", diff)
			}
			got := env.Attempts(t)
			if diff := cmp.Diff(tt.want, got, ignored); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			for _, a := range got {
				assertNoLeak(t, "attempt message", a.Message)
			}
			if n := env.Results(t); n != tt.results {
				t.Errorf("results = %d, want %d", n, tt.results)
			}
			if n := len(f.requests()); n != len(tt.want) {
				t.Errorf("requests = %d, want one per attempt (%d): the SDK must not retry", n, len(tt.want))
			}
			if tt.check != nil {
				tt.check(t, f, env, clock)
			}
		})
	}
}

func assertNoLeak(t *testing.T, what, s string) {
	t.Helper()
	for _, l := range leaks {
		if strings.Contains(s, l) {
			t.Errorf("%s contains %q: %q", what, l, s)
		}
	}
}

// TestCanaryKey checks the API key reaches the wire and nothing else: no
// attempt row, no error and no byte of the database.
func TestCanaryKey(t *testing.T) {
	t.Parallel()
	const canary = "sk-ant-canary-123"
	f := newFake(t, "",
		apiError(500, "api_error", "Internal server error", nil, nil),
		ok(extracttest.ValidAnswer),
		apiError(401, "authentication_error", "invalid x-api-key", nil, nil),
	)
	f.key = canary
	p := f.provider(t)
	env := extracttest.New(t)

	var errs []string
	for _, doc := range []extract.Found{
		extracttest.Doc("a.txt", extracttest.Invoice),
		extracttest.Doc("b.txt", extracttest.Invoice+"Second copy\n"),
	} {
		r := env.Runner(p)
		extracttest.NewFakeClock(start).Use(r)
		if _, err := env.Run(t, r, doc); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "authentication_error") {
		t.Errorf("run errors = %q, want one authentication failure", errs)
	}
	for _, e := range errs {
		if strings.Contains(e, canary) {
			t.Errorf("run error contains the key: %q", e)
		}
	}
	rows, err := sqlitetest.ReadOnly(t, env.Store.Path()).Query(`SELECT * FROM attempts`)
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	n := 0
	for rows.Next() {
		n++
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			var s string
			switch v := v.(type) {
			case string:
				s = v
			case []byte:
				s = string(v)
			}
			if strings.Contains(s, canary) {
				t.Errorf("attempts.%s contains the key", cols[i])
			}
		}
	}
	rows.Close()
	if n != 3 {
		t.Errorf("attempt rows = %d, want 3", n)
	}
	if err := env.Store.Close(); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{env.Path, env.Path + "-wal"} {
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(canary)) {
			t.Errorf("%s contains the key", path)
		}
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	valid := anthropic.Config{APIKey: "k", Model: testModel}
	tests := []struct {
		name      string
		mut       func(*anthropic.Config)
		wantClass extract.Class
		wantMsg   string
	}{
		{"no key", func(c *anthropic.Config) { c.APIKey = "" }, extract.ClassAuth, "ANTHROPIC_API_KEY is not set"},
		{"no model", func(c *anthropic.Config) { c.Model = "" }, extract.ClassPermanent, "--model is required for the anthropic provider"},
		{"bad mode", func(c *anthropic.Config) { c.Mode = "xml" }, extract.ClassPermanent, `anthropic mode "xml" is not json_schema or tool`},
		{"bad base URL", func(c *anthropic.Config) { c.BaseURL = "api.anthropic.com" }, extract.ClassPermanent, `anthropic base URL "api.anthropic.com" is not an http(s) URL`},
		{"valid", func(*anthropic.Config) {}, "", ""},
		{"tool mode", func(c *anthropic.Config) { c.Mode = anthropic.ModeTool }, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := valid
			tt.mut(&cfg)
			p, err := anthropic.New(cfg)
			if tt.wantClass == "" {
				if err != nil || p == nil || p.Name() != "anthropic" {
					t.Fatalf("New = %v, %v", p, err)
				}
				return
			}
			var pe *extract.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("New error = %v, want a *extract.ProviderError", err)
			}
			if pe.Class != tt.wantClass || pe.Msg != tt.wantMsg {
				t.Errorf("New error = %+v, want class %s, message %q", pe, tt.wantClass, tt.wantMsg)
			}
		})
	}
}

// TestEnvironmentIgnored checks that ANTHROPIC_* variables cannot change
// the key, the headers or the destination invx configured. It sets the
// environment, so it cannot run in parallel.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "sk-ant-token-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "x-injected: yes")
	var sawInjected atomic.Bool
	f := newFake(t, "", func(w http.ResponseWriter, r *http.Request, n int) {
		sawInjected.Store(r.Header.Get("x-injected") != "")
		ok(extracttest.ValidAnswer)(w, r, n)
	})
	env := extracttest.New(t)
	r := env.Runner(f.provider(t))
	extracttest.NewFakeClock(start).Use(r)
	if _, err := env.Run(t, r, extracttest.Doc("a.txt", extracttest.Invoice)); err != nil {
		t.Fatal(err)
	}
	if sawInjected.Load() {
		t.Errorf("ANTHROPIC_CUSTOM_HEADERS reached the request")
	}
	if n := env.Results(t); n != 1 {
		t.Errorf("results = %d, want 1", n)
	}
}
