package cmd_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/internal/zsttest"
)

// echoKey is an API key a model echoes back; echoHeader a webhook token.
const (
	echoKey    = "sk-proj-EchoEcho0123456789abcdef"
	echoHeader = "whsec-Token-77aa88bb99cc"
)

// chatServer is an OpenAI-compatible Chat Completions server. answer gets
// the messages' text (a repair re-ask included) and returns the assistant's content (a JSON document
// as a string) or, with a status other than 200, an API error message.
func chatServer(t *testing.T, answer func(messages string) (status int, content string)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) < 2 {
			t.Errorf("chat server: unexpected request %s %s", r.Method, r.URL.Path)
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content + "\n")
		}
		status, content := answer(all.String())
		if status != http.StatusOK {
			writeJSON(w, status, map[string]any{"error": map[string]any{"message": content,
				"type": "invalid_request_error", "code": "invalid_value", "param": nil}})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": "gpt-test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content, "refusal": nil}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// writeInputs writes name -> text files into a new folder.
func writeInputs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "in")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runEnv runs invx in-process with env as its whole environment.
func runEnv(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Env: func(k string) string { return env[k] }}
	code := cmd.MainWith(context.Background(), f, args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// openSQLite opens a database file read-only for assertions.
func openSQLite(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// column returns one text column of every row q selects.
func column(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func echoAnswer(extra map[string]any) string {
	doc := map[string]any{
		"schema_version": "invoice-summary-v1",
		"title":          "Invoice with key " + echoKey,
		"bullets":        []string{"The key is " + echoKey + "."},
		"invoice": map[string]any{"supplier_name": "Echo GmbH", "invoice_number": "E-1", "currency": nil,
			"total_minor": nil, "due_date": nil},
		"action_items": []any{},
	}
	for k, v := range extra {
		doc[k] = v
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// A model that echoes the API key inside its answer: the key reaches no
// attempt row, result, record file, log line or printed output; each is
// scrubbed to [REDACTED]. The recording is the owner's only.
func TestEchoedAPIKeyIsScrubbed(t *testing.T) {
	t.Parallel()
	srv := chatServer(t, func(user string) (int, string) {
		switch {
		case strings.Contains(user, "CASE-REJECT"):
			// An unknown field: rejected, so the answer is kept on the
			// attempt row for review.
			return http.StatusOK, echoAnswer(map[string]any{"note": "sent with " + echoKey})
		case strings.Contains(user, "CASE-ERROR"):
			return http.StatusBadRequest, "bad request from key " + echoKey
		}
		return http.StatusOK, echoAnswer(nil)
	})
	in := writeInputs(t, map[string]string{
		"valid.txt":  "Echo GmbH\nInvoice E-1\nRef: CASE-VALID\n",
		"reject.txt": "Echo GmbH\nInvoice E-2\nRef: CASE-REJECT\n",
		"error.txt":  "Echo GmbH\nInvoice E-3\nRef: CASE-ERROR\n",
	})
	tmp := t.TempDir()
	db, rec, logPath := filepath.Join(tmp, "invx.db"), filepath.Join(tmp, "rec"), filepath.Join(tmp, "invx.log")
	r := runEnv(t, map[string]string{"OPENAI_API_KEY": echoKey},
		"--db", db, "--log-level", "debug", "--log-file", logPath, "run", "--schema", "invoice-summary-v1", "--provider", "openai", "--model", "gpt-test",
		"--base-url", srv.URL+"/v1", "--concurrency", "1", "--record", rec, in)
	if r.code != cmd.ExitNeedsReview {
		t.Fatalf("exit %d, want %d (one rejected, one failed)\n%s", r.code, cmd.ExitNeedsReview, r.stderr)
	}

	sdb := openSQLite(t, db)
	outputs := column(t, sdb, `SELECT CAST(output AS TEXT) FROM attempts WHERE output IS NOT NULL`)
	if len(outputs) == 0 {
		t.Fatal("no attempt kept its output: the rejected answer should be there")
	}
	for _, o := range outputs {
		if strings.Contains(o, echoKey) || !strings.Contains(o, "[REDACTED]") {
			t.Errorf("attempts.output = %s, want the key replaced by [REDACTED]", o)
		}
	}
	// The compressed columns hide their bytes from the file scan below: each
	// is checked as it reads back.
	results := zsttest.Texts(t, sdb, `SELECT result, result_zst FROM results`)
	for _, p := range append(zsttest.Texts(t, sdb, `SELECT payload, payload_zst FROM outbox`),
		zsttest.Texts(t, sdb, `SELECT coalesce(source_text, ''), (SELECT x.zst FROM job_texts x WHERE x.job_id = jobs.id) FROM jobs`)...) {
		if strings.Contains(p, echoKey) {
			t.Errorf("a stored payload or text holds the key")
		}
	}
	if len(results) != 1 || strings.Contains(results[0], echoKey) || !strings.Contains(results[0], `"title":"Invoice with key [REDACTED]"`) {
		t.Errorf("results = %q, want one with the key scrubbed", results)
	}
	for _, m := range column(t, sdb, `SELECT message FROM attempts`) {
		if strings.Contains(m, echoKey) {
			t.Errorf("attempts.message holds the key: %s", m)
		}
	}
	// Nothing anywhere in the file, whatever the column or the page.
	for _, suffix := range []string{"", "-wal"} {
		if b, err := os.ReadFile(db + suffix); err == nil && bytes.Contains(b, []byte(echoKey)) {
			t.Errorf("database file%s holds the key", suffix)
		}
	}

	// Recording: scrubbed, folders 0700, files 0600.
	files := 0
	err := filepath.WalkDir(rec, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		if d.IsDir() {
			return nil
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(echoKey)) {
			t.Errorf("record file %s holds the key:\n%s", p, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Errorf("%d record files, want at least one per document", files)
	}

	logText, err := os.ReadFile(logPath)
	if err != nil || len(logText) == 0 {
		t.Fatalf("log file: %v (%d bytes)", err, len(logText))
	}
	for name, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "log": string(logText)} {
		if strings.Contains(text, echoKey) {
			t.Errorf("%s holds the key:\n%s", name, text)
		}
	}
	// show prints what was stored: still no key.
	show := runEnv(t, nil, "--db", db, "show", "--json", filepath.Join(in, "reject.txt"))
	if show.code != 0 || strings.Contains(show.stdout, echoKey) {
		t.Errorf("show: exit %d\n%s", show.code, show.stdout)
	}
}

// A webhook that echoes its Authorization header in an error answer: the
// token is not stored with the parked event nor printed.
func TestEchoedWebhookHeaderIsScrubbed(t *testing.T) {
	t.Parallel()
	var auth []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		auth = append(auth, r.Header.Get("Authorization"))
		http.Error(w, "rejected request with Authorization: "+r.Header.Get("Authorization"), http.StatusBadRequest)
	}))
	t.Cleanup(hook.Close)
	srv := chatServer(t, func(string) (int, string) { return http.StatusOK, completeAnswer("Hook Ltd", "H-1") })
	in := writeInputs(t, map[string]string{"hook.txt": "Hook Ltd\nInvoice H-1\n"})
	db := filepath.Join(t.TempDir(), "invx.db")
	if r := runEnv(t, nil, "--db", db, "run", "--quiet", "--schema", "invoice-summary-v1", "--provider", "openai", "--model", "gpt-test",
		"--base-url", srv.URL+"/v1", in); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	r := runEnv(t, nil, "--db", db, "outbox", "deliver", "--webhook", hook.URL, "--header", "Authorization: Bearer "+echoHeader,
		"--max-attempts", "1", "--wait", "0s")
	if r.code != cmd.ExitNeedsReview {
		t.Fatalf("deliver: exit %d, want %d (parked)\n%s", r.code, cmd.ExitNeedsReview, r.stderr)
	}
	if len(auth) == 0 || auth[0] != "Bearer "+echoHeader {
		t.Fatalf("the webhook got Authorization %q, want the configured header", auth)
	}
	errs := column(t, openSQLite(t, db), `SELECT last_error FROM outbox WHERE coalesce(last_error, '') != ''`)
	if len(errs) == 0 {
		t.Fatal("no parked event kept its error")
	}
	for _, e := range errs {
		if strings.Contains(e, echoHeader) || !strings.Contains(e, "[REDACTED]") {
			t.Errorf("outbox error %q, want the token scrubbed", e)
		}
	}
	if strings.Contains(r.stderr+r.stdout, echoHeader) {
		t.Errorf("deliver printed the token:\n%s", r.stderr)
	}
}
