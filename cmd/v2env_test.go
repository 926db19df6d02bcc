package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// v2Dir holds the invoice-v2 test documents: NAME.txt, a source text, and
// NAME.json, a valid invoice-v2 answer for it that the v2 script returns.
//
//	acme    a German invoice stating every fact, IBAN included, two lines
//	credit  a credit note (negative amounts) whose supplier name starts
//	        with "=", for the formula guard
var v2Dir = filepath.Join("testdata", "input-v2")

// setupV2 copies the v2 documents into the folder v2in and commits them
// with --schema invoice-v2 through the v2 script; extra run flags (such as
// --shadow) are passed on. The clock stays at t0.
func setupV2(t *testing.T, runFlags ...string) *opsEnv {
	t.Helper()
	e := setupOps(t)
	e.copyV2Inputs()
	args := append([]string{"run", "--quiet", "--schema", "invoice-v2", "--provider", "command", "--command", e.v2Script()}, runFlags...)
	e.must(0, append(args, e.v2In())...)
	return e
}

func (e *opsEnv) v2In() string { return filepath.Join(e.tmp, "v2in") }

func (e *opsEnv) copyV2Inputs() {
	e.t.Helper()
	for _, name := range []string{"acme.txt", "credit.txt"} {
		b, err := os.ReadFile(filepath.Join(v2Dir, name))
		if err != nil {
			e.t.Fatal(err)
		}
		if err := os.MkdirAll(e.v2In(), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.v2In(), name), b, 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
}

// v2Script writes a --provider command script that answers each v2
// document with its recorded invoice-v2 answer.
func (e *opsEnv) v2Script() string {
	e.t.Helper()
	abs, err := filepath.Abs(v2Dir)
	if err != nil {
		e.t.Fatal(err)
	}
	script := "#!/bin/sh\ntext=$(cat)\ncase \"$text\" in\n" +
		"*RE-2026-0042*) cat '" + filepath.Join(abs, "acme.json") + "' ;;\n" +
		"*CN-7*) cat '" + filepath.Join(abs, "credit.json") + "' ;;\n" +
		"*) echo 'no answer' >&2; exit 2 ;;\nesac\n"
	p := filepath.Join(e.tmp, "v2model.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// v1Script writes a --provider command script that answers the v2
// documents as invoice-summary-v1: the acme invoice with the facts its v2
// answer has, the credit note with the v1 reading of it (a positive total,
// the supplier without its "=", no actions).
func (e *opsEnv) v1Script() string {
	e.t.Helper()
	v1 := func(supplier, number, currency string, total int64, due any, actions []any) string {
		b, err := json.Marshal(map[string]any{"schema_version": "invoice-summary-v1", "title": "An invoice", "bullets": []string{"Read by a script."},
			"invoice": map[string]any{"supplier_name": supplier, "invoice_number": number, "currency": currency,
				"total_minor": total, "due_date": due}, "action_items": actions})
		if err != nil {
			e.t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), "'", `'\''`)
	}
	acme := v1("ACME Bürobedarf GmbH", "RE-2026-0042", "EUR", 119000, "2026-03-31", []any{
		map[string]any{"id": "a1", "kind": "verify_purchase_order", "evidence": "Ihre Bestellung: PO 4500012345"},
		map[string]any{"id": "a2", "kind": "contact_supplier", "evidence": "Bitte beachten Sie unsere neue Bankverbindung."}})
	credit := v1("Formula Supplies Ltd", "CN-7", "GBP", 6000, nil, []any{})
	script := "#!/bin/sh\ntext=$(cat)\ncase \"$text\" in\n" +
		"*RE-2026-0042*) echo '" + acme + "' ;;\n" +
		"*CN-7*) echo '" + credit + "' ;;\n" +
		"*) echo 'no answer' >&2; exit 2 ;;\nesac\n"
	p := filepath.Join(e.tmp, "v1model.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return p
}
