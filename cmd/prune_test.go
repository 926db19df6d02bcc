package cmd_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/store"
)

type pruneJSON struct {
	DryRun      bool   `json:"dry_run"`
	Before      string `json:"before"`
	Jobs        int    `json:"jobs"`
	TextBytes   int64  `json:"text_bytes"`
	Attempts    int    `json:"attempts"`
	OutputBytes int64  `json:"output_bytes"`
}

func prune(t *testing.T, e *opsEnv, args ...string) pruneJSON {
	t.Helper()
	r := e.must(0, append([]string{"prune", "--json"}, args...)...)
	var p pruneJSON
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("prune --json: %v\n%s", err, r.stdout)
	}
	return p
}

// storedText is a job's document text as show --text --json prints it.
func storedText(t *testing.T, e *opsEnv, ref string) string {
	t.Helper()
	var j struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(e.must(0, "show", "--json", "--text", ref).stdout), &j); err != nil {
		t.Fatal(err)
	}
	return j.Text
}

// Prune drops the text of old finished jobs and keeps their keys and
// results, so a rerun over the same files makes no call at all.
func TestPruneKeepsRerunsIdempotent(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	textA, textB := storedText(t, e, "a.txt"), storedText(t, e, "b.txt")
	exportBefore := e.must(0, "export").stdout

	e.advance(100 * 24 * time.Hour)
	// Not old enough: nothing.
	if p := prune(t, e, "--older-than", "101d"); p.Jobs != 0 || p.TextBytes != 0 {
		t.Errorf("--older-than 101d: %+v", p)
	}
	// A dry run reports and changes nothing.
	r := e.must(0, "prune", "--older-than", "90d", "--dry-run")
	want := "would prune 2 job(s) last changed before 2026-03-12T09:00:00Z"
	if !strings.HasPrefix(r.stderr, want) || !strings.Contains(r.stderr, "dry run: nothing was changed") || r.stdout != "" {
		t.Errorf("dry run: stdout %q, stderr %q; want it to start with %q", r.stdout, r.stderr, want)
	}
	dry := prune(t, e, "--older-than", "90d", "--dry-run")
	if diff := cmp.Diff(pruneJSON{DryRun: true, Before: "2026-03-12T09:00:00Z", Jobs: 2,
		TextBytes: int64(len(textA) + len(textB))}, dry); diff != "" {
		t.Errorf("dry run (-want +got):\n%s", diff)
	}
	if storedText(t, e, "a.txt") != textA {
		t.Fatalf("a dry run removed the text")
	}

	got := prune(t, e, "--older-than", "90d")
	dry.DryRun = false
	if diff := cmp.Diff(dry, got); diff != "" {
		t.Errorf("prune reports otherwise than its dry run (-want +got):\n%s", diff)
	}
	for _, ref := range []string{"a.txt", "b.txt"} {
		if s := storedText(t, e, ref); s != "" {
			t.Errorf("%s: text still stored after prune (%d bytes)", ref, len(s))
		}
		if j := e.job(ref); j.State != store.StateSucceeded {
			t.Errorf("%s: state %s after prune", ref, j.State)
		}
		if r := e.must(0, "show", "--text", ref); strings.Contains(r.stdout, "\ntext\n") {
			t.Errorf("show --text %s still prints text:\n%s", ref, r.stdout)
		}
	}
	if after := e.must(0, "export").stdout; after != exportBefore {
		t.Errorf("prune changed the export:\n%s\nwas:\n%s", after, exportBefore)
	}
	// Idempotent: a second prune finds nothing, a rerun calls nobody.
	if p := prune(t, e, "--older-than", "90d"); p.Jobs != 0 || p.TextBytes != 0 || p.Attempts != 0 {
		t.Errorf("second prune: %+v", p)
	}
	r = e.must(0, "run", "--json", "--quiet", e.in)
	var sum struct {
		Attempts         int `json:"attempts"`
		NewJobs          int `json:"new_jobs"`
		AlreadyCommitted int `json:"already_committed"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Attempts != 0 || sum.NewJobs != 0 || sum.AlreadyCommitted != 2 {
		t.Errorf("rerun after prune: %+v", sum)
	}
}

// Attempt details go too; held jobs are left alone; a pruned job can no
// longer be retried.
func TestPruneAttemptsAndHeld(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	// Job states only: b.txt's result complete, so invx review lists the
	// three jobs and no review reason.
	e.must(0, "policy", "set", "--require", "supplier_name")
	script := e.mixed()
	ctx := context.Background()
	st := e.store()
	rejected := e.job("a.txt")
	atts, err := st.ListAttempts(ctx, &store.ListAttemptsParams{JobID: rejected.ID})
	if err != nil || len(atts) != 1 || len(atts[0].Output) == 0 {
		t.Fatalf("rejected attempt: %v, %+v", err, atts)
	}
	output := len(atts[0].Output)

	e.advance(100 * 24 * time.Hour)
	p := prune(t, e, "--older-than", "90d")
	// a.txt (rejected), b.txt's committed text, c.txt (failed); the held
	// change of b.txt stays. Two attempts carried details: the rejected
	// answer and the failure message.
	if p.Jobs != 3 || p.Attempts != 2 || p.OutputBytes != int64(output) {
		t.Errorf("prune: %+v, want 3 jobs, 2 attempts, %d output bytes", p, output)
	}
	held := e.job("b.txt")
	if held.State != store.StateHeld || storedText(t, e, held.JobKey) == "" {
		t.Errorf("held job pruned: %s", held.State)
	}
	atts, err = st.ListAttempts(ctx, &store.ListAttemptsParams{JobID: rejected.ID})
	if err != nil || len(atts) != 1 || len(atts[0].Output) != 0 || atts[0].Message != "" || atts[0].Outcome != store.OutcomeRejected {
		t.Errorf("rejected attempt after prune: %v, %+v", err, atts)
	}
	// The review list still explains why (the job keeps its last error).
	items := reviewList(t, e, cmd.ExitNeedsReview)
	if len(items) != 3 {
		t.Errorf("review after prune: %+v", items)
	}
	// The failed job's text is gone: retry by name says so, by state skips it.
	if r := e.invx(false, "retry", "c.txt", "--provider", "command", "--command", script); r.code != cmd.ExitError ||
		!strings.Contains(r.stderr, "was pruned") {
		t.Errorf("retry a pruned job: exit %d, stderr %q", r.code, r.stderr)
	}
	r := e.must(0, "retry", "--state", "failed", "--provider", "command", "--command", script)
	if !strings.Contains(r.stderr, "1 job(s) not requeued") || !strings.Contains(r.stderr, "nothing to retry") {
		t.Errorf("retry --state failed after prune: %q", r.stderr)
	}
	if j := e.job("c.txt"); j.State != store.StateFailed {
		t.Errorf("c.txt: %s", j.State)
	}
}

func TestPruneUsage(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	for _, args := range [][]string{{"prune"}, {"prune", "--older-than", "0d"}, {"prune", "--older-than", "ninety days"},
		{"prune", "--older-than", "90d", "now"}} {
		if r := e.invx(false, args...); r.code != cmd.ExitUsage {
			t.Errorf("%v: exit %d, want 2", args, r.code)
		}
	}
}
