package cmd_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
)

// invx jobs on a terminal, piped and as JSON, over a database with a job in
// every state a batch leaves behind.
func TestJobsOutputs(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.mixed()
	for _, tc := range []struct {
		golden string
		tty    bool
		args   []string
	}{
		{"ops-jobs-tty.golden", true, nil},
		{"ops-jobs-piped.golden", false, nil},
		{"ops-jobs-json.golden", false, []string{"--json"}},
		{"ops-jobs-all-tenants-tty.golden", true, []string{"--all-tenants"}},
		{"ops-jobs-piped-no-headers.golden", false, []string{"--no-headers"}},
	} {
		r := e.invx(tc.tty, append([]string{"jobs"}, tc.args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("jobs %v: exit %d, stderr %q", tc.args, r.code, r.stderr)
		}
		checkGolden(t, tc.golden, scrub(r.stdout, e.tmp))
	}

	// Piped output is a header line, then one tab-separated line per job,
	// as gh and kubectl print; --no-headers drops the header.
	r := e.must(0, "jobs")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 5 || lines[0] != "KEY\tSTATE\tSUPPLIER\tINVOICE\tTOTAL\tATTEMPTS\tLAST ERROR\tAGE\tPATH" {
		t.Fatalf("piped: %d lines, want a header and 4 jobs:\n%s", len(lines), r.stdout)
	}
	for _, l := range lines {
		if n := strings.Count(l, "\t"); n != 8 {
			t.Errorf("piped line %q has %d tabs, want 8", l, n)
		}
	}
	if r := e.must(0, "jobs", "--no-headers"); r.stdout != strings.Join(lines[1:], "\n")+"\n" {
		t.Errorf("--no-headers:\n%s\nwant the piped lines without the header", r.stdout)
	}

	// --json carries full keys that the store knows.
	var items []struct {
		JobKey string `json:"job_key"`
		State  string `json:"state"`
		Path   string `json:"source_path"`
	}
	if err := json.Unmarshal([]byte(e.must(0, "jobs", "--json").stdout), &items); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, it := range items {
		if j := e.job(it.JobKey); j.State != it.State {
			t.Errorf("%s: listed %s, stored %s", it.JobKey, it.State, j.State)
		}
		got[it.Path+" "+it.State] = it.State
	}
	for _, want := range []string{"a.txt rejected", "b.txt succeeded", "b.txt held", "c.txt failed"} {
		if _, ok := got[want]; !ok {
			t.Errorf("jobs --json lacks %s: %v", want, got)
		}
	}
}

func TestJobsFilters(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.mixed()
	paths := func(r result) []string {
		var out []string
		for l := range strings.SplitSeq(strings.TrimSuffix(r.stdout, "\n"), "\n") {
			if l != "" && !strings.HasPrefix(l, "KEY\t") {
				f := strings.Split(l, "\t")
				out = append(out, filepath.Base(f[8])+":"+f[1])
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"state", []string{"--state", "failed"}, []string{"c.txt:failed"}},
		{"states", []string{"--state", "held", "--state", "rejected"}, []string{"b.txt:held", "a.txt:rejected"}},
		{"states comma", []string{"--state", "held,rejected"}, []string{"b.txt:held", "a.txt:rejected"}},
		// The held job changed 2h ago, the others 3h ago.
		{"since", []string{"--since", "150m"}, []string{"b.txt:held"}},
		{"since days", []string{"--since", "1d"}, []string{"b.txt:held", "c.txt:failed", "b.txt:succeeded", "a.txt:rejected"}},
		{"other tenant", []string{"--tenant", "acme"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.must(0, append([]string{"jobs"}, tc.args...)...)
			if diff := cmp.Diff(tc.want, paths(r)); diff != "" {
				t.Errorf("jobs %v (-want +got):\n%s", tc.args, diff)
			}
		})
	}

	r := e.must(0, "jobs", "--limit", "2")
	if n := len(paths(r)); n != 2 || !strings.Contains(r.stderr, "showing the newest 2 jobs") {
		t.Errorf("--limit 2: %d rows, stderr %q", n, r.stderr)
	}
	if r := e.must(0, "jobs", "--tenant", "acme"); r.stderr != "no jobs\n" {
		t.Errorf("empty list: stderr %q", r.stderr)
	}
	if r := e.must(0, "jobs", "--tenant", "acme", "--json"); r.stdout != "[]\n" {
		t.Errorf("empty --json: %q", r.stdout)
	}
	for _, bad := range [][]string{{"--state", "done"}, {"--since", "3x"}, {"--since", "-1h"}, {"--limit", "-1"}, {"extra"}} {
		if r := e.invx(false, append([]string{"jobs"}, bad...)...); r.code != cmd.ExitUsage {
			t.Errorf("jobs %v: exit %d, want %d", bad, r.code, cmd.ExitUsage)
		}
	}
	// A mistyped --db is reported, not created.
	r = e.invx(false, "--db", filepath.Join(e.tmp, "nope.db"), "jobs")
	if r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "no such database") {
		t.Errorf("missing db: exit %d, stderr %q", r.code, r.stderr)
	}
}

// The invoice columns carry the committed result's facts: supplier,
// invoice number, total with its currency.
func TestJobsInvoiceColumns(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	r := e.invx(true, "jobs")
	if r.code != 0 {
		t.Fatalf("jobs: exit %d: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`Northwind Traders Ltd +NW-2026-0117 +1320\.00 GBP`).MatchString(r.stdout) {
		t.Errorf("jobs lacks a.txt's supplier, number and total:\n%s", r.stdout)
	}
	checkGolden(t, "ops-jobs-invoice-tty.golden", scrub(r.stdout, e.tmp))
}
