package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// gatedModel is a loopback OpenAI-compatible server whose answers wait for
// the test: every request is announced on arrived, then held until release
// is closed (or the client goes away). Calls are in flight exactly as long
// as the test decides, with no sleeps.
type gatedModel struct {
	srv     *httptest.Server
	arrived chan struct{}
	release chan struct{}
	calls   atomic.Int64
}

func newGatedModel(t *testing.T) *gatedModel {
	t.Helper()
	g := &gatedModel{arrived: make(chan struct{}, 1000), release: make(chan struct{})}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		reqBody := requestBody(r)
		g.calls.Add(1)
		g.arrived <- struct{}{}
		select {
		case <-g.release:
		case <-r.Context().Done():
			return // the process went away mid-call
		}
		doc, _ := json.Marshal(map[string]any{
			"schema_version": "invoice-summary-v1", "title": "Invoice", "bullets": []string{"An invoice."},
			"invoice":      fakeFacts(reqBody),
			"action_items": []any{},
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
	t.Cleanup(func() {
		g.open()
		g.srv.Close()
	})
	return g
}

// open lets every held and future call answer.
func (g *gatedModel) open() {
	select {
	case <-g.release:
	default:
		close(g.release)
	}
}

// waitCalls waits until n calls are in flight (or arrived), bounded by the
// test's deadline.
func (g *gatedModel) waitCalls(t *testing.T, n int, p *proc) {
	t.Helper()
	deadline := time.After(cmdTimeout(t))
	for range n {
		select {
		case <-g.arrived:
		case <-deadline:
			p.cmd.Process.Kill()
			t.Fatalf("%d provider calls never arrived\n%s", n, p.wait(t))
		}
	}
}

func (g *gatedModel) args(db, dir string) []string {
	return []string{"--db", db, "run", "--json", "--quiet", "--schema", "invoice-summary-v1", "--concurrency", "2", "--provider", "openai",
		"--model", "fake-model", "--base-url", g.srv.URL + "/v1", dir}
}

// interruptDocs are the documents of the interrupt tests.
func interruptDocs(t *testing.T, n int) string {
	t.Helper()
	docs := map[string]string{}
	for i := range n {
		docs[fmt.Sprintf("inv-%02d.txt", i)] = fmt.Sprintf("Acme Ltd\nInvoice %d\nTotal EUR %d.00\n", i, 10+i)
	}
	return writeDocs(t, docs)
}

// One Ctrl-C while two provider calls are in flight: invx stops claiming,
// lets both calls answer and commit, records the run as interrupted and
// exits 130. A rerun commits the rest; every document is committed exactly
// once and the model was asked once per document.
func TestInterruptOnceFinishesInFlightExit130(t *testing.T) {
	t.Parallel()
	const n = 6
	db, dir := dbPath(t), interruptDocs(t, n)
	g := newGatedModel(t)
	p := start(t, g.args(db, dir)...)
	g.waitCalls(t, 2, p)
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("SIGINT: %v", err)
	}
	// The calls in flight may answer now. (Had the signal not been handled
	// yet, the runner could claim more: answered too, so nothing waits on
	// the order; the assertions below hold either way.)
	g.open()
	r := p.wait(t)
	mustExit(t, r, 130)
	s := parseSummary(t, r)
	if s.Status != "interrupted" || s.Final.Succeeded < 2 || s.Final.Succeeded+s.Final.Unfinished != n || s.Failed != 0 {
		t.Fatalf("interrupted run: status %q final %+v failed %d; want interrupted, both calls in flight committed, the rest unfinished\n%s",
			s.Status, s.Final, s.Failed, r)
	}

	sql := openDB(t, db)
	wantCount(t, sql, 1, `SELECT count(*) FROM runs WHERE id = ? AND status = 'interrupted' AND finished_at IS NOT NULL`, s.RunID)
	committed := count(t, sql, `SELECT count(*) FROM results`)
	if committed != s.Final.Succeeded {
		t.Errorf("results = %d, summary says %d succeeded", committed, s.Final.Succeeded)
	}
	// Nothing half-done: no lease held, no retry scheduled, no failure;
	// every call that was made answered and committed. Jobs leased ahead
	// of the two slots were given back uncalled (not_started), their
	// attempt budget whole.
	wantCount(t, sql, 0, `SELECT count(*) FROM jobs WHERE state NOT IN ('succeeded', 'queued') OR lease_owner IS NOT NULL`)
	wantCount(t, sql, 0, `SELECT count(*) FROM attempts WHERE outcome NOT IN ('succeeded', 'not_started')`)
	wantCount(t, sql, int(g.calls.Load()), `SELECT count(*) FROM attempts WHERE outcome <> 'not_started'`)
	wantCount(t, sql, 0, `SELECT count(*) FROM jobs WHERE state = 'queued' AND attempts - budget_base <> 0`)
	sql.Close()

	r = invx(t, g.args(db, dir)...)
	mustExit(t, r, 0)
	if s := parseSummary(t, r); s.Status != "completed" || s.Final.Succeeded != n || s.Committed != n-committed {
		t.Errorf("rerun: status %q succeeded %d committed %d, want completed, %d, %d\n%s",
			s.Status, s.Final.Succeeded, s.Committed, n, n-committed, r)
	}
	checkCommittedOnce(t, openDB(t, db), n)
	if got := g.calls.Load(); got != n {
		t.Errorf("provider calls = %d, want %d (one per document)", got, n)
	}
}

// Ctrl-C twice: the second exits at once, 130, without waiting for the two
// calls in flight (the model never answers them). Their leases belong to a
// process that is gone, so a rerun reaps them instead of waiting them out,
// and every document is committed exactly once.
func TestInterruptTwiceExitsAtOnce(t *testing.T) {
	t.Parallel()
	const n = 6
	db, dir := dbPath(t), interruptDocs(t, n)
	g := newGatedModel(t)
	p := start(t, g.args(db, dir)...)
	g.waitCalls(t, 2, p)
	exited := make(chan *result, 1)
	go func() { exited <- p.wait(t) }()
	// Signals of one kind do not queue: two sent back to back may arrive
	// as one. So Ctrl-C is pressed until the process is gone, as an
	// impatient user would; the first stops the run, any later one exits.
	var r *result
	deadline := time.After(cmdTimeout(t))
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for r == nil {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case r = <-exited:
		case <-tick.C:
		case <-deadline:
			t.Fatal("invx did not exit on repeated Ctrl-C while calls were in flight")
		}
	}
	mustExit(t, r, 130)

	sql := openDB(t, db)
	// The calls in flight were cut, not answered: nothing committed, their
	// jobs still leased by the gone process, the run never finished.
	wantCount(t, sql, 0, `SELECT count(*) FROM results`)
	// The two calls' jobs stay leased. Jobs leased ahead of the two slots
	// are given back once the first Ctrl-C is handled; any the second
	// overtook (a matter of scheduling) stay leased like the calls' and are
	// reaped the same way below.
	leased := count(t, sql, `SELECT count(*) FROM jobs WHERE state = 'running'`)
	if leased < 2 || leased > n {
		t.Errorf("jobs left running = %d, want the 2 calls in flight and at most the %d read ahead", leased, n-2)
	}
	wantCount(t, sql, 1, `SELECT count(*) FROM runs WHERE status = 'running'`)
	sql.Close()

	g.open()
	r = invx(t, g.args(db, dir)...)
	mustExit(t, r, 0)
	s := parseSummary(t, r)
	if s.Status != "completed" || s.Final.Succeeded != n || s.LeaseRecoveries != leased {
		t.Errorf("rerun: status %q succeeded %d lease recoveries %d, want completed, %d, %d\n%s",
			s.Status, s.Final.Succeeded, s.LeaseRecoveries, n, leased, r)
	}
	sql = openDB(t, db)
	checkCommittedOnce(t, sql, n)
	wantCount(t, sql, leased, `SELECT count(*) FROM attempts WHERE outcome = 'lease_expired'`)
	wantCount(t, sql, 1, `SELECT count(*) FROM runs WHERE status = 'abandoned'`)
	if got := g.calls.Load(); got != n+2 {
		t.Errorf("provider calls = %d, want %d (the two cut calls asked again)", got, n+2)
	}
}
