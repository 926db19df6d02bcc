package einvoice

import (
	xinv "github.com/invx/invx/internal/einvoice"
	"github.com/invx/invx/schema"
)

// mapV1 builds the invoice-summary-v1 document. Its total is v1's amount
// payable: the amount due, BT-115 (else the invoice total, BT-112), as a
// magnitude: v1 has no sign. After a prepayment the two differ; v2 keeps
// both (total_minor and amount_due_minor).
func mapV1(inv *xinv.Invoice) *schema.InvoiceSummaryV1 {
	f := readFacts(inv)
	d := &schema.InvoiceSummaryV1{
		SchemaVersion: schema.V1,
		ActionItems:   []schema.ActionItem{},
	}
	d.Invoice.SupplierName = f.supplierName
	d.Invoice.InvoiceNumber = f.invoiceNumber
	d.Invoice.Currency = f.currency
	d.Invoice.DueDate = f.dueDate
	total := f.due
	if total == nil {
		total = f.total
	}
	if total != nil {
		m := *total
		if m < 0 {
			m = -m
		}
		d.Invoice.TotalMinor = &m
	}
	v2 := &schema.InvoiceV2{DocumentType: f.docType, InvoiceNumber: f.invoiceNumber, SupplierName: f.supplierName,
		Currency: f.currency, TotalMinor: f.total, DueDate: f.dueDate}
	d.Title, d.Bullets = summary(inv.Format, v2)
	return d
}
