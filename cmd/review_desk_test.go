package cmd_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// deskEntry mirrors the review-reason part of one invx review --json entry.
type deskEntry struct {
	JobKey      string `json:"job_key"`
	State       string `json:"state"`
	SourcePath  string `json:"source_path"`
	DisplayPath string `json:"display_path"`
	Schema      string `json:"schema_version"`
	Result      *struct {
		ID            int64   `json:"id"`
		Revision      int     `json:"revision"`
		SupplierName  *string `json:"supplier_name"`
		InvoiceNumber *string `json:"invoice_number"`
		IssueDate     *string `json:"issue_date"`
		Currency      *string `json:"currency"`
		TotalMinor    *int64  `json:"total_minor"`
		Total         *string `json:"total"`
	} `json:"result"`
	Missing  []string `json:"missing"`
	Problems []struct {
		Path, Message string
	} `json:"problems"`
	Duplicate *struct {
		JobKey      string `json:"job_key"`
		Path        string `json:"path"`
		TotalsAgree *bool  `json:"totals_agree"`
		DatesAgree  *bool  `json:"dates_agree"`
	} `json:"duplicate_of"`
}

func deskList(t *testing.T, e *opsEnv, wantCode int, args ...string) []deskEntry {
	t.Helper()
	r := e.must(wantCode, append([]string{"review", "--json"}, args...)...)
	var out []deskEntry
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("review --json: %v\n%s", err, r.stdout)
	}
	return out
}

// arithText states a total that is not net + tax: the arithmetic reason.
const arithText = "Kontor Nord GmbH\nRechnung K-9\nDatum 04.03.2026\nNetto EUR 100,00\nMwSt EUR 19,00\nGesamt EUR 120,00\n"

func arithAnswer() string {
	b, _ := json.Marshal(map[string]any{"schema_version": "invoice-v2", "document_type": "invoice", "title": "Kontor Nord K-9",
		"bullets": []string{"Sums disagree."}, "supplier_name": "Kontor Nord GmbH", "supplier_vat_id": nil, "supplier_iban": nil,
		"buyer_name": nil, "invoice_number": "K-9", "issue_date": "2026-03-04", "due_date": nil, "po_number": nil, "currency": "EUR",
		"net_minor": 10000, "tax_minor": 1900, "total_minor": 12000, "amount_due_minor": nil, "tax_lines": []any{},
		"line_items": []any{}, "lines_complete": false, "action_items": []any{},
		"evidence": map[string]any{"supplier_name": "Kontor Nord GmbH", "supplier_vat_id": nil, "supplier_iban": nil,
			"buyer_name": nil, "invoice_number": "Rechnung K-9", "issue_date": "Datum 04.03.2026", "due_date": nil,
			"po_number": nil, "currency": "Gesamt EUR 120,00", "net_minor": "Netto EUR 100,00", "tax_minor": "MwSt EUR 19,00",
			"total_minor": "Gesamt EUR 120,00", "amount_due_minor": nil}})
	return string(b)
}

// invx review lists the open review reasons grouped (duplicate, incomplete,
// arithmetic) with the values a clerk decides on, before the jobs it always
// listed; exit 3; the IBAN never printed.
func TestReviewDeskList(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	b := setupDesk(t, e)
	e.advance(-time.Hour)
	arith, rs := e.deskCommit("kontor.txt", arithText, schema.V2, arithAnswer())
	if !slices.Equal(rs, []string{store.ReasonArithmetic}) {
		t.Fatalf("kontor: reasons %v", rs)
	}
	// Jobs the list always had: rejected v1 documents (a.txt and c.txt).
	e.write("c.txt", "Northwind\n")
	// --require supplier_name: b.txt, committed by the same run, has
	// nothing to review.
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--schema", "invoice-summary-v1", "--repair", "0", "--require", "supplier_name", "--provider", "command",
		"--command", e.modelScript(), e.in)
	e.advance(time.Hour)

	for _, tc := range []struct {
		golden string
		tty    bool
		args   []string
	}{
		{"review-desk-tty.golden", true, nil},
		{"review-desk-piped.golden", false, nil},
		{"review-desk-json.golden", false, []string{"--json"}},
	} {
		r := e.invx(tc.tty, append([]string{"review"}, tc.args...)...)
		if r.code != cmd.ExitNeedsReview {
			t.Fatalf("review %v: exit %d, want 3\n%s", tc.args, r.code, r.stderr)
		}
		checkGolden(t, tc.golden, scrub(r.stdout, e.tmp))
		if hasAccountDigits(r.stdout) || strings.Contains(r.stdout, "IBAN") {
			t.Errorf("review %v prints the IBAN:\n%s", tc.args, r.stdout)
		}
		if want := "5 document(s) need review (rejected 2, failed 0, held 0, possible_duplicate 1, incomplete 1, arithmetic 1)"; !strings.HasPrefix(r.stderr, want) {
			t.Errorf("stderr %q, want it to start with %q", r.stderr, want)
		}
	}

	items := deskList(t, e, cmd.ExitNeedsReview)
	var kinds []string
	for _, it := range items {
		kinds = append(kinds, it.State)
	}
	if want := []string{"possible_duplicate", "incomplete", "arithmetic", "rejected", "rejected"}; !slices.Equal(kinds, want) {
		t.Fatalf("entries %v, want %v", kinds, want)
	}
	dup, inc, ar := items[0], items[1], items[2]
	if dup.JobKey != b.rescan || dup.Duplicate == nil || dup.Duplicate.JobKey != b.acme || !strings.HasSuffix(dup.Duplicate.Path, "/batch/acme.txt") ||
		dup.Duplicate.TotalsAgree == nil || !*dup.Duplicate.TotalsAgree || dup.Duplicate.DatesAgree == nil || !*dup.Duplicate.DatesAgree {
		t.Errorf("duplicate entry: %+v %+v", dup, dup.Duplicate)
	}
	if dup.Result == nil || *dup.Result.InvoiceNumber != "RE-2026-0042" || *dup.Result.TotalMinor != 119000 || *dup.Result.Total != "1190.00" ||
		*dup.Result.IssueDate != "2026-03-01" || dup.Schema != schema.V2 || dup.SourcePath != "acme-rescan.txt" {
		t.Errorf("duplicate values: %+v", dup.Result)
	}
	if inc.JobKey != b.nordlicht || !slices.Equal(inc.Missing, []string{"total_minor"}) || inc.Result.TotalMinor != nil || inc.Result.Total != nil {
		t.Errorf("incomplete entry: %+v", inc)
	}
	if ar.JobKey != arith || len(ar.Problems) != 1 || ar.Problems[0].Path != "total_minor" {
		t.Errorf("arithmetic entry: %+v", ar)
	}

	// --reason keeps one kind; an unknown one is a usage error.
	if got := deskList(t, e, cmd.ExitNeedsReview, "--reason", "incomplete"); len(got) != 1 || got[0].JobKey != b.nordlicht {
		t.Errorf("--reason incomplete: %+v", got)
	}
	if got := deskList(t, e, cmd.ExitNeedsReview, "--reason", "rejected"); len(got) != 2 || got[0].State != "rejected" {
		t.Errorf("--reason rejected: %+v", got)
	}
	if r := e.invx(false, "review", "--reason", "duplicate"); r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "possible_duplicate") {
		t.Errorf("--reason duplicate: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.invx(false, "review", "--reason", "held"); r.code != 0 || r.stderr != "nothing needs review\n" {
		t.Errorf("--reason held: exit %d, stderr %q", r.code, r.stderr)
	}
}

// deliverKeys runs invx outbox deliver to a loopback webhook and returns
// the keys it received, without the job key part; bodies by key.
func deliverKeys(t *testing.T, e *opsEnv, h *hook) []string {
	t.Helper()
	before := len(h.seen())
	e.must(0, "outbox", "deliver", "--webhook", h.srv.URL)
	return h.seen()[before:]
}

func short(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k[:12] + k[64:]
	}
	return out
}

// A held event is not delivered until the reason is accepted; a dismissed
// job's events never are, invoice.dismissed is.
func TestReviewDeskHeldEvents(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	b := setupDesk(t, e)
	h := newHook(t, always(200))
	ctx := context.Background()

	got := deliverKeys(t, e, h)
	want := []string{b.acme + ":action:a1", b.acme + ":action:a2", b.acme + ":invoice.committed", b.credit + ":invoice.committed"}
	if !slices.Equal(got, want) {
		t.Fatalf("delivered before review:\n%v\nwant\n%v", short(got), short(want))
	}

	// accept: actor from $USER unless --actor; --note kept.
	if r := e.invx(false, "review", "accept", "acme-rescan.txt"); r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "--actor is required") {
		t.Errorf("accept without actor: exit %d, stderr %q", r.code, r.stderr)
	}
	r := e.must(0, "review", "accept", "acme-rescan.txt", "--actor", "ann", "--note", "resend, paid once")
	checkGolden(t, "review-desk-accept.golden", scrub(r.stderr, e.tmp))
	got = deliverKeys(t, e, h)
	want = []string{b.rescan + ":action:a1", b.rescan + ":action:a2", b.rescan + ":invoice.committed"}
	if !slices.Equal(got, want) {
		t.Errorf("delivered after accept: %v, want %v", short(got), short(want))
	}
	if r := e.invx(false, "review", "accept", "acme-rescan.txt", "--actor", "ann"); r.code != cmd.ExitError {
		t.Errorf("accept twice: exit %d (%s)", r.code, r.stderr)
	}

	// dismiss: the held commit event is cancelled, invoice.dismissed goes out.
	r = e.must(0, "review", "dismiss", b.nordlicht[:12], "--reason", "not ours: wrong buyer", "--actor", "bob")
	if !strings.Contains(r.stderr, "cancelled 1 held event(s), never delivered: invoice.committed") {
		t.Errorf("dismiss stderr:\n%s", r.stderr)
	}
	got = deliverKeys(t, e, h)
	if want := []string{store.DismissedEventKey(b.nordlicht)}; !slices.Equal(got, want) {
		t.Errorf("delivered after dismiss: %v, want %v", short(got), short(want))
	}
	body := h.bodies[len(h.bodies)-1]
	if !strings.Contains(body, `"actor":"bob"`) || !strings.Contains(body, `"note":"not ours: wrong buyer"`) {
		t.Errorf("invoice.dismissed payload: %s", body)
	}
	evs, err := e.store().ListOutbox(ctx, &store.ListOutboxParams{Tenant: "default", JobKey: b.nordlicht})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, ev := range evs {
		states[ev.EventKey[65:]] = ev.State
	}
	if fmt.Sprint(states) != "map[invoice.committed:cancelled invoice.dismissed:delivered]" {
		t.Errorf("nordlicht events: %v", states)
	}
	if got := deliverKeys(t, e, h); len(got) != 0 {
		t.Errorf("a later deliver sent %v", short(got))
	}
	// The job stays succeeded, its result on record; nothing to review.
	if j := e.job(b.nordlicht); j.State != store.StateSucceeded {
		t.Errorf("dismissed job is %s", j.State)
	}
	if items := deskList(t, e, 0); len(items) != 0 {
		t.Errorf("review after accept and dismiss: %+v", items)
	}
}

// review correct: a two-revision chain, the history in show, the latest
// revision in export and the outbox.
func TestReviewDeskCorrectionChain(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	b := setupDesk(t, e)
	h := newHook(t, always(200))
	deliverKeys(t, e, h) // acme and credit

	e.advance(time.Minute)
	r := e.must(0, "review", "correct", "nordlicht.txt", "--set", "total=476.00", "--reason", "total from the PDF", "--actor", "ann")
	checkGolden(t, "review-correct-ok.golden", scrub(r.stderr, e.tmp))
	e.advance(time.Minute)
	e.must(0, "review", "correct", b.nordlicht[:12], "--set", "issue_date=2026-03-04", "--set", "po_number=PO 77",
		"--reason", "date misread", "--actor", "bob")

	// show: the history and which revision is shown.
	r = e.must(0, "show", b.nordlicht[:12])
	checkGolden(t, "review-show-history.golden", scrub(r.stdout, e.tmp))
	var shown struct {
		Result struct {
			Revision int             `json:"revision"`
			Document json.RawMessage `json:"document"`
		} `json:"result"`
		Revisions []struct {
			Revision int    `json:"revision"`
			Actor    string `json:"actor"`
			Reason   string `json:"reason"`
			Changes  []store.FieldChange
		} `json:"revisions"`
	}
	if err := json.Unmarshal([]byte(e.must(0, "show", "--json", b.nordlicht[:12]).stdout), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Result.Revision != 2 || len(shown.Revisions) != 2 || shown.Revisions[0].Actor != "ann" || shown.Revisions[1].Reason != "date misread" ||
		len(shown.Revisions[1].Changes) != 2 || string(shown.Revisions[0].Changes[0].Old) != "null" || string(shown.Revisions[0].Changes[0].New) != "47600" {
		t.Errorf("show --json: %+v", shown)
	}
	doc, err := schema.DecodeStoredV2(shown.Result.Document)
	if err != nil {
		t.Fatal(err)
	}
	if *doc.TotalMinor != 47600 || doc.Evidence.TotalMinor != nil || *doc.IssueDate != "2026-03-04" || doc.Evidence.IssueDate != nil ||
		*doc.Evidence.NetMinor != "Nettobetrag: EUR 400,00" {
		t.Errorf("shown document: total %v (evidence %v), issue date %v", *doc.TotalMinor, doc.Evidence.TotalMinor, *doc.IssueDate)
	}

	// export: the latest revision, once.
	rows, err := csv.NewReader(strings.NewReader(e.must(0, "export", "--schema", schema.V2).stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var nord [][]string
	for _, row := range rows[1:] {
		if row[col["invoice_number"]] == "ND-2026-118" {
			nord = append(nord, row)
		}
	}
	if len(nord) != 1 || nord[0][col["total_minor"]] != "47600" || nord[0][col["issue_date"]] != "2026-03-04" || nord[0][col["po_number"]] != "PO 77" {
		t.Errorf("export of the corrected invoice: %v (columns %v)", nord, rows[0])
	}

	// outbox: the held commit event, then both corrections, with the
	// corrected values.
	got := deliverKeys(t, e, h)
	want := []string{b.nordlicht + ":invoice.committed", store.CorrectedEventKey(b.nordlicht, 1), store.CorrectedEventKey(b.nordlicht, 2)}
	if !slices.Equal(got, want) {
		t.Fatalf("delivered after the corrections: %v, want %v", short(got), short(want))
	}
	bodies := h.bodies[len(h.bodies)-2:]
	if !strings.Contains(bodies[0], `"revision":1`) || !strings.Contains(bodies[0], `"total_minor":47600`) || !strings.Contains(bodies[0], `"issue_date":"2026-03-03"`) ||
		!strings.Contains(bodies[1], `"revision":2`) || !strings.Contains(bodies[1], `"issue_date":"2026-03-04"`) || !strings.Contains(bodies[1], `"total_minor":47600`) {
		t.Errorf("invoice.corrected payloads:\n%s\n%s", bodies[0], bodies[1])
	}
	if items := deskList(t, e, cmd.ExitNeedsReview); len(items) != 1 || items[0].JobKey != b.rescan {
		t.Errorf("review after the corrections: %+v", items)
	}
}

// A usage mistake in review correct is one line, exit 2, and writes nothing.
func TestReviewDeskCorrectRefused(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	b := setupDesk(t, e)
	ctx := context.Background()
	st := e.store()
	for _, tc := range []struct {
		name   string
		args   []string
		golden string // stderr golden, "" to check want only
		want   string
	}{
		{"bad field", []string{"--set", "totl=476.00"}, "review-correct-bad-field.golden", ""},
		{"bad value", []string{"--set", "total=476,00"}, "review-correct-bad-value.golden", ""},
		{"bad date", []string{"--set", "issue_date=2026-02-30"}, "", "does not validate"},
		{"unchanged", []string{"--set", "invoice_number=ND-2026-118"}, "", "already"},
		{"not a type", []string{"--set", "document_type=bill"}, "", "does not validate"},
		{"no reason", []string{"--set", "total=476.00", "--reason", " "}, "", "--reason is required"},
		{"no set", []string{}, "", "at least one --set"},
	} {
		args := append([]string{"review", "correct", "nordlicht.txt", "--actor", "ann", "--reason", "x"}, tc.args...)
		r := e.invx(false, args...)
		if r.code != cmd.ExitUsage || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q", tc.name, r.code, r.stdout)
		}
		if tc.golden != "" {
			checkGolden(t, tc.golden, scrub(r.stderr, e.tmp))
		} else if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: stderr %q, want %q", tc.name, r.stderr, tc.want)
		}
	}
	revs, err := st.ListRevisions(ctx, &store.ListRevisionsParams{Tenant: "default", JobKey: b.nordlicht})
	if err != nil || len(revs) != 0 {
		t.Errorf("refused corrections stored %d revisions (%v)", len(revs), err)
	}
	if evs, _ := st.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "default", JobKey: b.nordlicht}); len(evs) != 1 {
		t.Errorf("refused corrections wrote events: %d", len(evs))
	}
	// A job without a result cannot be corrected.
	e.write("c.txt", "Northwind\n")
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--repair", "0", "--provider", "command", "--command", e.modelScript(), e.in)
	if r := e.invx(false, "review", "correct", "c.txt", "--set", "total_minor=1", "--reason", "x", "--actor", "a"); r.code != cmd.ExitError ||
		!strings.Contains(r.stderr, "no result to correct") {
		t.Errorf("correct a rejected job: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A correction re-runs the duplicate check: the rescan stays a duplicate
// (exit 3, events held) until accepted.
func TestReviewDeskCorrectStillOpen(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	b := setupDesk(t, e)
	r := e.invx(false, "review", "correct", "acme-rescan.txt", "--set", "po_number=null", "--reason", "no PO", "--actor", "ann")
	if r.code != cmd.ExitNeedsReview || !strings.Contains(r.stderr, "still open: possible_duplicate") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	items := deskList(t, e, cmd.ExitNeedsReview, "--reason", "possible_duplicate")
	if len(items) != 1 || items[0].JobKey != b.rescan || items[0].Result.Revision != 1 {
		t.Errorf("after the correction: %+v", items)
	}
	h := newHook(t, always(200))
	for _, k := range deliverKeys(t, e, h) {
		if strings.HasPrefix(k, b.rescan) {
			t.Errorf("delivered %s while the duplicate is open", k[64:])
		}
	}
}

// v1 results are corrected by their invoice.* facts; export shows the
// latest revision.
func TestReviewDeskCorrectV1(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	key, rs := e.deskCommit("v1.txt", "Script Ltd\nInvoice S-1\n", schema.V1, answer("Script Ltd", "S-1"))
	if !slices.Equal(rs, []string{store.ReasonIncomplete}) {
		t.Fatalf("reasons %v", rs)
	}
	r := e.must(0, "review", "correct", key[:12], "--set", "invoice.total_minor=12050", "--set", "currency=eur",
		"--reason", "keyed from the paper copy", "--actor", "ann")
	if !strings.Contains(r.stderr, "total_minor: null -> 12050") || !strings.Contains(r.stderr, `currency: null -> "EUR"`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(e.must(0, "export", "--schema", schema.V1).stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !slices.Contains(rows[1], "120.50") || !slices.Contains(rows[1], "EUR") {
		t.Errorf("v1 export after the correction: %v", rows)
	}
	if r := e.invx(false, "review", "correct", key[:12], "--set", "issue_date=2026-01-01", "--reason", "x", "--actor", "a"); r.code != cmd.ExitUsage {
		t.Errorf("v2 field on a v1 result: exit %d", r.code)
	}
}

// The nightly batch of issue 14 as docs/review-desk.md tells it, through
// the real runner: night one commits an invoice and a credit note; night
// two brings the invoice's rescan and an invoice without a total and exits
// 3; a clerk corrects and accepts; the rerun exits 0 and delivery sends
// exactly the released events. The transcript (commands, output, exit
// codes) is a golden file the doc quotes.
func TestReviewDeskWalkthrough(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	h := newHook(t, always(200))
	night1, night2 := filepath.Join(e.tmp, "nightly", "2026-03-01"), filepath.Join(e.tmp, "nightly", "2026-03-02")
	for dir, files := range map[string]map[string]string{
		night1: {"acme.txt": readV2("acme.txt"), "credit.txt": readV2("credit.txt")},
		night2: {"acme-rescan.txt": readV2("acme.txt") + "Eingescannt am 02.03.2026\n", "nordlicht.txt": nordlichtText},
	} {
		for name, text := range files {
			writeFile(t, filepath.Join(dir, name), text)
		}
	}
	nordAnswer := filepath.Join(e.tmp, "nordlicht.json")
	writeFile(t, nordAnswer, nordlichtAnswer())
	abs, err := filepath.Abs(v2Dir)
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(e.tmp, "model.sh")
	writeFile(t, model, "#!/bin/sh\ntext=$(cat)\ncase \"$text\" in\n"+
		"*RE-2026-0042*) cat '"+filepath.Join(abs, "acme.json")+"' ;;\n"+
		"*CN-7*) cat '"+filepath.Join(abs, "credit.json")+"' ;;\n"+
		"*ND-2026-118*) cat '"+nordAnswer+"' ;;\n"+
		"*) echo 'no answer' >&2; exit 2 ;;\nesac\n")
	if err := os.Chmod(model, 0o755); err != nil {
		t.Fatal(err)
	}

	var tr strings.Builder
	step := func(want int, args ...string) result {
		t.Helper()
		r := e.invx(true, args...)
		if r.code != want {
			t.Fatalf("invx %s: exit %d, want %d\n%s%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
		}
		var words []string
		for _, a := range args {
			a = strings.ReplaceAll(a, h.srv.URL, "https://erp.example/hooks/invx")
			if strings.ContainsAny(a, " ;") {
				a = `"` + a + `"`
			}
			words = append(words, a)
		}
		fmt.Fprintf(&tr, "$ invx %s\n%s%s[exit %d]\n\n", strings.Join(words, " "), r.stdout, r.stderr, r.code)
		return r
	}
	run := []string{"run", "--schema", schema.V2, "--provider", "command", "--command", model}
	step(0, append(run, night1)...)
	e.advance(24 * time.Hour)
	step(cmd.ExitNeedsReview, append(run, night2)...)
	e.advance(time.Hour)
	step(cmd.ExitNeedsReview, "review")
	nord, rescan := e.job("nordlicht.txt"), e.job("acme-rescan.txt")
	step(0, "review", "correct", nord.JobKey[:12], "--set", "total=476.00", "--reason", "total from the PDF", "--actor", "ann")
	step(0, "review", "accept", rescan.JobKey[:12], "--actor", "ann", "--note", "rescan of RE-2026-0042; the ERP matches it to the first")
	step(0, "review")
	e.advance(time.Hour)
	step(0, append(run, night2)...)
	step(0, "outbox", "deliver", "--webhook", h.srv.URL)
	checkGolden(t, "review-desk-walkthrough.golden", scrub(tr.String(), e.tmp))

	// Delivery sent every event once: the first night's, the rescan's
	// released by accept, the corrected invoice's commit and correction.
	var got []string
	for _, k := range h.seen() {
		got = append(got, k[:12]+k[64:])
	}
	slices.Sort(got)
	acme, credit := e.job("acme.txt").JobKey, e.job("credit.txt").JobKey
	want := []string{acme[:12] + ":action:a1", acme[:12] + ":action:a2", acme[:12] + ":invoice.committed",
		credit[:12] + ":invoice.committed",
		rescan.JobKey[:12] + ":action:a1", rescan.JobKey[:12] + ":action:a2", rescan.JobKey[:12] + ":invoice.committed",
		nord.JobKey[:12] + ":invoice.committed", nord.JobKey[:12] + ":invoice.corrected:1"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("delivered %v, want %v", got, want)
	}
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A pruned text cannot back evidence any more: the correction is validated
// without looking evidence up in it, and says so.
func TestReviewDeskCorrectPruned(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	b := setupDesk(t, e)
	e.advance(48 * time.Hour)
	e.must(0, "prune", "--older-than", "1d")
	if j := e.job(b.nordlicht); j.SourceText != "" {
		t.Fatalf("prune kept the text")
	}
	r := e.must(0, "review", "correct", "nordlicht.txt", "--set", "total_minor=47600", "--reason", "from the PDF", "--actor", "ann")
	if !strings.Contains(r.stderr, "was pruned: evidence is not checked against it") || !strings.Contains(r.stderr, "revision 1") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	// The value of an uncorrected fact is still checked against its evidence.
	if r := e.invx(false, "review", "correct", "nordlicht.txt", "--set", "currency=JPY", "--reason", "x", "--actor", "ann"); r.code != cmd.ExitUsage ||
		!strings.Contains(r.stderr, "does not validate") {
		t.Errorf("currency change against the amounts' evidence: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A corrected IBAN is masked in what review correct and show print, and
// in full in show --reveal and the export.
func TestReviewDeskCorrectIBAN(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	b := setupDesk(t, e)
	const newIBAN = "DE44500105175407324931"
	// The credit note: correcting acme would flag it as a duplicate of its
	// rescan (a correction re-runs the duplicate check).
	r := e.must(0, "review", "correct", b.credit[:12], "--set", "supplier_iban=DE44 5001 0517 5407 3249 31",
		"--reason", "new bank details, letter of 2026-03-01", "--actor", "ann")
	if !strings.Contains(r.stderr, `supplier_iban: null -> "DE44…4931"`) || strings.Contains(r.stderr, "5407") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	for _, args := range [][]string{{"show", b.credit[:12]}, {"show", "--json", b.credit[:12]}} {
		out := e.must(0, args...).stdout
		if strings.Contains(out, "5407") || !strings.Contains(out, "DE44…4931") {
			t.Errorf("%v prints an IBAN in full or not at all:\n%s", args, out)
		}
	}
	if out := e.must(0, "show", "--reveal", b.credit[:12]).stdout; !strings.Contains(out, newIBAN) {
		t.Errorf("show --reveal lacks the corrected IBAN:\n%s", out)
	}
	if out := e.must(0, "export", "--schema", schema.V2).stdout; !strings.Contains(out, newIBAN) {
		t.Errorf("export lacks the corrected IBAN:\n%s", out)
	}
}
