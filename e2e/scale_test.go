package e2e_test

import (
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for the PostgreSQL checks
)

// fakeModel is a loopback OpenAI-compatible server that answers every
// document after 0-20 ms with a valid invoice-summary-v1 document: facts
// null, and a verify_purchase_order action whose evidence is the PO line
// when the document has one (so outbox rows for actions exist).
func fakeModel(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) < 2 {
			http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		time.Sleep(time.Duration(rand.IntN(21)) * time.Millisecond)
		actions := []map[string]string{}
		for _, line := range strings.Split(req.Messages[1].Content, "\n") {
			if strings.HasPrefix(line, "PO Number: ") {
				actions = append(actions, map[string]string{"id": "a1", "kind": "verify_purchase_order", "evidence": line})
				break
			}
		}
		doc, _ := json.Marshal(map[string]any{
			"schema_version": "invoice-summary-v1", "title": "Invoice", "bullets": []string{"An invoice."},
			"invoice":      fakeFacts([]byte(req.Messages[1].Content)),
			"action_items": actions,
		})
		body, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": "fake-model",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": string(doc), "refusal": nil}}},
			"usage": map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// scale runs issue 7's scale scenario on db: 2,000 documents enqueued, 4
// `invx work` processes with the fake model, one SIGKILLed mid-way and
// restarted, then everything worked to the end.
func scale(t *testing.T, db string) {
	t.Helper()
	const n = 2000
	srv, calls := fakeModel(t)
	dir := writeDocs(t, genInvoices(t, 9090, n))
	mustExit(t, invx(t, "--db", db, "run", "--enqueue-only", "--quiet", "--schema", "invoice-summary-v1", dir), 0)
	work := []string{"--db", db, "work", "--provider", "openai", "--model", "fake-model", "--base-url", srv.URL + "/v1",
		"--concurrency", "4", "--quiet", "--lease", "30s"}
	procs := make([]*proc, 4)
	for i := range procs {
		procs[i] = start(t, work...)
	}
	// Kill one worker once the batch is well under way.
	deadline := time.Now().Add(cmdTimeout(t))
	for calls.Load() < n/4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(procs[0].cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if r := procs[0].wait(t); r.code != -1 {
		t.Logf("worker 0 ended before the kill landed (exit %d)", r.code)
	}
	procs[0] = start(t, work...) // restarted: reclaims the dead worker's leases at once
	for i, p := range procs {
		r := p.wait(t)
		if r.code != 0 {
			t.Fatalf("worker %d: %s", i, r)
		}
	}
	// A last pass finds nothing left (and would finish anything that was).
	mustExit(t, invx(t, work...), 0)
}

func TestScaleSQLiteFourWorkersOneKilled(t *testing.T) {
	t.Parallel()
	db := dbPath(t)
	scale(t, db)
	checkCommittedOnce(t, openDB(t, db), 2000)
}

func TestScalePostgresFourWorkersOneKilled(t *testing.T) {
	t.Parallel()
	admin := os.Getenv("INVX_TEST_POSTGRES")
	if admin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must set INVX_TEST_POSTGRES (see .ci/postgres.sh)")
		}
		t.Skip("INVX_TEST_POSTGRES is not set: start a server with .ci/postgres.sh")
	}
	adb, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer adb.Close()
	var b [6]byte
	_, _ = crand.Read(b[:])
	name := "invx_e2e_" + hex.EncodeToString(b[:])
	if _, err := adb.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = adb.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	dsn := u.String()

	scale(t, dsn)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkInvariants(t, db, 2000)
}
