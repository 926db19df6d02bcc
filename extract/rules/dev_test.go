package rules

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/invx/invx/schema"
)

// devExpect is the expected result of one development invoice.
type devExpect struct {
	SupplierName  *string `json:"supplier_name"`
	InvoiceNumber *string `json:"invoice_number"`
	Currency      *string `json:"currency"`
	TotalMinor    *int64  `json:"total_minor"`
	// AmountDueMinor is stated where a deposit makes it differ from the
	// gross, and v1's total_minor is then null (total_prepaid.go).
	AmountDueMinor *int64   `json:"amount_due_minor"`
	DueDate        *string  `json:"due_date"`
	ActionKinds    []string `json:"action_kinds"`
}

func strp(p *string) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *p)
}

func intp(p *int64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func kindsOf(items []schema.ActionItem) []string {
	var ks []string
	for _, it := range items {
		ks = append(ks, it.Kind)
	}
	sort.Strings(ks)
	return ks
}

// fieldResults compares a result with its expectation, field by field.
func fieldResults(got schema.InvoiceSummaryV1, want devExpect) map[string][2]string {
	wk := append([]string(nil), want.ActionKinds...)
	sort.Strings(wk)
	return map[string][2]string{
		"supplier_name":  {strp(want.SupplierName), strp(got.Invoice.SupplierName)},
		"invoice_number": {strp(want.InvoiceNumber), strp(got.Invoice.InvoiceNumber)},
		"currency":       {strp(want.Currency), strp(got.Invoice.Currency)},
		"total_minor":    {intp(want.TotalMinor), intp(got.Invoice.TotalMinor)},
		"due_date":       {strp(want.DueDate), strp(got.Invoice.DueDate)},
		"action_kinds":   {strings.Join(wk, ","), strings.Join(kindsOf(got.ActionItems), ",")},
	}
}

var fieldOrder = []string{"supplier_name", "invoice_number", "currency", "total_minor", "due_date", "action_kinds"}

func TestDevSet(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/dev/*.txt")
	if err != nil || len(files) < 25 {
		t.Fatalf("want at least 25 development invoices, got %d (%v)", len(files), err)
	}
	correct := map[string]int{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(strings.TrimSuffix(f, ".txt") + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var want devExpect
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := extractCached(string(text))
		res := fieldResults(got, want)
		for _, field := range fieldOrder {
			r := res[field]
			if r[0] == r[1] {
				correct[field]++
				continue
			}
			t.Errorf("%s: %s: want %s, got %s", name, field, r[0], r[1])
		}
		checkInvariants(t, string(text), got)
	}
	for _, field := range fieldOrder {
		t.Logf("%-15s %d/%d", field, correct[field], len(files))
	}
}
