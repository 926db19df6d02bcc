package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// v2Batch writes the two invoice-v2 documents (acme, which states a PO
// number, and credit, which does not) and the script that answers them.
func (e *batchEnv) v2Batch() (script string) {
	e.t.Helper()
	for _, name := range []string{"acme.txt", "credit.txt"} {
		b, err := os.ReadFile(filepath.Join(v2Dir, name))
		if err != nil {
			e.t.Fatal(err)
		}
		e.write(name, string(b))
	}
	abs, err := filepath.Abs(v2Dir)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.script("v2model.sh", "#!/bin/sh\ntext=$(cat)\ncase \"$text\" in\n"+
		"*RE-2026-0042*) cat '"+filepath.Join(abs, "acme.json")+"' ;;\n"+
		"*CN-7*) cat '"+filepath.Join(abs, "credit.json")+"' ;;\n"+
		"*) echo 'no answer' >&2; exit 2 ;;\nesac\n")
}

// script writes an executable beside the input folder.
func (e *batchEnv) script(name, body string) string {
	e.t.Helper()
	p := filepath.Join(filepath.Dir(e.in), name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// --require replaces the policy for one run: a PO number required flags
// the credit note, which has none; an unknown field is a usage error that
// names it, and so is an empty list.
func TestRunRequireFlagsMissingPO(t *testing.T) {
	t.Parallel()
	for _, driver := range drivers(t) {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			e := newBatchEnv(t, driver)
			script := e.v2Batch()
			run := []string{"run", "--quiet", "--schema", "invoice-v2", "--provider", "command", "--command", script}

			r := e.must(2, append(run, "--require", "po_number,totl_minor", e.in)...)
			if !strings.Contains(r.stderr, `"totl_minor"`) || !strings.Contains(r.stderr, "Try:") {
				t.Errorf("unknown field: stderr does not name it with a Try line:\n%s", r.stderr)
			}
			e.must(2, append(run, "--require", " ", e.in)...)
			e.must(2, "work", "--require", "nope")

			e.must(3, append(run, "--require", "po_number,total_minor", e.in)...)
			if diff := cmp.Diff([]string{"credit.txt: incomplete"}, e.openReview(e.store())); diff != "" {
				t.Errorf("open review (-want +got):\n%s", diff)
			}
		})
	}
}

// invx policy set stores the tenant's policy, show prints it (or the
// defaults), and a run without --require applies it.
func TestPolicySetShowAndApply(t *testing.T) {
	t.Parallel()
	for _, driver := range drivers(t) {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			e := newBatchEnv(t, driver)
			script := e.v2Batch()
			e.env = map[string]string{"USER": "alice"}

			// The database is created by set, so show first needs one.
			e.must(0, "run", "--quiet", "--schema", "invoice-v2", "--provider", "command", "--command", script,
				filepath.Join(e.in, "acme.txt"))
			r := e.must(0, "policy", "show")
			want := "tenant default has no stored policy; the schema's default applies\n" +
				"  default for invoice-summary-v1: supplier_name, invoice_number, currency, total_minor\n" +
				"  default for invoice-v2: document_type, supplier_name, invoice_number, issue_date, currency, total_minor\n"
			if r.stdout != want {
				t.Errorf("policy show without a policy:\n%s\nwant:\n%s", r.stdout, want)
			}

			e.must(2, "policy", "set")
			e.must(2, "policy", "set", "--require", "total,po_number")
			e.must(0, "policy", "set", "--require", "po_number, total_minor,po_number")
			var got struct {
				Tenant   string              `json:"tenant"`
				Require  []string            `json:"require"`
				Actor    string              `json:"actor"`
				Defaults map[string][]string `json:"defaults"`
			}
			r = e.must(0, "policy", "show", "--json")
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("policy show --json: %v\n%s", err, r.stdout)
			}
			if got.Tenant != "default" || !reflect.DeepEqual(got.Require, []string{"po_number", "total_minor"}) || got.Actor != "alice" {
				t.Errorf("stored policy = %+v, want po_number,total_minor by alice", got)
			}
			if len(got.Defaults[schema.V2]) == 0 {
				t.Errorf("policy show --json lacks the defaults: %s", r.stdout)
			}
			e.must(0, "policy", "set", "--require", "po_number", "--actor", "bob")
			r = e.must(0, "policy", "show")
			if !strings.HasPrefix(r.stdout, "tenant default requires: po_number\n  set by bob at ") {
				t.Errorf("policy show after set:\n%s", r.stdout)
			}
			// Another tenant keeps the defaults.
			if r := e.must(0, "--tenant", "other", "policy", "show"); !strings.Contains(r.stdout, "no stored policy") {
				t.Errorf("tenant other sees a policy:\n%s", r.stdout)
			}

			// The policy applies to a run without --require: the credit
			// note has no PO number.
			e.must(3, "run", "--quiet", "--schema", "invoice-v2", "--provider", "command", "--command", script, e.in)
			if diff := cmp.Diff([]string{"credit.txt: incomplete"}, e.openReview(e.store())); diff != "" {
				t.Errorf("open review under the stored policy (-want +got):\n%s", diff)
			}
		})
	}
}

// An answer whose sums do not add up, from a provider that will not be
// asked again, is committed with an arithmetic reason and held; with a
// repair left it is re-asked instead, and only the last allowed answer is
// committed for review.
func TestArithmeticCommittedForReviewWhenNotRepaired(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		repair   string
		attempts []attemptRow
		open     []string
	}{
		{"repair 0", "0", []attemptRow{{No: 1, Outcome: "succeeded"}}, []string{"acme.txt: arithmetic"}},
		{"last repair", "1", []attemptRow{{No: 1, Outcome: "rejected", Category: "arithmetic"}, {No: 2, Outcome: "succeeded"}},
			[]string{"acme.txt: arithmetic"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newBatchEnv(t, "sqlite")
			e.write("acme.txt", v2Source)
			answer := filepath.Join(filepath.Dir(e.in), "bad.json")
			if err := os.WriteFile(answer, []byte(v2BadSums), 0o644); err != nil {
				t.Fatal(err)
			}
			script := e.script("bad.sh", "#!/bin/sh\ncat >/dev/null\ncat '"+answer+"'\n")
			r := e.must(3, "run", "--quiet", "--json", "--schema", "invoice-v2", "--provider", "command", "--command", script,
				"--repair", tc.repair, e.in)
			if s := decodeSummary(t, r); !reflect.DeepEqual(s.Final.ReviewOpen, map[string]int{"arithmetic": 1}) {
				t.Errorf("summary open reasons = %v, want arithmetic 1", s.Final.ReviewOpen)
			}
			got := v2Attempts(t, e.db)
			for i := range got {
				got[i].PromptHash, got[i].Provider = "", ""
			}
			if diff := cmp.Diff(tc.attempts, got); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			checkV2Result(t, e.db, v2BadSums)
			st := e.store()
			if diff := cmp.Diff(tc.open, e.openReview(st)); diff != "" {
				t.Errorf("open review (-want +got):\n%s", diff)
			}
			if got := e.committedEvents(st)["acme.txt"]; got != store.OutboxHeld {
				t.Errorf("invoice.committed is %q, want held", got)
			}
		})
	}
}

// An LLM with a repair left is asked again about sums that do not add up
// (arithmetic is repairable); the corrected answer is committed with
// nothing to review, and the run exits 0.
func TestArithmeticReaskedWhenRepairLeft(t *testing.T) {
	t.Parallel()
	e := newBatchEnv(t, "sqlite")
	e.write("acme.txt", v2Source)
	f := newV2Fake(t, v2OpenAI, v2BadSums, v2Answer)
	e.env = v2OpenAI.env
	args := append([]string{"run", "--quiet", "--schema", schema.V2, "--concurrency", "1"}, v2OpenAI.args(f.srv.URL)...)
	e.must(0, append(args, e.in)...)
	if n := len(f.Calls()); n != 2 {
		t.Errorf("requests = %d, want 2 (the bad sums re-asked)", n)
	}
	checkV2Result(t, e.db, v2Answer)
	st := e.store()
	if got := e.openReview(st); len(got) != 0 {
		t.Errorf("open review after a repaired answer: %v", got)
	}
	if got := e.committedEvents(st)["acme.txt"]; got != store.OutboxPending {
		t.Errorf("invoice.committed is %q, want pending", got)
	}
}

// invx stats and the run's metrics file count the open reasons per
// tenant and reason.
func TestReviewOpenInStatsAndMetrics(t *testing.T) {
	t.Parallel()
	e := newBatchEnv(t, "sqlite")
	e.writeNightly()
	prom := filepath.Join(filepath.Dir(e.in), "invx.prom")
	e.must(3, "run", "--quiet", "--schema", "invoice-summary-v1", "--concurrency", "1", "--metrics-file", prom, e.in)
	b, err := os.ReadFile(prom)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`invx_review_open{reason="incomplete",tenant="default"} 1`,
		`invx_review_open{reason="possible_duplicate",tenant="default"} 1`,
		`invx_review_open{reason="arithmetic",tenant="default"} 0`,
		`invx_review_opened_total{reason="incomplete",tenant="default"} 1`,
		`invx_review_opened_total{reason="possible_duplicate",tenant="default"} 1`,
	} {
		if !strings.Contains(string(b), want+"\n") {
			t.Errorf("metrics file lacks %s", want)
		}
	}

	var rep struct {
		Tenants []struct {
			Tenant     string         `json:"tenant"`
			ReviewOpen map[string]int `json:"review_open"`
		} `json:"tenants"`
	}
	r := e.must(0, "stats", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, r.stdout)
	}
	if len(rep.Tenants) != 1 || !reflect.DeepEqual(rep.Tenants[0].ReviewOpen, map[string]int{"incomplete": 1, "possible_duplicate": 1}) {
		t.Errorf("stats --json review_open = %+v", rep.Tenants)
	}
	r = e.must(0, "stats", "--format", "prom")
	for _, want := range []string{
		`invx_store_review_open{tenant="default",reason="incomplete"} 1`,
		`invx_store_review_open{tenant="default",reason="possible_duplicate"} 1`,
		`invx_store_review_open{tenant="default",reason="arithmetic"} 0`,
	} {
		if !strings.Contains(r.stdout, want+"\n") {
			t.Errorf("stats --format prom lacks %s", want)
		}
	}
	r = e.must(0, "stats")
	if !strings.Contains(r.stdout, "  review open              2 (incomplete 1, possible_duplicate 1): invx review\n") {
		t.Errorf("stats table lacks the open reasons:\n%s", r.stdout)
	}
}
