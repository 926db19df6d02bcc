package cmd_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/store"
)

// completions runs cobra's hidden __complete command the way a shell's
// completion script does and returns the offered values (descriptions cut
// off) and the directive line.
func completions(t *testing.T, e *opsEnv, args ...string) (vals []string, directive string) {
	t.Helper()
	r := e.invx(false, append([]string{"__complete"}, args...)...)
	if r.code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		vals = append(vals, v)
	}
	return vals, lines[len(lines)-1]
}

func TestCompleteFlagValues(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"export", "--format", ""}, []string{"csv", "jsonl"}},
		{[]string{"stats", "--format", ""}, []string{"table", "json", "prom"}},
		{[]string{"run", "--provider", ""}, []string{"auto", "einvoice", "rules", "openai", "anthropic", "ollama", "command", "replay"}},
		{[]string{"eval", "--provider", ""}, []string{"auto", "einvoice", "rules", "openai", "anthropic", "ollama", "command", "replay"}},
		{[]string{"jobs", "--state", ""}, []string{"queued", "running", "retry_wait", "succeeded", "rejected", "failed", "held", "dismissed"}},
		{[]string{"retry", "--state", ""}, []string{"failed", "rejected"}},
		{[]string{"jobs", "--log-level", ""}, []string{"debug", "info", "warn", "error"}},
		{[]string{"run", "--schema", ""}, []string{"invoice-summary-v1", "invoice-v2"}},
		{[]string{"export", "--schema", ""}, []string{"invoice-summary-v1", "invoice-v2"}},
		{[]string{"run", "--on-change", ""}, []string{"hold", "process"}},
	} {
		got, dir := completions(t, e, tc.args...)
		if diff := cmp.Diff(tc.want, got); diff != "" || dir != ":4" {
			t.Errorf("complete %v (-want +got):\n%s\ndirective %s, want :4 (no file completion)", tc.args, diff, dir)
		}
	}
}

// Job keys and paths come from the database, per tenant, filtered by the
// states the command acts on; a database that does not exist completes
// nothing and is not created.
func TestCompleteJobs(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.mixed() // a.txt rejected, b.txt succeeded + held, c.txt failed
	key := func(path, state string) string {
		t.Helper()
		for _, j := range e.jobsAt(path) {
			if j.State == state {
				return j.JobKey[:12]
			}
		}
		t.Fatalf("no %s job at %s", state, path)
		return ""
	}
	a, bOld, bHeld, c := key("a.txt", "rejected"), key("b.txt", "succeeded"), key("b.txt", "held"), key("c.txt", "failed")
	pa, pb, pc := filepath.Join(e.in, "a.txt"), filepath.Join(e.in, "b.txt"), filepath.Join(e.in, "c.txt")
	sorted := func(s ...string) []string { slices.Sort(s); return s }

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"show all", []string{"show", ""}, sorted(a, bOld, bHeld, c, pa, pb, pc)},
		{"show key prefix", []string{"show", a[:4]}, []string{a}},
		{"show path prefix", []string{"show", filepath.Join(e.in, "b")}, []string{pb}},
		{"show one arg only", []string{"show", a, ""}, nil},
		{"retry failed or rejected", []string{"retry", ""}, sorted(a, c, pa, pc)},
		{"retry skips given", []string{"retry", a, ""}, sorted(c, pa, pc)},
		{"accept held", []string{"review", "accept", ""}, sorted(bHeld, pb)},
		{"dismiss", []string{"review", "dismiss", ""}, sorted(a, bHeld, c, pa, pb, pc)},
		{"other tenant", []string{"--tenant", "acme", "show", ""}, nil},
	} {
		got, dir := completions(t, e, tc.args...)
		slices.Sort(got)
		if diff := cmp.Diff(tc.want, got); diff != "" || dir != ":4" {
			t.Errorf("%s: complete %v (-want +got):\n%s\ndirective %s", tc.name, tc.args, diff, dir)
		}
	}

	missing := filepath.Join(e.tmp, "nope.db")
	if got, _ := completions(t, e, "--db", missing, "show", ""); len(got) != 0 {
		t.Errorf("missing database completed %v", got)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("completion created %s (%v)", missing, err)
	}
}

// jobsAt lists the default tenant's jobs at a path, straight from the store.
func (e *opsEnv) jobsAt(path string) []*store.Job {
	e.t.Helper()
	jobs, err := e.store().FindJobs(e.t.Context(), &store.FindJobsParams{Tenant: "default", Path: path})
	if err != nil {
		e.t.Fatal(err)
	}
	return jobs
}
