package cmd_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
)

// A no-op rerun counts its documents' final states from what its enqueue
// saw for the settled ones (succeeded, dismissed) and reads the others
// again: its summary and exit code must be those of a rerun that reads
// everything, and the figures a person derives from the database, over a
// mix of committed (with open review reasons: incomplete, possible
// duplicate), duplicate, rejected, failed, held and dismissed documents (a
// real SQLite file, and PostgreSQL when the tests have one).
func TestNoopRerunSummary(t *testing.T) {
	t.Parallel()
	for _, driver := range drivers(t) {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			testNoopRerunSummary(t, driver)
		})
	}
}

func testNoopRerunSummary(t *testing.T, driver string) {
	e := setupOps(t)
	if driver == "postgres" {
		e.db = freshPostgres(t)
	}
	args := e.rerunScenario()
	calls := e.calls()

	summary := func(extra ...string) map[string]any {
		t.Helper()
		r := e.must(cmd.ExitNeedsReview, append(append(args, extra...), e.in)...)
		var m map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
			t.Fatalf("run --json: %v\n%s", err, r.stdout)
		}
		for _, k := range []string{"run_id", "wall_ms", "trace_id"} {
			delete(m, k)
		}
		return m
	}
	reading := summary("--rehash")
	first, second := summary(), summary() // the first records the stats, the second uses them
	if diff := cmp.Diff(reading, first); diff != "" {
		t.Errorf("stat rerun (recording) differs from the reading rerun (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(reading, second); diff != "" {
		t.Errorf("stat rerun differs from the reading rerun (-want +got):\n%s", diff)
	}
	want := map[string]any{
		"files_seen": 6.0, "new_jobs": 0.0, "duplicates_suppressed": 1.0, "already_committed": 1.0,
		"still_needs_review": 2.0, "held_changed": 1.0, "dismissed": 1.0, "attempts": 0.0,
		"final": map[string]any{"succeeded": 1.0, "rejected": 1.0, "rejected_by_category": map[string]any{"unknown_field": 1.0},
			"failed": 1.0, "held": 1.0, "dismissed": 1.0, "unfinished": 0.0, "review": 1.0,
			"review_open": map[string]any{"incomplete": 1.0, "possible_duplicate": 1.0}},
	}
	for k, w := range want {
		if diff := cmp.Diff(w, second[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	if n := e.calls(); n != calls {
		t.Errorf("reruns called the model %d times", n-calls)
	}
}

// rerunScenario is the folder the rerun tests run again: a.txt rejected,
// b.txt held, c.txt failed, d.txt committed with a duplicate d-copy.txt,
// e.txt failed and then dismissed. It runs the folder once and ages its
// files (so that the next run records their stats), and returns the run's
// arguments without the folder.
func (e *opsEnv) rerunScenario() []string {
	e.t.Helper()
	script := e.mixed()
	e.write("d.txt", "Invoice 5\nTotal 10.00 EUR\n")
	e.write("d-copy.txt", "Invoice 5\nTotal 10.00 EUR\n")
	e.write("e.txt", "Invoice 6\nFAILME\nTotal 11.00 EUR\n")
	args := []string{"run", "--json", "--quiet", "--schema", "invoice-summary-v1", "--repair", "0",
		"--provider", "command", "--command", script}
	e.must(cmd.ExitNeedsReview, append(args, e.in)...)
	e.must(0, "review", "dismiss", "e.txt", "--reason", "not ours")
	ageFiles(e.t, e.in)
	return args
}
