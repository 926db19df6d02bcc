package e2e_test

import (
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/invx/invx/extract/rules"
	"github.com/invx/invx/internal/batchfake"
	"github.com/invx/invx/internal/crashpoint"
	"github.com/invx/invx/schema"
)

// batchFake is a fake OpenAI Batch API that answers like the rules
// provider. Its state lives in the test process: invx processes killed and
// started again talk to the same batches.
func batchFake(t *testing.T) *batchfake.Server {
	t.Helper()
	return batchFakeOf(t, batchfake.OpenAI)
}

// batchFakeOf is batchFake for the API of kind.
func batchFakeOf(t *testing.T, kind batchfake.Kind) *batchfake.Server {
	t.Helper()
	f := batchfake.NewOpenAI(t)
	if kind == batchfake.Anthropic {
		f = batchfake.NewAnthropic(t)
	}
	f.SetAnswer(batchfake.AnswerWith(rules.New(), schema.V1))
	return f
}

// batchArgs are the arguments of invx CMD --batch against fake, with fast
// polls and a short batch lease (so a rerun after a kill takes the batch
// over within a second).
func batchArgs(fake *batchfake.Server, db, cmd string, more ...string) []string {
	provider, model := "openai", "gpt-test"
	if fake.Kind == batchfake.Anthropic {
		provider, model = "anthropic", "claude-test"
	}
	args := []string{"--db", db, cmd, "--batch", "--json", "--quiet", "--schema", schema.V1, "--provider", provider,
		"--model", model, "--base-url", fake.URL, "--batch-poll", "10ms", "--lease", "1s"}
	if cmd == "work" {
		// work takes every version's jobs and has no --schema default.
		args = append(args[:6], args[8:]...)
	}
	return append(args, more...)
}

// batchEnv is the environment of an invx talking to the fake, plus extra.
func batchEnv(extra ...string) []string {
	return append([]string{"OPENAI_API_KEY=sk-test", "ANTHROPIC_API_KEY=sk-ant-test"}, extra...)
}

// checkBatches asserts the batches table: want batches, all collected,
// each with a remote id the fake created.
func checkBatches(t *testing.T, db string, fake *batchfake.Server, want int) {
	t.Helper()
	sql := openTarget(t, db)
	defer sql.Close()
	wantCount(t, sql, want, `SELECT count(*) FROM batches`)
	wantCount(t, sql, want, `SELECT count(*) FROM batches WHERE state = 'collected' AND remote_id IS NOT NULL`)
	ids := fake.BatchIDs()
	if len(ids) != want {
		t.Errorf("the fake created %d batches, want %d", len(ids), want)
	}
	recorded := map[string]int{}
	rows, err := sql.Query(`SELECT remote_id FROM batches WHERE remote_id IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		recorded[id]++
	}
	for _, id := range ids {
		if recorded[id] != 1 {
			t.Errorf("batch %s recorded %d times, want once", id, recorded[id])
		}
	}
}

// openTarget opens what --db names: a SQLite file or a postgres:// URL.
func openTarget(t *testing.T, target string) *sql.DB {
	t.Helper()
	if !strings.HasPrefix(target, "postgres") {
		return openDB(t, target)
	}
	db, err := sql.Open("pgx", target)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// invx run --batch is SIGKILLed at each phase of a batch run (recorded but
// not sent; created at the provider but not recorded; while polling; after
// one result line of many was committed) and then run again: the fake sees
// exactly one batch creation per chunk, and every document is committed
// exactly once. On both engines, with both APIs.
func TestBatchRunSurvivesSIGKILLAtEachPhase(t *testing.T) {
	t.Parallel()
	const n, size = 30, 10
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, kind := range []batchfake.Kind{batchfake.OpenAI, batchfake.Anthropic} {
			for _, point := range []string{"after-create", "after-submit", "polling", "mid-collect"} {
				t.Run(engine+"/"+string(kind)+"/"+point, func(t *testing.T) {
					t.Parallel()
					db := dbPath(t)
					if engine == "postgres" {
						db, _ = pgDatabase(t, pgAdmin(t))
					}
					fake := batchFakeOf(t, kind)
					fake.SetPolls(2)
					dir := writeDocs(t, genInvoices(t, 7, n))
					args := batchArgs(fake, db, "run", "--batch-size", strconv.Itoa(size), dir)
					r := invxWithEnv(t, batchEnv(crashpoint.Env+"=batch."+point), args...)
					if r.code != -1 {
						t.Fatalf("the run was not killed at %s: %s", point, r)
					}
					// At once: the rerun sees the batch's owner is dead, waits for
					// its lease (1s) to run out and takes the batch over.
					r = invxWithEnv(t, batchEnv(), args...)
					mustExit(t, r, 0)
					s := parseSummary(t, r)
					if s.Final.Succeeded != n || s.Status != "completed" {
						t.Errorf("rerun: status %s, final %+v; want completed with %d succeeded", s.Status, s.Final, n)
					}
					if c := fake.Counts(); c.Creations != n/size {
						t.Errorf("the fake saw %d batch creations, want %d (one per chunk of %d)", c.Creations, n/size, size)
					}
					sent := map[string]int{}
					for _, q := range fake.Requests() {
						sent[q.CustomID]++
					}
					if len(sent) != n {
						t.Errorf("%d distinct requests sent, want %d", len(sent), n)
					}
					for id, k := range sent {
						if k != 1 {
							t.Errorf("request %s sent %d times", id, k)
						}
					}
					checkBatches(t, db, fake, n/size)
					sql := openTarget(t, db)
					defer sql.Close()
					checkInvariants(t, sql, n)
					// Every succeeded attempt is a batch request; nothing was paid twice.
					wantCount(t, sql, n, `SELECT count(*) FROM attempts WHERE outcome = 'succeeded' AND batch_id IS NOT NULL`)
					wantCount(t, sql, n, `SELECT count(DISTINCT custom_id) FROM attempts WHERE batch_id IS NOT NULL`)
				})
			}
		}
	}
}

// Two invx work --batch processes on one queue: each job is submitted in
// exactly one batch request, and committed once.
func TestBatchTwoWorkProcessesOneSubmissionPerJob(t *testing.T) {
	t.Parallel()
	const n = 60
	fake := batchFake(t)
	fake.SetPolls(3)
	dir := writeDocs(t, genInvoices(t, 11, n))
	db := dbPath(t)
	mustExit(t, invx(t, "--db", db, "run", "--enqueue-only", "--quiet", "--schema", schema.V1, dir), 0)
	var wg sync.WaitGroup
	res := make([]*result, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = invxWithEnv(t, batchEnv(), batchArgs(fake, db, "work", "--batch-size", "8")...)
		}()
	}
	wg.Wait()
	for _, r := range res {
		mustExit(t, r, 0)
	}
	sent := map[string]int{}
	for _, q := range fake.Requests() {
		sent[q.CustomID]++
	}
	if len(sent) != n {
		t.Errorf("%d distinct requests, want %d", len(sent), n)
	}
	for id, k := range sent {
		if k != 1 {
			t.Errorf("request %s sent %d times, want once", id, k)
		}
	}
	sql := openDB(t, db)
	defer sql.Close()
	checkCommittedOnce(t, sql, n)
}

// The "done when": a 2,000-document run through the fake commits
// every document exactly once with one batch creation.
func TestBatchRun2000DocumentsOneCreation(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("2,000 documents: not with -short")
	}
	const n = 2000
	fake := batchFake(t)
	fake.SetPolls(1)
	dir := writeDocs(t, genInvoices(t, 13, n))
	db := dbPath(t)
	r := invxWithEnv(t, batchEnv(), batchArgs(fake, db, "run", dir)...)
	mustExit(t, r, 0)
	s := parseSummary(t, r)
	if s.Committed != n || s.Attempts != n {
		t.Errorf("committed %d in %d attempts, want %d in %d", s.Committed, s.Attempts, n, n)
	}
	if c := fake.Counts(); c.Creations != 1 || c.Uploads != 1 {
		t.Errorf("the fake saw %d creations and %d uploads, want 1 and 1", c.Creations, c.Uploads)
	}
	checkBatches(t, db, fake, 1)
	sql := openDB(t, db)
	defer sql.Close()
	checkCommittedOnce(t, sql, n)
	t.Logf("2,000 documents through one batch: %v", r.wall)
}

// --detach submits, prints the batch ids and exits 0; the next morning
// invx batch list shows the batch, and invx batch collect commits it.
// invx batch cancel sends a batch's documents back to the queue.
func TestBatchDetachListCollectCancel(t *testing.T) {
	t.Parallel()
	const n = 12
	fake := batchFake(t)
	fake.SetPolls(1000) // in progress until the test ends it
	dir := writeDocs(t, genInvoices(t, 17, n))
	db := dbPath(t)
	args := batchArgs(fake, db, "run", "--batch-size", "6", "--detach", dir)
	args = append(args[:4], args[5:]...) // no --json: the ids on stdout
	r := invxWithEnv(t, batchEnv(), args...)
	mustExit(t, r, 0)
	ids := strings.Fields(r.stdout)
	if len(ids) != 2*4 || ids[0] != "1" || ids[4] != "2" || ids[2] != "6" || ids[3] != "submitted" {
		t.Fatalf("--detach stdout: want two rows (id, remote id, requests, state)\n%s", r)
	}

	r = invx(t, "--db", db, "batch", "list", "--json")
	mustExit(t, r, 0)
	var list []struct {
		ID       int64  `json:"id"`
		State    string `json:"state"`
		RemoteID string `json:"remote_id"`
		Requests int    `json:"requests"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 2 || list[0].State != "submitted" || list[0].Requests != 6 {
		t.Fatalf("batch list --json: %v %+v\n%s", err, list, r)
	}

	// A synchronous worker on the same host leaves the batches' documents
	// alone although the detached process is gone: they are the batches'
	// (sending them again would pay twice).
	r = invx(t, "--db", db, "work", "--json", "--quiet")
	mustExit(t, r, 0)
	if s := parseSummary(t, r); s.Attempts != 0 || s.Committed != 0 {
		t.Fatalf("a synchronous worker took %d attempts and %d commits from detached batches\n%s", s.Attempts, s.Committed, r)
	}

	// A look while the batches are in progress collects nothing.
	r = invxWithEnv(t, batchEnv(), "--db", db, "batch", "collect", "--base-url", fake.URL)
	mustExit(t, r, 0)
	sql := openDB(t, db)
	wantCount(t, sql, 0, `SELECT count(*) FROM results`)
	sql.Close()

	// Batch 2 is cancelled: its documents go back to the queue.
	r = invxWithEnv(t, batchEnv(), "--db", db, "batch", "cancel", "2", "--base-url", fake.URL, "--batch-poll", "10ms")
	mustExit(t, r, 0)
	sql = openDB(t, db)
	wantCount(t, sql, 1, `SELECT count(*) FROM batches WHERE id = 2 AND state = 'cancelled'`)
	wantCount(t, sql, 6, `SELECT count(*) FROM jobs WHERE state = 'queued'`)
	sql.Close()

	// The next morning batch 1 ended: collect commits it.
	fake.EndAll()
	r = invxWithEnv(t, batchEnv(), "--db", db, "batch", "collect", "1", "--wait", "--base-url", fake.URL, "--batch-poll", "10ms")
	mustExit(t, r, 0)
	sql = openDB(t, db)
	wantCount(t, sql, 6, `SELECT count(*) FROM results`)
	wantCount(t, sql, 1, `SELECT count(*) FROM batches WHERE id = 1 AND state = 'collected'`)
	sql.Close()

	// A rerun sends the cancelled batch's documents again and commits them.
	fake.SetPolls(1)
	r = invxWithEnv(t, batchEnv(), batchArgs(fake, db, "run", dir)...)
	mustExit(t, r, 0)
	sql = openDB(t, db)
	defer sql.Close()
	checkCommittedOnce(t, sql, n)
	if c := fake.Counts(); c.Creations != 3 || c.Cancels != 1 {
		t.Errorf("the fake saw %d creations and %d cancels, want 3 and 1", c.Creations, c.Cancels)
	}
}
