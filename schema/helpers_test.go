package schema

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites the file under
// -update. A golden file exists so that a change to released output is a
// reviewed diff, never an accident.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s mismatch (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

// testSource is a normalised invoice text: NFC, LF line ends.
const testSource = `ACME Office Supplies GmbH
Invoice no. INV-2026-0042
Invoice date: 2026-03-01
Due date: 2026-03-31
PO: 4500012345

1x Ergonomic chair "Café <Deluxe>"    EUR 1.000,00
VAT 19% (reverse charge?)            EUR   234,56
Total due:                           EUR 1.234,56

Please note our new bank account: DE89 3704 0044 0532 0130 00
`

// validDoc is a compact, valid answer for testSource. Invalid variants are
// made from it with with(), so each case shows only what it breaks.
const validDoc = `{"schema_version":"invoice-summary-v1",` +
	`"title":"ACME Office Supplies invoice INV-2026-0042",` +
	`"bullets":["Total due EUR 1,234.56 by 2026-03-31.","References PO 4500012345."],` +
	`"invoice":{"supplier_name":"ACME Office Supplies GmbH","invoice_number":"INV-2026-0042","currency":"EUR","total_minor":123456,"due_date":"2026-03-31"},` +
	`"action_items":[{"id":"a1","kind":"verify_purchase_order","evidence":"PO: 4500012345"},` +
	`{"id":"a2","kind":"review_tax","evidence":"VAT 19% (reverse charge?)"}]}`

// with returns validDoc with each old string, which must occur exactly
// once, replaced by the new one that follows it.
func with(t *testing.T, oldNew ...string) string {
	t.Helper()
	doc := validDoc
	for i := 0; i+1 < len(oldNew); i += 2 {
		old, new := oldNew[i], oldNew[i+1]
		if n := strings.Count(doc, old); n != 1 {
			t.Fatalf("with(%q): found %d times, want once", old, n)
		}
		doc = strings.Replace(doc, old, new, 1)
	}
	return doc
}
