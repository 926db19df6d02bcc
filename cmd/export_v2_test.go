package cmd_test

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
)

var exportHeaderV2 = []string{"document_type", "supplier_name", "supplier_vat_id", "supplier_iban", "buyer_name",
	"invoice_number", "issue_date", "due_date", "po_number", "currency", "net_minor", "tax_minor", "total_minor",
	"amount_due_minor", "line_count", "net", "tax", "total", "action_kinds",
	"source_path", "tenant", "job_key", "schema_version", "committed_at"}

var exportLinesHeader = []string{"job_key", "line_number", "description", "quantity", "unit_price_minor",
	"amount_minor", "tax_rate_bp", "currency", "unit_price", "amount", "source_path", "tenant", "schema_version"}

// readCSVWith parses CSV, checks its header and returns the rows keyed by
// the cell in column key (rows with equal keys are kept in order).
func readCSVWith(t *testing.T, s string, header []string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("read back CSV: %v\n%s", err, s)
	}
	if len(rows) == 0 {
		t.Fatalf("no CSV header")
	}
	if diff := cmp.Diff(header, rows[0]); diff != "" {
		t.Fatalf("CSV header (-want +got):\n%s", diff)
	}
	return rows[1:]
}

func TestExportV2CSV(t *testing.T) {
	t.Parallel()
	e := setupV2(t)
	r := e.must(0, "export", "--format", "csv", "--schema", "invoice-v2")
	if r.stderr != "" {
		t.Errorf("stderr %q", r.stderr)
	}
	rows := readCSVWith(t, r.stdout, exportHeaderV2)
	acme, credit := filepath.Join(e.v2In(), "acme.txt"), filepath.Join(e.v2In(), "credit.txt")
	got := map[string][]string{}
	for _, row := range rows {
		got[row[19]] = row
	}
	want := map[string][]string{
		// The IBAN in full: export is what a clerk pays from.
		acme: {"invoice", "ACME Bürobedarf GmbH", "DE123456789", "DE89370400440532013000", "Muster AG", "RE-2026-0042",
			"2026-03-01", "2026-03-31", "4500012345", "EUR", "100000", "19000", "119000", "119000", "2",
			"1000.00", "190.00", "1190.00", "contact_supplier;verify_purchase_order",
			acme, "default", e.job("acme.txt").JobKey, "invoice-v2", "2026-03-02T09:00:00Z"},
		// A credit note: negative amounts, unguarded because they are
		// numbers; the supplier's leading "=" guarded; nulls empty.
		credit: {"credit_note", "'=Formula Supplies Ltd", "GB123456789", "", "", "CN-7",
			"2026-03-05", "", "", "GBP", "-5000", "-1000", "-6000", "", "1",
			"-50.00", "-10.00", "-60.00", "",
			credit, "default", e.job("credit.txt").JobKey, "invoice-v2", "2026-03-02T09:00:00Z"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exported rows (-want +got):\n%s", diff)
	}
	checkGolden(t, "export-v2-csv.golden", sortedLines(scrub(r.stdout, e.tmp), 1))
}

func TestExportV2Lines(t *testing.T) {
	t.Parallel()
	e := setupV2(t)
	r := e.must(0, "export", "--schema", "invoice-v2", "--lines")
	rows := readCSVWith(t, r.stdout, exportLinesHeader)
	acme, credit := e.job("acme.txt").JobKey, e.job("credit.txt").JobKey
	type line struct{ key, no, desc, qty, unitMinor, amountMinor, rate, cur, unit, amount string }
	var got []line
	for _, row := range rows {
		got = append(got, line{row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9]})
	}
	want := []line{
		{acme, "1", `Bürostuhl "Comfort"`, "2", "40000", "80000", "1900", "EUR", "400.00", "800.00"},
		{acme, "2", "Schreibtischlampe", "1", "20000", "20000", "1900", "EUR", "200.00", "200.00"},
		{credit, "1", "Widget", "1", "-5000", "-5000", "", "GBP", "-50.00", "-50.00"},
	}
	// Both documents commit at t0, so their order is the store's; line
	// numbers within a document follow the document.
	if len(got) == 3 && got[0].key == credit {
		got = append(got[1:], got[0])
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(line{})); diff != "" {
		t.Errorf("line rows (-want +got):\n%s", diff)
	}
	checkGolden(t, "export-v2-lines.golden", sortedLines(scrub(r.stdout, e.tmp), 1))
}

func TestExportV2JSONL(t *testing.T) {
	t.Parallel()
	e := setupV2(t)
	r := e.must(0, "export", "--format", "jsonl", "--schema", "invoice-v2")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), r.stdout)
	}
	for _, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		// Every CSV column, plus the whole stored document.
		if len(m) != len(exportHeaderV2)+1 {
			t.Errorf("%d keys, want %d", len(m), len(exportHeaderV2)+1)
		}
		var doc struct {
			LineItems []json.RawMessage `json:"line_items"`
			Evidence  map[string]any    `json:"evidence"`
		}
		if err := json.Unmarshal(m["document"], &doc); err != nil || len(doc.LineItems) == 0 || len(doc.Evidence) != 13 {
			t.Errorf("document %s: %v", m["document"], err)
		}
	}
	checkGolden(t, "export-v2-jsonl.golden", sortedLines(scrub(r.stdout, e.tmp), 0))
}

// Each version exports alone; the other's results are counted on stderr
// with the flag that exports them.
func TestExportV2SkipsOtherVersion(t *testing.T) {
	t.Parallel()
	e := setupV2(t)
	e.must(0, "run", "--quiet", "--schema", "invoice-summary-v1", "--provider", "command", "--command", e.v1Script(), e.v2In())
	r := e.must(0, "export", "--schema", "invoice-v2")
	if want := "2 results of invoice-summary-v1 not exported; --schema invoice-summary-v1 exports them\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if n := len(readCSVWith(t, r.stdout, exportHeaderV2)); n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
	r = e.must(0, "export", "--schema", "invoice-summary-v1")
	if want := "2 results of invoice-v2 not exported; --schema invoice-v2 exports them\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if n := len(readCSV(t, r.stdout)); n != 2 {
		t.Errorf("%d v1 rows, want 2", n)
	}
}

func TestExportLinesUsage(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	for _, args := range [][]string{
		{"export", "--schema", "invoice-summary-v1", "--lines"},
		{"export", "--schema", "invoice-v2", "--lines", "--format", "jsonl"},
	} {
		r := e.invx(false, args...)
		if r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "--lines") || !strings.Contains(r.stderr, "Try: ") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
