package cmd_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/internal/zsttest"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

// Canaries: what an invoice carries that must never reach telemetry, the
// API key, and markers in everything a provider answers.
const (
	leakIBAN   = "DE44 5001 0517 5407 3249 31"
	leakName   = "Mariele Quenstedt-Oyelaran"
	leakStreet = "Zwetschgenweg 17b"
	leakKey    = "sk-canary-leak-9d1e7f"
	// leakModel marks model output: titles, bullets, unknown fields,
	// evidence, refusals, prose.
	leakModel = "MODELCANARY"
	// leakError marks provider error bodies and a program's stderr.
	leakError = "ERRCANARY"
)

// leakPatterns are searched for in every piece of telemetry. They include
// fragments, so a reformatted canary is caught too.
var leakPatterns = []string{
	leakIBAN, "DE44500105175407324931", "5407 3249", leakName, "Quenstedt", leakStreet, "Zwetschgenweg",
	"04229 Leipzig", "Quillfeather", "QF-2026-7781", leakKey, "canary-leak", leakModel, leakError,
}

// leakDoc is an invoice with the canaries and a case marker that tells the
// fakes how to answer.
func leakDoc(marker string) string {
	return "Quillfeather Canary Instruments GmbH\n" + leakStreet + ", 04229 Leipzig\nContact: " + leakName + "\n" +
		"Invoice No.: QF-2026-7781\nInvoice date: 2026-11-30\nPO Number: 4500012345\nPlease pay to IBAN: " + leakIBAN + "\n" +
		"Total due: EUR 1,234.50\nDue date: 2026-12-31\nRef: " + marker + "\n"
}

var leakCases = []string{"CASE-VALID", "CASE-UNKNOWN", "CASE-EVIDENCE", "CASE-ERROR", "CASE-REFUSAL"}

// leakAnswer is the model's answer for a case: valid, with an unknown
// field holding a canary, or with evidence that is not in the document.
func leakAnswer(marker string) string {
	a := map[string]any{
		"schema_version": "invoice-summary-v1",
		"title":          "Invoice QF-2026-7781 " + leakModel + "-title",
		"bullets":        []string{"Quillfeather Canary Instruments GmbH invoices EUR 1234.50 " + leakModel + "-bullet."},
		"invoice": map[string]any{"supplier_name": "Quillfeather Canary Instruments GmbH", "invoice_number": "QF-2026-7781",
			"currency": "EUR", "total_minor": 123450, "due_date": "2026-12-31"},
		"action_items": []any{map[string]any{"id": "a1", "kind": "verify_purchase_order", "evidence": "PO Number: 4500012345"}},
	}
	switch marker {
	case "CASE-UNKNOWN":
		a["iban_note"] = leakIBAN + " " + leakModel + "-unknown"
	case "CASE-EVIDENCE":
		a["action_items"] = []any{map[string]any{"id": "a1", "kind": "verify_purchase_order",
			"evidence": "Pay " + leakName + " at " + leakIBAN + " " + leakModel + "-evidence"}}
	}
	b, _ := json.Marshal(a)
	return string(b)
}

const leakErrorMsg = "cannot process the text near '" + leakIBAN + "' for " + leakName + " " + leakError

func caseOf(body []byte) string {
	for _, c := range leakCases {
		if strings.Contains(string(body), c) {
			return c
		}
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// openAIFake is an OpenAI-compatible Chat Completions server answering by
// the document's case marker; stop, if not 0, is the status every request
// gets instead (401, 429), with a body that echoes canaries.
func openAIFake(t *testing.T, stop int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+leakKey {
			t.Errorf("openai fake: %s %s with the wrong key", r.Method, r.URL.Path)
		}
		apiErr := func(status int, typ, code string) {
			writeJSON(w, status, map[string]any{"error": map[string]any{"message": leakErrorMsg + " key " + leakKey,
				"type": typ, "code": code, "param": nil}})
		}
		switch stop {
		case http.StatusUnauthorized:
			apiErr(stop, "invalid_request_error", "invalid_api_key")
			return
		case http.StatusTooManyRequests:
			apiErr(stop, "insufficient_quota", "insufficient_quota")
			return
		}
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
		switch c := caseOf(body); c {
		case "CASE-ERROR":
			apiErr(http.StatusBadRequest, "invalid_request_error", "invalid_value")
			return
		case "CASE-REFUSAL":
			msg["refusal"] = "I will not summarise the invoice of " + leakName + " " + leakModel + "-refusal"
		default:
			msg["content"] = leakAnswer(c)
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": "gpt-test-2026",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 812, "completion_tokens": 143, "total_tokens": 955},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// anthropicFake is the Messages API counterpart of openAIFake.
func anthropicFake(t *testing.T, stop int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/messages" {
			t.Errorf("anthropic fake: %s %s", r.Method, r.URL.Path)
		}
		apiErr := func(status int, typ string) {
			writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ,
				"message": leakErrorMsg + " key " + leakKey}, "request_id": "req_1"})
		}
		if stop != 0 {
			apiErr(stop, "authentication_error")
			return
		}
		stopReason, text := "end_turn", ""
		switch c := caseOf(body); c {
		case "CASE-ERROR":
			apiErr(http.StatusBadRequest, "invalid_request_error")
			return
		case "CASE-REFUSAL":
			stopReason, text = "refusal", "I will not summarise the invoice of "+leakName+" "+leakModel+"-refusal"
		default:
			text = leakAnswer(c)
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test-2026",
			"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": stopReason,
			"stop_sequence": nil, "stop_details": nil,
			"usage": map[string]any{"input_tokens": 812, "output_tokens": 143},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// commandFake writes a program for --provider command that answers by the
// case marker: JSON on stdout, an error on stderr with exit 1, or prose.
func commandFake(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("#!/bin/sh\ndoc=$(cat)\ncase \"$doc\" in\n")
	for _, c := range []string{"CASE-VALID", "CASE-UNKNOWN", "CASE-EVIDENCE"} {
		fmt.Fprintf(&b, "*%s*) cat <<'JSON'\n%s\nJSON\n;;\n", c, leakAnswer(c))
	}
	fmt.Fprintf(&b, "*CASE-ERROR*) echo %q >&2; exit 1;;\n", leakErrorMsg)
	fmt.Fprintf(&b, "*) echo %q;;\nesac\n", "I will not summarise the invoice of "+leakName+" "+leakModel+"-prose")
	path := filepath.Join(dir, "fake-extractor.sh")
	if err := os.WriteFile(path, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// telemetryCapture is everything a run emitted.
type telemetryCapture struct {
	stdout, stderr, logFile, metrics string
	spans                            tracetest.SpanStubs
}

// pieces lists every captured string with where it came from.
func (c *telemetryCapture) pieces() map[string]string {
	out := map[string]string{"stdout": c.stdout, "stderr": c.stderr, "log file": c.logFile, "metrics file": c.metrics}
	for i, s := range c.spans {
		var b strings.Builder
		fmt.Fprintf(&b, "name=%s status=%s/%s", s.Name, s.Status.Code, s.Status.Description)
		for _, kv := range s.Attributes {
			fmt.Fprintf(&b, " %s=%s", kv.Key, kv.Value.Emit())
		}
		for _, ev := range s.Events {
			fmt.Fprintf(&b, " event=%s", ev.Name)
			for _, kv := range ev.Attributes {
				fmt.Fprintf(&b, " %s=%s", kv.Key, kv.Value.Emit())
			}
		}
		if s.Resource != nil {
			for _, kv := range s.Resource.Attributes() {
				fmt.Fprintf(&b, " resource.%s=%s", kv.Key, kv.Value.Emit())
			}
		}
		out[fmt.Sprintf("span %d (%s)", i, s.Name)] = b.String()
	}
	return out
}

// leaks reports every leak pattern found in text.
func leaks(text string) []string {
	var found []string
	for _, p := range leakPatterns {
		if strings.Contains(text, p) {
			found = append(found, p)
		}
	}
	return found
}

// leakRun runs invx with a fresh database over the canary documents and
// captures its telemetry: logs at debug in format (json: on stderr; text:
// in --log-file), the --metrics-file, the spans and stdout/stderr.
func leakRun(t *testing.T, format string, env map[string]string, args ...string) (*telemetryCapture, int, string) {
	t.Helper()
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, c := range leakCases {
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("inv-%d.txt", i+1)), []byte(leakDoc(c)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(tmp, "invx.db")
	logPath, metricsPath := filepath.Join(tmp, "invx.log"), filepath.Join(tmp, "invx.prom")
	global := []string{"--db", db, "--log-level", "debug", "--log-format", format}
	if format == "text" {
		global = append(global, "--log-file", logPath)
	}
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	var out, errOut strings.Builder
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Env: func(k string) string { return env[k] }, TracerProvider: tp}
	full := append(append(global, "run", "--metrics-file", metricsPath, "--concurrency", "1"), args...)
	code := cmd.MainWith(t.Context(), f, append(full, in))
	c := &telemetryCapture{stdout: out.String(), stderr: errOut.String(), spans: exp.GetSpans()}
	if b, err := os.ReadFile(logPath); err == nil {
		c.logFile = string(b)
		if fi, _ := os.Stat(logPath); fi.Mode().Perm() != 0o600 {
			t.Errorf("--log-file mode %v, want 0600", fi.Mode().Perm())
		}
	} else if format == "text" {
		t.Errorf("--log-file not written: %v", err)
	}
	if b, err := os.ReadFile(metricsPath); err == nil {
		c.metrics = string(b)
	} else {
		t.Errorf("--metrics-file not written: %v", err)
	}
	return c, code, db
}

// jobStates counts the database's jobs by state.
func jobStates(t *testing.T, db string) map[string]int {
	t.Helper()
	st, err := sqlite.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := sqlitetest.ReadOnly(t, st.Path()).Query(`SELECT state, count(*) FROM jobs GROUP BY state`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

// dbText is the documents' text and the attempts' messages and outputs, as
// the database keeps them for review.
func dbText(t *testing.T, db string) string {
	t.Helper()
	st, err := sqlite.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var attempts string
	text := strings.Join(zsttest.Texts(t, sqlitetest.ReadOnly(t, st.Path()), `SELECT coalesce(source_text, ''), (SELECT x.zst FROM job_texts x WHERE x.job_id = jobs.id) FROM jobs ORDER BY id`), " ")
	if err := sqlitetest.ReadOnly(t, st.Path()).QueryRow(`SELECT coalesce(group_concat(message || ' ' || coalesce(CAST(output AS TEXT), ''), ' '), '')
		FROM attempts`).Scan(&attempts); err != nil {
		t.Fatal(err)
	}
	return text + "\n" + attempts
}

// checkLogFields parses JSON log lines and checks that stage events carry
// the fixed fields, and that the stages want were all logged.
func checkLogFields(t *testing.T, logs string, want []string) {
	t.Helper()
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Errorf("log line is not JSON: %v: %s", err, line)
			continue
		}
		stage, _ := ev["stage"].(string)
		if stage == "" {
			continue
		}
		seen[stage] = true
		for _, k := range []string{"tenant", "run_id"} {
			if ev[k] == nil {
				t.Errorf("%s event without %s: %s", stage, k, line)
			}
		}
		switch stage {
		case "claimed", "provider_call", "attempt", "committed", "rejected", "validated":
			for _, k := range []string{"job_key", "attempt"} {
				if ev[k] == nil {
					t.Errorf("%s event without %s: %s", stage, k, line)
				}
			}
		}
		switch stage {
		case "provider_call", "attempt":
			for _, k := range []string{"provider", "model", "outcome", "duration_ms", "error_class", "input_tokens", "output_tokens"} {
				if _, ok := ev[k]; !ok {
					t.Errorf("%s event without %s: %s", stage, k, line)
				}
			}
		}
	}
	for _, s := range want {
		if !seen[s] {
			t.Errorf("no %q event in the logs", s)
		}
	}
}

var traceLine = regexp.MustCompile(`(?m)^trace ([0-9a-f]{32})$`)

// TestNoLeak runs the canary invoices through every kind of provider, with
// answers that succeed, are rejected, fail, refuse and stop the run, and
// checks that no log line, metric, span or message contains a canary, the
// API key or model output.
func TestNoLeak(t *testing.T) {
	t.Parallel()
	keys := map[string]string{"OPENAI_API_KEY": leakKey, "ANTHROPIC_API_KEY": leakKey}
	type tc struct {
		name       string
		args       func(t *testing.T) []string
		wantCode   int
		wantStates map[string]int
	}
	llm := map[string]int{"succeeded": 1, "rejected": 3, "failed": 1}
	cases := []tc{
		{"openai", func(t *testing.T) []string {
			return []string{"--schema", "invoice-summary-v1", "--provider", "openai", "--model", "gpt-test", "--base-url", openAIFake(t, 0).URL + "/v1"}
		}, cmd.ExitNeedsReview, llm},
		{"openai 401", func(t *testing.T) []string {
			return []string{"--schema", "invoice-summary-v1", "--provider", "openai", "--model", "gpt-test", "--base-url", openAIFake(t, 401).URL + "/v1"}
		}, cmd.ExitProvider, map[string]int{"queued": 5}},
		{"openai quota", func(t *testing.T) []string {
			return []string{"--schema", "invoice-summary-v1", "--provider", "openai", "--model", "gpt-test", "--base-url", openAIFake(t, 429).URL + "/v1"}
		}, cmd.ExitProvider, map[string]int{"failed": 1, "queued": 4}},
		{"anthropic", func(t *testing.T) []string {
			return []string{"--schema", "invoice-summary-v1", "--provider", "anthropic", "--model", "claude-test", "--base-url", anthropicFake(t, 0).URL}
		}, cmd.ExitNeedsReview, llm},
		{"anthropic 401", func(t *testing.T) []string {
			return []string{"--schema", "invoice-summary-v1", "--provider", "anthropic", "--model", "claude-test", "--base-url", anthropicFake(t, 401).URL}
		}, cmd.ExitProvider, map[string]int{"queued": 5}},
		{"command", func(t *testing.T) []string {
			return []string{"--schema", "invoice-summary-v1", "--provider", "command", "--command", commandFake(t, t.TempDir())}
		}, cmd.ExitNeedsReview, llm},
		// The five documents are one supplier's invoice under one number:
		// committed, and held as possible duplicates of each other.
		{"rules", func(t *testing.T) []string { return []string{"--provider", "rules"} }, cmd.ExitNeedsReview, map[string]int{"succeeded": 5}},
	}
	for _, c := range cases {
		for _, format := range []string{"json", "text"} {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				got, code, db := leakRun(t, format, keys, c.args(t)...)
				if code != c.wantCode {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, c.wantCode, got.stderr)
				}
				if states := jobStates(t, db); fmt.Sprint(states) != fmt.Sprint(c.wantStates) {
					t.Errorf("job states %v, want %v", states, c.wantStates)
				}
				for where, text := range got.pieces() {
					if found := leaks(text); len(found) > 0 {
						t.Errorf("%s leaks %q:\n%s", where, found, text)
					}
				}

				// The scan is real: the canaries did travel through the
				// system, into the database kept for review.
				inDB := leaks(dbText(t, db))
				for _, want := range []string{leakIBAN, leakName, leakStreet} {
					if !strings.Contains(strings.Join(inDB, "|"), want) {
						t.Errorf("canary %q not in the database: the scan proves nothing", want)
					}
				}
				if c.wantStates["rejected"] > 0 && !strings.Contains(strings.Join(inDB, "|"), leakModel) {
					t.Error("model output canary not in the rejected attempts: the scan proves nothing")
				}
				if c.name == "openai" && !strings.Contains(strings.Join(inDB, "|"), leakError) {
					t.Error("error body canary not in the attempt messages: the scan proves nothing")
				}

				// The telemetry is there: stage logs, spans, the trace id in
				// the summary, metrics.
				logs := got.stderr
				if format == "text" {
					logs = got.logFile
					for _, s := range []string{"stage=discovered", "stage=claimed", "stage=provider_call"} {
						if !strings.Contains(logs, s) {
							t.Errorf("no %s in the text logs", s)
						}
					}
				} else if c.wantCode != cmd.ExitProvider {
					stages := []string{"discovered", "enqueued", "claimed", "provider_call", "validated", "attempt", "committed"}
					if c.wantStates["rejected"] > 0 {
						stages = append(stages, "rejected")
					}
					checkLogFields(t, logs, stages)
				}
				names := map[string]int{}
				var runTrace string
				for _, s := range got.spans {
					names[s.Name]++
					if s.Name == "invx.run" {
						runTrace = s.SpanContext.TraceID().String()
					}
				}
				if names["invx.run"] != 1 || names["invx.attempt"] == 0 || names["invx.provider_call"] == 0 {
					t.Errorf("spans %v, want one invx.run and attempts with provider calls", names)
				}
				if m := traceLine.FindStringSubmatch(got.stderr); m == nil || m[1] != runTrace {
					t.Errorf("summary trace line %v, want the run span's trace %s", m, runTrace)
				}
				if !strings.Contains(got.metrics, "invx_attempts_total{") {
					t.Errorf("metrics file without attempts:\n%s", got.metrics)
				}
			})
		}
	}
}
