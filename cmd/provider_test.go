package cmd_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/invx/invx/cmd"
)

const canaryKey = "sk-canary-cli-4242"

func fakeOpenAI401(t *testing.T, calls *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("unexpected path %s", r.URL.Path)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-can*****4242.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A rejected key stops the whole run at once: exit 4, one line naming what
// to set, no job marked failed, and the key nowhere in output or database.
func TestAuthFailureExit4(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := fakeOpenAI401(t, &calls)
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	copyDir(t, filepath.Join("testdata", "input"), in)
	db := filepath.Join(tmp, "invx.db")
	var out, errOut strings.Builder
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Env: func(k string) string {
			if k == "OPENAI_API_KEY" {
				return canaryKey
			}
			return ""
		}}
	code := cmd.MainWith(t.Context(), f, []string{"--db", db, "run", "--quiet", "--provider", "openai", "--model", "gpt-x",
		"--base-url", srv.URL + "/v1", "--concurrency", "1", in})
	if code != cmd.ExitProvider {
		t.Fatalf("exit = %d, want %d; stderr:\n%s", code, cmd.ExitProvider, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "OPENAI_API_KEY") || !strings.HasPrefix(last, "invx: ") {
		t.Errorf("last stderr line %q should name OPENAI_API_KEY", last)
	}
	if calls.Load() != 1 {
		t.Errorf("requests = %d, want 1: the run must stop after the first 401", calls.Load())
	}
	for name, text := range map[string]string{"stdout": out.String(), "stderr": errOut.String()} {
		if strings.Contains(text, canaryKey) || strings.Contains(text, "4242") {
			t.Errorf("%s leaks the API key:\n%s", name, text)
		}
	}
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(db + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if strings.Contains(string(b), canaryKey) {
			t.Errorf("database file%s holds the API key", suffix)
		}
	}
	var show strings.Builder
	f2 := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &show, ErrOut: io.Discard}}
	if c := cmd.MainWith(t.Context(), f2, []string{"--db", db, "show", "--json", "a.txt"}); c != 0 {
		t.Fatalf("show exit %d", c)
	}
	if !strings.Contains(show.String(), `"state": "queued"`) {
		t.Errorf("job should be back in the queue:\n%s", show.String())
	}
}

func TestMissingKeyExit4(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	r := invx(t, false, "--db", filepath.Join(tmp, "invx.db"), "run", "--provider", "anthropic", "--model", "claude-x", tmp)
	if r.code != cmd.ExitProvider || !strings.Contains(r.stderr, "ANTHROPIC_API_KEY is not set") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("want one line, got:\n%s", r.stderr)
	}
}

func TestUnknownProviderIsUsage(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	r := invx(t, false, "--db", filepath.Join(tmp, "invx.db"), "run", "--provider", "gemini", tmp)
	if r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "unknown provider") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// Recording a run of the command provider and replaying it into a new
// database gives the same results with the command never run again.
func TestRecordThenReplay(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	copyDir(t, filepath.Join("testdata", "input"), in)
	// The "model" is the rules provider behind a shell script: invx itself.
	counter := filepath.Join(tmp, "calls")
	script := filepath.Join(tmp, "model.sh")
	answer := `{"schema_version":"invoice-summary-v1","title":"An invoice","bullets":["Read by a script."],` +
		`"invoice":{"supplier_name":null,"invoice_number":null,"currency":null,"total_minor":null,"due_date":null},"action_items":[]}`
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\necho x >> "+counter+"\necho '"+answer+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(tmp, "rec")
	r := invx(t, false, "--db", filepath.Join(tmp, "a.db"), "run", "--quiet", "--json", "--schema", "invoice-summary-v1", "--provider", "command",
		"--command", script, "--record", rec, in)
	// The script's answer states nothing: each result is committed as
	// incomplete, for review (exit 3), the same on record and replay.
	if r.code != cmd.ExitNeedsReview {
		t.Fatalf("record run: exit %d\n%s", r.code, r.stderr)
	}
	r = invx(t, false, "--db", filepath.Join(tmp, "b.db"), "run", "--quiet", "--json", "--schema", "invoice-summary-v1", "--provider", "replay",
		"--replay-dir", rec, in)
	if r.code != cmd.ExitNeedsReview || !strings.Contains(r.stdout, `"committed":2`) {
		t.Fatalf("replay run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(counter)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "x"); n != 2 {
		t.Errorf("the command ran %d times, want 2 (record only)", n)
	}
	// A folder without the job's recording fails that job, naming the key.
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	r = invx(t, false, "--db", filepath.Join(tmp, "c.db"), "run", "--provider", "replay", "--replay-dir", empty, in)
	if r.code != cmd.ExitNeedsReview || !strings.Contains(r.stderr, "failed             2") {
		t.Fatalf("replay without recordings: exit %d\n%s", r.code, r.stderr)
	}
}

// A provider mistake on the command line is a usage error (exit 2) whose
// Try line names the command it was made in, for every command that takes
// --provider; a missing --model no longer reads as configuration (exit 4).
func TestProviderUsageErrorsTryOwnCommand(t *testing.T) {
	t.Parallel()
	suite := filepath.Join("..", "fixtures", "invoices")
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
		wantTry string
	}{
		{"run unknown", []string{"run", "--provider", "foo", "IN"}, `--provider "foo": unknown provider`, "Try: invx run --provider rules DIR"},
		{"work unknown", []string{"work", "--provider", "foo"}, `--provider "foo": unknown provider`, "Try: invx work --provider rules"},
		{"eval unknown", []string{"eval", suite, "--provider", "foo"}, `--provider "foo": unknown provider`,
			"Try: invx eval fixtures/invoices --provider rules"},
		{"run no model", []string{"run", "--provider", "anthropic", "IN"}, "--provider anthropic needs --model",
			"Try: invx run --provider anthropic --model claude-sonnet-4-5 DIR"},
		{"eval no model", []string{"eval", suite, "--provider", "ollama"}, "--provider ollama needs --model",
			"Try: invx eval fixtures/invoices --provider ollama,model=llama3.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			in := filepath.Join(tmp, "in")
			copyDir(t, filepath.Join("testdata", "input"), in)
			var args []string
			if tc.args[0] != "eval" {
				args = []string{"--db", filepath.Join(tmp, "invx.db")}
			}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "IN", in))
			}
			r := invx(t, false, args...)
			if r.code != cmd.ExitUsage {
				t.Fatalf("exit = %d, want %d; stderr:\n%s", r.code, cmd.ExitUsage, r.stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if !strings.Contains(r.stderr, tc.wantErr) || lines[len(lines)-1] != tc.wantTry {
				t.Errorf("stderr:\n%s\nwant %q and a last line %q", r.stderr, tc.wantErr, tc.wantTry)
			}
		})
	}
}
