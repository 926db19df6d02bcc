package cmd_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/review"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// batchDir is the folder of the review desk's nightly batch.
func (e *opsEnv) batchDir() string { return filepath.Join(e.tmp, "batch") }

// deskCommit writes text to rel in the batch folder and commits answer for
// it as the runner does from issue 14 on: enqueued as invx run would
// (source system, display path), leased, validated against the normalised
// text with ValidateReviewable, and committed with the reasons
// review.Assess finds under the tenant's policy (else the version's
// default) and the runner's outbox events. It returns the job key and the
// reasons the commit opened (duplicates included).
func (e *opsEnv) deskCommit(rel, text, version, answer string) (string, []string) {
	e.t.Helper()
	ctx := context.Background()
	p := filepath.Join(e.batchDir(), rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
	norm, err := extract.Normalize([]byte(text))
	if err != nil {
		e.t.Fatal(err)
	}
	digest := extract.Digest(norm)
	key, err := extract.JobKey("default", extract.Transformation, version, digest)
	if err != nil {
		e.t.Fatal(err)
	}
	st := e.store()
	now := e.clock()
	_, err = st.Enqueue(ctx, &store.EnqueueParams{Tenant: "default", RunID: "desk", Transformation: extract.Transformation,
		SchemaVersion: version, OnChange: store.OnChangeHold, Now: now,
		Docs: []store.Document{{SourceSystem: "fs:" + e.batchDir(), Path: rel, Digest: digest, JobKey: key, Text: norm,
			DisplayPath: p, Encoding: "utf-8"}}})
	if err != nil {
		e.t.Fatal(err)
	}
	ls, err := st.Claim(ctx, &store.ClaimParams{Tenant: "default", Owner: "desk", RunID: "desk", Limit: 1, LeaseFor: time.Minute,
		Now: now, SchemaVersion: version})
	if err != nil || len(ls) != 1 || ls[0].JobKey != key {
		e.t.Fatalf("claim %s: %d leases, %v", rel, len(ls), err)
	}
	v, err := schema.Lookup(version)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := v.ValidateReviewable([]byte(answer), norm)
	if err != nil {
		e.t.Fatalf("answer for %s: %v", rel, err)
	}
	require := review.DefaultRequire(version)
	if pol, err := st.GetPolicy(ctx, &store.GetPolicyParams{Tenant: "default"}); err == nil {
		require = pol.Require
	}
	l := ls[0]
	cr, err := st.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey, Token: l.Token,
		AttemptID: l.AttemptID, RunID: "desk", SchemaVersion: version, Result: res.JSON, Outbox: deskEvents(l, res),
		Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "desk"}, Now: now,
		Review: review.Assess(res, require)})
	if err != nil {
		e.t.Fatalf("commit %s: %v", rel, err)
	}
	return key, cr.Reasons
}

// deskEvents are the events the runner writes for a commit: one per
// action item and invoice.committed.
func deskEvents(l *store.Lease, res *schema.Result) []store.OutboxInput {
	var evs []store.OutboxInput
	for _, a := range res.Actions {
		b, _ := json.Marshal(map[string]any{"event": "invoice.action", "tenant": l.Tenant, "job_key": l.JobKey, "action": a})
		evs = append(evs, store.OutboxInput{ActionID: a.ID, Kind: a.Kind, Payload: b})
	}
	b, _ := json.Marshal(map[string]any{"event": store.EventCommitted, "tenant": l.Tenant, "job_key": l.JobKey,
		"schema_version": res.Version, "source_path": l.SourcePath, "result": json.RawMessage(res.JSON)})
	return append(evs, store.OutboxInput{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: b})
}

func readV2(name string) string {
	b, err := os.ReadFile(filepath.Join(v2Dir, name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// nordlichtText is an invoice without a total line: its answer states net
// and tax but no total (incomplete under the default policy).
const nordlichtText = `Nordlicht Druckerei GmbH
Rechnung Nr. ND-2026-118
Rechnungsdatum: 03.03.2026
Nettobetrag: EUR 400,00
MwSt 19%: EUR 76,00
`

func nordlichtAnswer() string {
	b, err := json.Marshal(map[string]any{"schema_version": "invoice-v2", "document_type": "invoice",
		"title": "Nordlicht invoice ND-2026-118", "bullets": []string{"No total stated."},
		"supplier_name": "Nordlicht Druckerei GmbH", "supplier_vat_id": nil, "supplier_iban": nil, "buyer_name": nil,
		"invoice_number": "ND-2026-118", "issue_date": "2026-03-03", "due_date": nil, "po_number": nil, "currency": "EUR",
		"net_minor": 40000, "tax_minor": 7600, "total_minor": nil, "amount_due_minor": nil,
		"tax_lines": []any{}, "line_items": []any{}, "lines_complete": false, "action_items": []any{},
		"evidence": map[string]any{"supplier_name": "Nordlicht Druckerei GmbH", "supplier_vat_id": nil, "supplier_iban": nil,
			"buyer_name": nil, "invoice_number": "Rechnung Nr. ND-2026-118", "issue_date": "Rechnungsdatum: 03.03.2026",
			"due_date": nil, "po_number": nil, "currency": "Nettobetrag: EUR 400,00", "net_minor": "Nettobetrag: EUR 400,00",
			"tax_minor": "MwSt 19%: EUR 76,00", "total_minor": nil, "amount_due_minor": nil}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// deskBatch is the keys of the nightly batch setupDesk commits.
type deskBatch struct {
	acme, rescan, credit, nordlicht string
}

// setupDesk commits the nightly batch, one hour after t0:
//
//	acme.txt         a complete invoice, IBAN included: nothing to review
//	acme-rescan.txt  the same invoice scanned again (one more line):
//	                 possible_duplicate of acme.txt, its events held
//	credit.txt       a complete credit note: nothing to review
//	nordlicht.txt    an invoice without a total: incomplete, events held
//
// and leaves the clock at t0+2h.
func setupDesk(t *testing.T, e *opsEnv) deskBatch {
	t.Helper()
	var b deskBatch
	want := func(what string, got []string, reasons ...string) {
		if strings.Join(got, ",") != strings.Join(reasons, ",") {
			t.Fatalf("%s: reasons %v, want %v", what, got, reasons)
		}
	}
	e.advance(time.Hour)
	var rs []string
	b.acme, rs = e.deskCommit("acme.txt", readV2("acme.txt"), schema.V2, readV2("acme.json"))
	want("acme", rs)
	b.credit, rs = e.deskCommit("credit.txt", readV2("credit.txt"), schema.V2, readV2("credit.json"))
	want("credit", rs)
	b.rescan, rs = e.deskCommit("acme-rescan.txt", readV2("acme.txt")+"Eingescannt am 02.03.2026\n", schema.V2, readV2("acme.json"))
	want("rescan", rs, store.ReasonPossibleDuplicate)
	b.nordlicht, rs = e.deskCommit("nordlicht.txt", nordlichtText, schema.V2, nordlichtAnswer())
	want("nordlicht", rs, store.ReasonIncomplete)
	e.advance(time.Hour)
	return b
}
