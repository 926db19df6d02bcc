package cmd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/store"
)

// setupFlaky leaves one failed job: flaky.txt, whose model call exited 2.
// The next call succeeds.
func setupFlaky(t *testing.T) (*opsEnv, string) {
	t.Helper()
	e := setupOps(t)
	script := e.modelScript()
	if err := os.RemoveAll(e.in); err != nil {
		t.Fatal(err)
	}
	e.write("flaky.txt", "Invoice FL-1\nFLAKY\nTotal 10.00 EUR\n")
	r := e.must(cmd.ExitNeedsReview, "run", "--schema", "invoice-summary-v1", "--provider", "command", "--command", script, e.in)
	if !strings.Contains(r.stderr, "failed             1") {
		t.Fatalf("first run:\n%s", r.stderr)
	}
	return e, script
}

// A failed job requeued by invx retry runs again under the same key, its
// attempts numbered on, and commits.
func TestRetryFailed(t *testing.T) {
	t.Parallel()
	e, script := setupFlaky(t)
	ctx := context.Background()
	before := e.job("flaky.txt")
	if before.State != store.StateFailed || before.Attempts != 1 {
		t.Fatalf("before retry: %s, %d attempts", before.State, before.Attempts)
	}

	if r := e.invx(false, "retry"); r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "--state") {
		t.Errorf("retry without KEY or --state: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.invx(false, "retry", "--state", "succeeded"); r.code != cmd.ExitUsage {
		t.Errorf("retry --state succeeded: exit %d", r.code)
	}

	// With --max-attempts 1: the attempt already made does not count
	// against the fresh budget.
	r := e.must(0, "retry", "--state", "failed", "--max-attempts", "1", "--provider", "command", "--command", script)
	if !strings.Contains(r.stderr, "requeued 1 job(s)") || !strings.Contains(r.stderr, "committed 1") {
		t.Errorf("retry stderr:\n%s", r.stderr)
	}
	after := e.job("flaky.txt")
	if after.JobKey != before.JobKey || after.ID != before.ID || after.State != store.StateSucceeded || after.Attempts != 2 {
		t.Errorf("after retry: key %s id %d state %s attempts %d", after.JobKey, after.ID, after.State, after.Attempts)
	}
	atts, err := e.store().ListAttempts(ctx, &store.ListAttemptsParams{JobID: after.ID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range atts {
		got = append(got, a.Outcome)
	}
	if diff := cmp.Diff([]string{store.OutcomeFailed, store.OutcomeSucceeded}, got); diff != "" {
		t.Errorf("attempt outcomes (-want +got):\n%s", diff)
	}
	if atts[1].AttemptNo != 2 {
		t.Errorf("second attempt numbered %d", atts[1].AttemptNo)
	}
	if _, err := e.store().GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: after.JobKey}); err != nil {
		t.Errorf("no result after retry: %v", err)
	}
	if e.calls() != 2 {
		t.Errorf("model ran %d times, want 2", e.calls())
	}

	// Nothing failed any more: retry says so and calls nobody.
	r = e.must(0, "retry", "--state", "failed", "--provider", "command", "--command", script)
	if r.stderr != "nothing to retry\n" || e.calls() != 2 {
		t.Errorf("second retry: stderr %q, %d calls", r.stderr, e.calls())
	}
	// A succeeded job named by key is not retried.
	if r := e.invx(false, "retry", after.JobKey[:8]); r.code != cmd.ExitError || !strings.Contains(r.stderr, "is succeeded") {
		t.Errorf("retry a succeeded job: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestRetryEnqueueOnlyByKey(t *testing.T) {
	t.Parallel()
	e, script := setupFlaky(t)
	job := e.job("flaky.txt")
	// By path and by prefix: one job, requeued once.
	r := e.must(0, "retry", "--enqueue-only", "flaky.txt", job.JobKey[:9])
	if r.stderr != "requeued 1 job(s)\n" {
		t.Errorf("stderr %q", r.stderr)
	}
	if j := e.job(job.JobKey); j.State != store.StateQueued || j.Attempts != 1 || e.calls() != 1 {
		t.Errorf("after --enqueue-only: %s, %d attempts, %d calls", j.State, j.Attempts, e.calls())
	}
	// It is no longer failed, so --state failed finds nothing, and the
	// queued job is not retried by name either.
	if r := e.must(0, "retry", "--state", "failed", "--enqueue-only"); r.stderr != "nothing to retry\n" {
		t.Errorf("stderr %q", r.stderr)
	}
	if r := e.invx(false, "retry", "--enqueue-only", "flaky.txt"); r.code != cmd.ExitError || !strings.Contains(r.stderr, "is queued") {
		t.Errorf("retry a queued job: exit %d, stderr %q", r.code, r.stderr)
	}
	// Working the queue (a rerun here) commits it; the script's answers
	// state no total, so the results are committed for review (exit 3).
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--schema", "invoice-summary-v1", "--provider", "command", "--command", script, e.in)
	if j := e.job(job.JobKey); j.State != store.StateSucceeded || j.Attempts != 2 {
		t.Errorf("after the run: %s, %d attempts", j.State, j.Attempts)
	}
}

// A rejected job that is rejected again ends with exit 3.
func TestRetryStillRejected(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	script := e.modelScript()
	if err := os.Remove(filepath.Join(e.in, "b.txt")); err != nil {
		t.Fatal(err)
	}
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--schema", "invoice-summary-v1", "--repair", "0", "--provider", "command", "--command", script, e.in)
	r := e.must(cmd.ExitNeedsReview, "retry", "a.txt", "--state", "rejected", "--repair", "0", "--provider", "command", "--command", script)
	if !strings.Contains(r.stderr, "rejected 1 (unknown_field 1)") || !strings.Contains(r.stderr, "1 job(s) still need review") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if j := e.job("a.txt"); j.State != store.StateRejected || j.Attempts != 2 {
		t.Errorf("a.txt: %s, %d attempts", j.State, j.Attempts)
	}
	// A --state that does not match the named job is an error.
	if r := e.invx(false, "retry", "a.txt", "--state", "failed", "--enqueue-only"); r.code != cmd.ExitError {
		t.Errorf("retry a.txt --state failed: exit %d", r.code)
	}
}
