package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/storetest"
)

// killDBEnv names the database of TestBatchKillChild; set only in the
// child process TestCreateBatchSurvivesSIGKILL starts.
const killDBEnv = "INVX_TEST_BATCH_KILL_DB"

// batchHold is how long the child's batches hold their jobs: any lease
// this long was written by CreateBatch.
const batchHold = 25 * time.Hour

// A process killed (SIGKILL) while recording batches leaves each batch
// whole or absent: every recorded batch has all its items, each holding its
// job, and no job is held for a batch that was not recorded.
func TestCreateBatchSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "invx.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	docs := make([]store.Document, n)
	for i := range docs {
		docs[i] = storetest.Doc("t1", fmt.Sprintf("%04d.txt", i), fmt.Sprintf("invoice %d", i))
	}
	if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: docs, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	kills := 0
	for round := 0; ; round++ {
		done := runChild(t, path, round < 12)
		if done {
			break
		}
		kills++
	}
	if kills == 0 {
		t.Fatal("the child was never killed mid-run")
	}

	s, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bs, err := s.ListBatches(ctx, &store.ListBatchesParams{})
	if err != nil {
		t.Fatal(err)
	}
	heldBy := map[int64]int64{} // job id -> the token its item holds
	for _, b := range bs {
		its, err := s.BatchItems(ctx, &store.BatchItemsParams{BatchID: b.ID})
		if err != nil {
			t.Fatal(err)
		}
		if len(its) != b.Requests || b.State != store.BatchPreparing {
			t.Fatalf("batch %d: %d items, %d requests, state %s", b.ID, len(its), b.Requests, b.State)
		}
		for _, it := range its {
			if !it.Held {
				t.Fatalf("batch %d: item %s does not hold its job", b.ID, it.CustomID)
			}
			heldBy[it.JobID] = it.Token
		}
	}
	jobs, err := s.ListJobs(ctx, &store.ListJobsParams{Tenant: "t1", States: []string{store.StateRunning}})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != n {
		t.Fatalf("running jobs = %d, want %d", len(jobs), n)
	}
	long := time.Now().Add(time.Hour)
	orphans := 0
	for _, j := range jobs {
		token, inBatch := heldBy[j.ID]
		if held := j.LeaseExpiresAt.After(long); held != inBatch || (inBatch && token != j.LeaseToken) {
			t.Fatalf("job %d: held %v, in a batch %v (token %d, job token %d)", j.ID, held, inBatch, token, j.LeaseToken)
		}
		if !inBatch {
			orphans++ // claimed by a killed child, not batched: its short lease expires
		}
	}
	t.Logf("%d kills, %d batches, %d jobs batched, %d claimed but not batched", kills, len(bs), len(heldBy), orphans)
}

// runChild runs TestBatchKillChild on the database at path. With kill, it
// sends SIGKILL soon after the child reports its first batch and returns
// false (unless the child finished first); otherwise it waits for the end.
func runChild(t *testing.T, path string, kill bool) bool {
	t.Helper()
	cmd, _, lines := startChild(t, "TestBatchKillChild", killDBEnv+"="+path)
	status := ""
	for lines.Scan() {
		if l := lines.Text(); l == "ready" || l == "done" {
			status = l
			break
		}
	}
	if status == "ready" && kill {
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for lines.Scan() {
			if lines.Text() == "done" {
				status = "done"
			}
		}
		_ = cmd.Wait() // killed: the error is the signal
		return status == "done"
	}
	for lines.Scan() {
		if lines.Text() == "done" {
			status = "done"
		}
	}
	if err := cmd.Wait(); err != nil || status != "done" {
		t.Fatalf("child: %v (status %q)", err, status)
	}
	return true
}

// TestBatchKillChild is the child of TestCreateBatchSurvivesSIGKILL: it
// claims jobs and records them as batches until none is left.
func TestBatchKillChild(t *testing.T) {
	path := os.Getenv(killDBEnv)
	if path == "" {
		t.Skip("run by TestCreateBatchSurvivesSIGKILL")
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for first := true; ; first = false {
		now := time.Now()
		ls, err := s.Claim(ctx, &store.ClaimParams{Tenant: "t1", Owner: "child", RunID: "run-child", Limit: 25,
			LeaseFor: time.Minute, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) == 0 {
			fmt.Println("done")
			return
		}
		items := make([]store.BatchItemInput, len(ls))
		for i, l := range ls {
			items[i] = store.BatchItemInput{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
				CustomID: fmt.Sprintf("%s-%d", l.JobKey[:56], l.AttemptNo)}
		}
		if _, err := s.CreateBatch(ctx, &store.CreateBatchParams{Provider: "openai", Model: "m", Owner: "child",
			LeaseFor: time.Minute, HoldUntil: now.Add(batchHold), Items: items, Now: now}); err != nil {
			t.Fatal(err)
		}
		if first {
			fmt.Println("ready")
		}
	}
}
