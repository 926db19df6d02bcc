package cmd_test

import (
	"strings"
	"testing"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/store"
)

// work --schema takes only that version's jobs, and finishes when they
// are done although the other version's jobs are still queued.
func TestWorkSchema(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.copyV2Inputs()
	e.must(0, "run", "--quiet", "--enqueue-only", "--schema", "invoice-v2", e.v2In())
	e.must(0, "run", "--quiet", "--enqueue-only", "--schema", "invoice-summary-v1", e.v2In())
	states := func() map[string]int {
		t.Helper()
		jobs, err := e.store().ListJobs(t.Context(), &store.ListJobsParams{Tenant: "default"})
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, j := range jobs {
			n[j.SchemaVersion+" "+j.State]++
		}
		return n
	}
	// The v2 script cannot answer as v1: a v1 job it took would fail.
	e.must(0, "work", "--quiet", "--schema", "invoice-v2", "--provider", "command", "--command", e.v2Script())
	got := states()
	if got["invoice-v2 succeeded"] != 2 || got["invoice-summary-v1 queued"] != 2 || len(got) != 2 {
		t.Fatalf("after work --schema invoice-v2: %v", got)
	}
	e.must(0, "work", "--quiet", "--provider", "command", "--command", e.v1Script())
	if got := states(); got["invoice-summary-v1 succeeded"] != 2 || len(got) != 2 {
		t.Errorf("after work: %v", got)
	}
	r := e.invx(false, "work", "--schema", "invoice-v9")
	if r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "released: ") {
		t.Errorf("--schema invoice-v9: exit %d, stderr %q", r.code, r.stderr)
	}
}
