package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/invx/invx/store"
)

// A shadow rollout end to end: invx run --schema invoice-v2 --shadow
// commits v2 results that publish nothing (no invoice.committed, no action
// events), are left out of export and of the committed count, and are what
// compare reads. A later run without --shadow finds them already committed
// and leaves them shadow (the documents were published by the version in
// use); only documents it commits itself publish. Jobs a shadow run queued
// but did not work stay shadow when invx work takes them.
func TestShadowRollout(t *testing.T) {
	t.Parallel()
	e := setupV2(t, "--shadow")
	ctx := t.Context()
	st := e.store()
	events := func(ref string) int {
		t.Helper()
		evs, err := st.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "default", JobKey: e.job(ref).JobKey})
		if err != nil {
			t.Fatal(err)
		}
		return len(evs)
	}
	shadow := func(ref string) bool {
		t.Helper()
		res, err := st.GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: e.job(ref).JobKey})
		if err != nil {
			t.Fatalf("result of %s: %v", ref, err)
		}
		return res.Shadow
	}
	committed := func() int {
		t.Helper()
		var out struct {
			Tenants []struct {
				Committed     int `json:"committed"`
				OutboxPending int `json:"outbox_pending"`
			} `json:"tenants"`
		}
		if err := json.Unmarshal([]byte(e.must(0, "stats", "--json").stdout), &out); err != nil || len(out.Tenants) != 1 {
			t.Fatalf("stats: %v %+v", err, out)
		}
		return out.Tenants[0].Committed
	}
	// acme has two action items and would publish three events.
	for _, ref := range []string{"acme.txt", "credit.txt"} {
		if !shadow(ref) || events(ref) != 0 {
			t.Errorf("%s after the shadow run: shadow %v, %d events; want shadow, none", ref, shadow(ref), events(ref))
		}
	}
	if n := committed(); n != 0 {
		t.Errorf("stats counts %d shadow results as committed", n)
	}
	if rows := readCSVWith(t, e.must(0, "export", "--schema", "invoice-v2").stdout, exportHeaderV2); len(rows) != 0 {
		t.Errorf("export holds shadow results: %v", rows)
	}

	// The same folder without --shadow, plus a new invoice.
	b, err := os.ReadFile(filepath.Join(v2Dir, "acme.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.v2In(), "acme-copy.txt"), append(b, "Kopie\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	e.must(0, "run", "--quiet", "--schema", "invoice-v2", "--provider", "command", "--command", e.v2Script(), e.v2In())
	for _, ref := range []string{"acme.txt", "credit.txt"} {
		if !shadow(ref) || events(ref) != 0 {
			t.Errorf("%s after a live rerun: shadow %v, %d events; want shadow, none", ref, shadow(ref), events(ref))
		}
	}
	if shadow("acme-copy.txt") || events("acme-copy.txt") != 3 {
		t.Errorf("new document of the live run: shadow %v, %d events; want live, 3", shadow("acme-copy.txt"), events("acme-copy.txt"))
	}
	if n := committed(); n != 1 {
		t.Errorf("stats: %d committed, want 1", n)
	}
}

// A shadow run interrupted before it worked its jobs (here: enqueue only)
// leaves shadow jobs; invx work commits them as shadow.
func TestShadowJobsWorkedLater(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.copyV2Inputs()
	e.must(0, "run", "--quiet", "--enqueue-only", "--shadow", "--schema", "invoice-v2", e.v2In())
	e.must(0, "work", "--quiet", "--provider", "command", "--command", e.v2Script())
	st := e.store()
	for _, ref := range []string{"acme.txt", "credit.txt"} {
		j := e.job(ref)
		res, err := st.GetResult(t.Context(), &store.GetResultParams{Tenant: "default", JobKey: j.JobKey})
		if err != nil {
			t.Fatal(err)
		}
		evs, err := st.ListOutbox(t.Context(), &store.ListOutboxParams{Tenant: "default", JobKey: j.JobKey})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Shadow || len(evs) != 0 {
			t.Errorf("%s: shadow %v, %d events; want shadow, none", ref, res.Shadow, len(evs))
		}
	}
}
