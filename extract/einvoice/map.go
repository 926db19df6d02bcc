package einvoice

import (
	"encoding/json"
	"fmt"
	"strings"

	xinv "github.com/invx/invx/internal/einvoice"
	"github.com/invx/invx/schema"
)

// mapV2 builds the invoice-v2 document. Each fact is first checked on its
// own against the schema's validator (syntax, checksum, evidence): one the
// schema refuses, such as a BT-84 account id that is not an IBAN, is null,
// so that one odd value never costs the whole document. The finished
// document is validated as a whole; if its line items break a cap they are
// dropped, and only a document that still fails is an error.
func mapV2(inv *xinv.Invoice, v *schema.Version, src string) (*schema.InvoiceV2, error) {
	f := readFacts(inv)
	d := &schema.InvoiceV2{
		SchemaVersion: schema.V2,
		DocumentType:  f.docType,
		TaxLines:      f.taxLines,
		LineItems:     f.lines,
		LinesComplete: f.linesComplete,
		ActionItems:   []schema.ActionItem{},
	}
	ev := f.evidence
	texts := []struct {
		val, evid *string
		set       func(d *schema.InvoiceV2, val, evid *string)
	}{
		{f.supplierName, ev.SupplierName, func(d *schema.InvoiceV2, v, e *string) { d.SupplierName, d.Evidence.SupplierName = v, e }},
		{f.supplierVAT, ev.SupplierVATID, func(d *schema.InvoiceV2, v, e *string) { d.SupplierVATID, d.Evidence.SupplierVATID = v, e }},
		{f.buyerName, ev.BuyerName, func(d *schema.InvoiceV2, v, e *string) { d.BuyerName, d.Evidence.BuyerName = v, e }},
		{f.invoiceNumber, ev.InvoiceNumber, func(d *schema.InvoiceV2, v, e *string) { d.InvoiceNumber, d.Evidence.InvoiceNumber = v, e }},
		{f.issueDate, ev.IssueDate, func(d *schema.InvoiceV2, v, e *string) { d.IssueDate, d.Evidence.IssueDate = v, e }},
		{f.dueDate, ev.DueDate, func(d *schema.InvoiceV2, v, e *string) { d.DueDate, d.Evidence.DueDate = v, e }},
		{f.poNumber, ev.PONumber, func(d *schema.InvoiceV2, v, e *string) { d.PONumber, d.Evidence.PONumber = v, e }},
		{f.currency, ev.Currency, func(d *schema.InvoiceV2, v, e *string) { d.Currency, d.Evidence.Currency = v, e }},
	}
	for _, t := range texts {
		if t.val == nil || t.evid == nil {
			continue
		}
		probe := minimal()
		t.set(&probe, t.val, t.evid)
		if accepts(v, &probe, src) {
			t.set(d, t.val, t.evid)
		}
	}
	// BT-84: the first account id that is an IBAN the schema accepts.
	for i, iban := range f.ibans {
		probe := minimal()
		probe.SupplierIBAN, probe.Evidence.SupplierIBAN = iban, f.ibanEvidence[i]
		if accepts(v, &probe, src) {
			d.SupplierIBAN, d.Evidence.SupplierIBAN = iban, f.ibanEvidence[i]
			break
		}
	}
	amounts := []struct {
		val  *int64
		evid *string
		set  func(d *schema.InvoiceV2, val *int64, evid *string)
	}{
		{f.net, ev.NetMinor, func(d *schema.InvoiceV2, v *int64, e *string) { d.NetMinor, d.Evidence.NetMinor = v, e }},
		{f.tax, ev.TaxMinor, func(d *schema.InvoiceV2, v *int64, e *string) { d.TaxMinor, d.Evidence.TaxMinor = v, e }},
		{f.total, ev.TotalMinor, func(d *schema.InvoiceV2, v *int64, e *string) { d.TotalMinor, d.Evidence.TotalMinor = v, e }},
		{f.due, ev.AmountDueMinor, func(d *schema.InvoiceV2, v *int64, e *string) { d.AmountDueMinor, d.Evidence.AmountDueMinor = v, e }},
	}
	for _, a := range amounts {
		if a.val == nil || a.evid == nil || d.Currency == nil {
			continue
		}
		probe := minimal()
		probe.Currency, probe.Evidence.Currency = d.Currency, d.Evidence.Currency
		a.set(&probe, a.val, a.evid)
		if accepts(v, &probe, src) {
			a.set(d, a.val, a.evid)
		}
	}
	if d.Currency == nil {
		d.TaxLines, d.LineItems, d.LinesComplete = []schema.TaxLine{}, []schema.LineItem{}, false
	}
	// lines_complete promises that the lines add up to the net: with
	// document-level allowances or charges (BT-107, BT-108), or group and
	// sub-lines, they do not, and the promise is not made.
	if d.LinesComplete && !linesAddUp(d) {
		d.LinesComplete = false
	}
	d.Title, d.Bullets = summary(inv.Format, d)

	if err := validate(v, d, src); err != nil {
		// The lines are the part most likely to break a cap (the 64 KiB
		// answer limit on a very long invoice); the facts stand without them.
		d.LineItems, d.LinesComplete = []schema.LineItem{}, false
		if err2 := validate(v, d, src); err2 != nil {
			return nil, fmt.Errorf("the e-invoice's values do not form a valid %s document: %v", schema.V2, err)
		}
	}
	return d, nil
}

// minimal is the smallest valid invoice-v2 document, the base of a probe.
func minimal() schema.InvoiceV2 {
	return schema.InvoiceV2{
		SchemaVersion: schema.V2,
		DocumentType:  schema.DocOther,
		Title:         "t",
		Bullets:       []string{"b"},
		TaxLines:      []schema.TaxLine{},
		LineItems:     []schema.LineItem{},
		ActionItems:   []schema.ActionItem{},
	}
}

// accepts reports whether the validator takes d for src (arithmetic and
// other review reasons allowed).
func accepts(v *schema.Version, d *schema.InvoiceV2, src string) bool {
	return validate(v, d, src) == nil
}

func validate(v *schema.Version, d *schema.InvoiceV2, src string) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	_, err = v.ValidateReviewable(b, src)
	return err
}

// summary is the title and bullets of a result read from an e-invoice.
func summary(format string, d *schema.InvoiceV2) (string, []string) {
	kind := "Invoice"
	switch d.DocumentType {
	case schema.DocCreditNote:
		kind = "Credit note"
	case schema.DocDebitNote:
		kind = "Debit note"
	}
	title := kind
	if d.InvoiceNumber != nil {
		title += " " + *d.InvoiceNumber
	}
	if d.SupplierName != nil {
		title += " from " + *d.SupplierName
	}
	bullets := []string{"Read exactly from a structured e-invoice (" + syntaxName(format) + "), without a model."}
	if d.TotalMinor != nil && d.Currency != nil {
		bullets = append(bullets, fmt.Sprintf("Gross total %s %s.", *d.Currency, schema.FormatMinor(*d.TotalMinor, *d.Currency)))
	}
	if d.DueDate != nil {
		bullets = append(bullets, "Due "+*d.DueDate+".")
	}
	return cut(title, 200), bullets
}

// syntaxName names a format for people.
func syntaxName(format string) string {
	switch format {
	case xinv.FormatUBLInvoice:
		return "UBL 2.1 Invoice"
	case xinv.FormatUBLCreditNote:
		return "UBL 2.1 CreditNote"
	case xinv.FormatCII:
		return "UN/CEFACT CII D16B"
	case xinv.FormatZUGFeRD1:
		return "ZUGFeRD 1.0"
	}
	return strings.ToUpper(format)
}

// linesAddUp reports whether the line amounts add up to the net amount
// exactly.
func linesAddUp(d *schema.InvoiceV2) bool {
	if d.NetMinor == nil {
		return false
	}
	var sum int64
	for _, li := range d.LineItems {
		if li.AmountMinor == nil {
			return false
		}
		sum += *li.AmountMinor
	}
	return sum == *d.NetMinor
}
