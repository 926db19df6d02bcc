package cmd_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

type reviewEntry struct {
	JobKey     string `json:"job_key"`
	State      string `json:"state"`
	SourcePath string `json:"source_path"`
	Category   string `json:"category"`
	ErrorClass string `json:"error_class"`
	Message    string `json:"message"`
	PrevJobKey string `json:"prev_job_key"`
	PrevDigest string `json:"prev_digest"`
	Digest     string `json:"digest"`
}

func reviewList(t *testing.T, e *opsEnv, wantCode int) []reviewEntry {
	t.Helper()
	r := e.must(wantCode, "review", "--json")
	var items []reviewEntry
	if err := json.Unmarshal([]byte(r.stdout), &items); err != nil {
		t.Fatalf("review --json: %v\n%s", err, r.stdout)
	}
	return items
}

// invx review lists the rejected, failed and held jobs, with why, and exits 3.
func TestReviewList(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	// The model script's answers state no total: under the default policy
	// b.txt's result would be incomplete. This list is about job states.
	e.must(0, "policy", "set", "--require", "supplier_name")
	e.mixed()
	for _, tc := range []struct {
		golden string
		tty    bool
	}{
		{"ops-review-tty.golden", true},
		{"ops-review-piped.golden", false},
	} {
		r := e.invx(tc.tty, "review")
		if r.code != cmd.ExitNeedsReview {
			t.Fatalf("review: exit %d, want 3; stderr:\n%s", r.code, r.stderr)
		}
		checkGolden(t, tc.golden, scrub(r.stdout, e.tmp))
		if want := "3 document(s) need review (rejected 1, failed 1, held 1)"; !strings.HasPrefix(r.stderr, want) {
			t.Errorf("stderr %q, want it to start with %q", r.stderr, want)
		}
	}

	items := reviewList(t, e, cmd.ExitNeedsReview)
	byState := map[string]reviewEntry{}
	for _, it := range items {
		byState[it.State] = it
	}
	if len(items) != 3 || len(byState) != 3 {
		t.Fatalf("want one rejected, one failed, one held; got %+v", items)
	}
	if rej := byState["rejected"]; rej.SourcePath != "a.txt" || rej.Category != "unknown_field" ||
		!strings.Contains(rej.Message, `unknown key "confidence"`) {
		t.Errorf("rejected entry: %+v", rej)
	}
	if f := byState["failed"]; f.SourcePath != "c.txt" || f.ErrorClass != "permanent" || !strings.Contains(f.Message, "upstream exploded") {
		t.Errorf("failed entry: %+v", f)
	}
	held := byState["held"]
	old := e.job(held.PrevJobKey)
	if held.SourcePath != "b.txt" || old.State != store.StateSucceeded || old.SourcePath != "b.txt" ||
		held.PrevDigest != old.SourceDigest || held.Digest == held.PrevDigest || held.Digest != e.job(held.JobKey).SourceDigest {
		t.Errorf("held entry %+v; old job %s %s %s", held, old.JobKey, old.State, old.SourceDigest)
	}
}

func TestReviewNothing(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	r := e.must(0, "review")
	if r.stdout != "" || r.stderr != "nothing needs review\n" {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if items := reviewList(t, e, 0); len(items) != 0 {
		t.Errorf("review --json: %+v", items)
	}
	if r := e.invx(false, "review", "bogus"); r.code != cmd.ExitUsage {
		t.Errorf("review bogus: exit %d", r.code)
	}
}

// Accepting a held change processes the new text at once; the old result
// stays, superseded, and export shows only the new one. Under both
// versions: invoice-v2, the default for new jobs, and invoice-summary-v1.
func TestReviewAccept(t *testing.T) {
	t.Parallel()
	for _, version := range []string{schema.V2, schema.V1} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			testReviewAccept(t, version)
		})
	}
}

func testReviewAccept(t *testing.T, version string) {
	t.Helper()
	e := setupOps(t)
	ctx := context.Background()
	e.must(0, "run", "--quiet", "--schema", version, e.in)
	oldJob := e.job("b.txt")
	st := e.store()
	oldRes, err := st.GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: oldJob.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	oldEvents, err := st.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "default", JobKey: oldJob.JobKey})
	if err != nil {
		t.Fatal(err)
	}

	e.advance(time.Hour)
	b, err := os.ReadFile(filepath.Join(e.in, "b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	e.write("b.txt", strings.Replace(string(b), "RE-2026-00417", "RE-2026-00418", 1))
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--schema", version, e.in)
	held := e.job("b.txt")
	if held.State != store.StateHeld || held.PrevJobKey != oldJob.JobKey {
		t.Fatalf("changed b.txt: state %s prev %s, want held after %s", held.State, held.PrevJobKey, oldJob.JobKey)
	}

	// Only a held job can be accepted.
	if r := e.invx(false, "review", "accept", "a.txt"); r.code != cmd.ExitError || !strings.Contains(r.stderr, "is succeeded, not held") {
		t.Errorf("accept a succeeded job: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.invx(false, "review", "accept"); r.code != cmd.ExitUsage {
		t.Errorf("accept without KEY: exit %d", r.code)
	}

	e.advance(time.Hour)
	r := e.must(0, "review", "accept", held.JobKey[:10])
	if !strings.Contains(r.stderr, "committed "+held.JobKey[:12]) || !strings.Contains(r.stderr, "superseded") {
		t.Errorf("accept stderr:\n%s", r.stderr)
	}

	// Durable state: the new job committed, the old result superseded by
	// it, the old result's outbox events untouched.
	newJob := e.job(held.JobKey)
	if newJob.State != store.StateSucceeded || newJob.JobKey == oldJob.JobKey {
		t.Fatalf("accepted job: %s %s", newJob.JobKey, newJob.State)
	}
	newRes, err := st.GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: newJob.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	again, err := st.GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: oldJob.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != oldRes.ID || again.SupersededBy != newRes.ID || string(again.JSON) != string(oldRes.JSON) {
		t.Errorf("old result: id %d superseded_by %d, want id %d superseded by %d", again.ID, again.SupersededBy, oldRes.ID, newRes.ID)
	}
	evs, err := st.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "default", JobKey: oldJob.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(oldEvents) {
		t.Errorf("old job's outbox: %d events, had %d", len(evs), len(oldEvents))
	}
	if evs, _ := st.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "default", JobKey: newJob.JobKey}); len(evs) == 0 {
		t.Errorf("new result published no outbox events")
	}

	// Export: one row per invoice, b.txt's the new one.
	rows, err := csv.NewReader(strings.NewReader(e.must(0, "export", "--schema", version).stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// The two versions' columns differ; both name these three.
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, name := range []string{"source_path", "job_key", "invoice_number"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("export header %v lacks %s", rows[0], name)
		}
	}
	var keys []string
	for _, row := range rows[1:] {
		if filepath.Base(row[col["source_path"]]) == "b.txt" {
			keys = append(keys, row[col["job_key"]])
			if row[col["invoice_number"]] != "RE-2026-00418" {
				t.Errorf("exported invoice number %q, want the new text's RE-2026-00418", row[1])
			}
		}
	}
	if len(rows) != 3 || !slices.Equal(keys, []string{newJob.JobKey}) {
		t.Errorf("export: %d rows, b.txt keys %v; want 2 rows and only %s", len(rows)-1, keys, newJob.JobKey)
	}

	// The path now names two jobs, the old text's and the new: show lists
	// both rather than guess; the new job's key shows it with its result.
	if r := e.invx(false, "show", "b.txt"); r.code != cmd.ExitUsage || !strings.Contains(r.stderr, newJob.JobKey[:12]) ||
		!strings.Contains(r.stderr, oldJob.JobKey[:12]) {
		t.Errorf("show b.txt: exit %d, want 2 listing both jobs; stderr:\n%s", r.code, r.stderr)
	}
	var shown struct {
		JobKey string `json:"job_key"`
		State  string `json:"state"`
		Result *struct {
			ID       int64           `json:"id"`
			Document json.RawMessage `json:"document"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(e.must(0, "show", "--json", newJob.JobKey[:12]).stdout), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.JobKey != newJob.JobKey || shown.State != "succeeded" || shown.Result == nil || shown.Result.ID != newRes.ID ||
		!strings.Contains(string(shown.Result.Document), "RE-2026-00418") {
		t.Errorf("show b.txt: %+v", shown)
	}

	// Nothing left to review; a rerun makes no new job and holds nothing.
	if items := reviewList(t, e, 0); len(items) != 0 {
		t.Errorf("review after accept: %+v", items)
	}
	r = e.must(0, "run", "--json", "--quiet", "--schema", version, e.in)
	if !strings.Contains(r.stdout, `"attempts":0`) || !strings.Contains(r.stdout, `"held":0`) {
		t.Errorf("rerun after accept: %s", r.stdout)
	}
}

func TestReviewDismiss(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	// Job states only (see TestReviewList): b.txt's result complete.
	e.must(0, "policy", "set", "--require", "supplier_name")
	e.mixed()
	ctx := context.Background()
	st := e.store()
	held := e.job("b.txt")

	if r := e.invx(false, "review", "dismiss", "a.txt"); r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "--reason is required") {
		t.Errorf("dismiss without --reason: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.invx(false, "review", "dismiss", "a.txt", "--reason", "  "); r.code != cmd.ExitUsage {
		t.Errorf("dismiss with a blank reason: exit %d", r.code)
	}
	if j := e.job("a.txt"); j.State != store.StateRejected {
		t.Fatalf("a usage error changed the job: %s", j.State)
	}

	r := e.must(0, "review", "dismiss", "a.txt", "--reason", "not an invoice: a delivery note")
	if !strings.Contains(r.stderr, "dismissed 16afdc8c7cf2 (a.txt)") {
		t.Errorf("stderr %q", r.stderr)
	}
	a := e.job("a.txt")
	if a.State != store.StateDismissed {
		t.Errorf("a.txt: state %s, want dismissed", a.State)
	}
	var reason string
	if err := sqlitetest.ReadOnly(t, st.(*sqlite.Store).Path()).QueryRowContext(ctx, `SELECT dismiss_reason FROM jobs WHERE id = ?`, a.ID).Scan(&reason); err != nil ||
		reason != "not an invoice: a delivery note" {
		t.Errorf("stored reason %q, %v", reason, err)
	}
	// Dismissing a held change leaves the old result current.
	e.must(0, "review", "dismiss", held.JobKey[:8], "--reason", "scan of the same invoice")
	if j := e.job(held.JobKey); j.State != store.StateDismissed {
		t.Errorf("held job: state %s, want dismissed", j.State)
	}
	if res, err := st.GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: held.PrevJobKey}); err != nil || res.SupersededBy != 0 {
		t.Errorf("old result after dismissing the change: %+v, %v", res, err)
	}

	items := reviewList(t, e, cmd.ExitNeedsReview)
	if len(items) != 1 || items[0].SourcePath != "c.txt" {
		t.Errorf("review after dismissing a.txt and the b.txt change: %+v", items)
	}
	// Twice, or a job that needs no review: an error, nothing changed.
	if r := e.invx(false, "review", "dismiss", "a.txt", "--reason", "again"); r.code != cmd.ExitError ||
		!strings.Contains(r.stderr, "is dismissed") {
		t.Errorf("dismiss twice: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.invx(false, "review", "dismiss", held.PrevJobKey, "--reason", "x"); r.code != cmd.ExitError {
		t.Errorf("dismiss a succeeded job: exit %d", r.code)
	}
	if j := e.job(held.PrevJobKey); j.State != store.StateSucceeded {
		t.Errorf("succeeded job became %s", j.State)
	}
	if r := e.invx(false, "review", "dismiss", "nope.txt", "--reason", "x"); r.code != cmd.ExitError ||
		!strings.Contains(r.stderr, "not found") {
		t.Errorf("dismiss an unknown job: exit %d, stderr %q", r.code, r.stderr)
	}
}
