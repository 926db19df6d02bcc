package rules

import (
	"testing"

	"github.com/invx/invx/schema"
)

// TestEnsureValid checks the last line of defence: a fact the validator
// refuses is cleared with its evidence, and the other facts survive.
func TestEnsureValid(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	i := func(v int64) *int64 { return &v }
	const text = "Acme Ltd\nInvoice No. INV-1\nTotal 10.00\n"
	cases := []struct {
		name    string
		set     func(*schema.InvoiceV2)
		cleared func(schema.InvoiceV2) bool
	}{
		{"evidence not in the text", func(d *schema.InvoiceV2) {
			d.SupplierName, d.Evidence.SupplierName = s("Acme Ltd"), s("Acme Limited")
		}, func(d schema.InvoiceV2) bool { return d.SupplierName == nil && d.Evidence.SupplierName == nil }},
		{"evidence with a bidi mark", func(d *schema.InvoiceV2) {
			d.PONumber, d.Evidence.PONumber = s("INV-1"), s("INV-1\u200e")
		}, func(d schema.InvoiceV2) bool { return d.PONumber == nil }},
		{"amount without currency", func(d *schema.InvoiceV2) {
			d.TotalMinor, d.Evidence.TotalMinor = i(1000), s("Total 10.00")
		}, func(d schema.InvoiceV2) bool { return d.TotalMinor == nil && d.Evidence.TotalMinor == nil }},
		{"line item without description", func(d *schema.InvoiceV2) {
			d.LineItems = []schema.LineItem{{Description: " "}}
		}, func(d schema.InvoiceV2) bool { return len(d.LineItems) == 0 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			doc := minimalV2()
			doc.DocumentType = schema.DocInvoice
			doc.InvoiceNumber, doc.Evidence.InvoiceNumber = s("INV-1"), s("Invoice No. INV-1")
			c.set(&doc)
			got := ensureValid(text, doc)
			checkV2(t, c.name, text, got)
			if !c.cleared(got) {
				t.Errorf("the refused fact was not cleared: %+v", got)
			}
			if orDash(got.InvoiceNumber) != "INV-1" {
				t.Errorf("invoice_number lost: %s", orDash(got.InvoiceNumber))
			}
		})
	}
}
