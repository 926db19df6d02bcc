package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/invx/invx/schema"
)

// renderV2 prints an invoice-v2 result for a person: the title and
// bullets, one row per fact with its value and the excerpt it was read
// from, the tax lines, the line items and the action items. Amounts are
// shown as decimals of the currency with their minor units beside them, so
// the row reads like the invoice and still matches the export. The caller
// has masked the IBAN unless --reveal was given. A fact a person corrected
// (invx review correct) has no excerpt: its evidence cell names the
// revision that set it.
func renderV2(w io.Writer, d *schema.InvoiceV2, corrected map[string]int) {
	cur := deref(d.Currency)
	amount := func(p *int64) string {
		if p == nil {
			return ""
		}
		return fmt.Sprintf("%s %s (%d)", schema.FormatMinor(*p, cur), cur, *p)
	}
	fmt.Fprintf(w, "  %s (%s)\n", d.Title, d.DocumentType)
	for _, b := range d.Bullets {
		fmt.Fprintf(w, "  - %s\n", b)
	}
	ev := d.Evidence
	facts := []struct {
		name, value string
		evidence    *string
	}{
		{"supplier_name", deref(d.SupplierName), ev.SupplierName},
		{"supplier_vat_id", deref(d.SupplierVATID), ev.SupplierVATID},
		{"supplier_iban", deref(d.SupplierIBAN), ev.SupplierIBAN},
		{"buyer_name", deref(d.BuyerName), ev.BuyerName},
		{"invoice_number", deref(d.InvoiceNumber), ev.InvoiceNumber},
		{"issue_date", deref(d.IssueDate), ev.IssueDate},
		{"due_date", deref(d.DueDate), ev.DueDate},
		{"po_number", deref(d.PONumber), ev.PONumber},
		{"currency", cur, ev.Currency},
		{"net_minor", amount(d.NetMinor), ev.NetMinor},
		{"tax_minor", amount(d.TaxMinor), ev.TaxMinor},
		{"total_minor", amount(d.TotalMinor), ev.TotalMinor},
		{"amount_due_minor", amount(d.AmountDueMinor), ev.AmountDueMinor},
	}
	// A fact the document does not state shows as "-", so a null is never
	// mistaken for an empty value.
	var b strings.Builder
	tp := newTable(&b, true, "FACT", "VALUE", "EVIDENCE")
	for _, f := range facts {
		ev := dash(deref(f.evidence))
		if rev, ok := corrected[f.name]; ok && f.evidence == nil {
			ev = fmt.Sprintf("(corrected in revision %d)", rev)
		}
		tp.addRow(f.name, dash(f.value), ev)
	}
	renderIndented(w, &b, tp)

	if len(d.TaxLines) > 0 {
		tp := newTable(&b, true, "TAX RATE", "BASE", "TAX")
		for _, t := range d.TaxLines {
			tp.addRow(rate(&t.RateBP), dash(amount(t.BaseMinor)), amount(&t.TaxMinor))
		}
		renderIndented(w, &b, tp)
	}
	if len(d.LineItems) > 0 {
		complete := "not every line read"
		if d.LinesComplete {
			complete = "every line read"
		}
		fmt.Fprintf(w, "  line items (%d, %s)\n", len(d.LineItems), complete)
		tp := newTable(&b, true, "#", "DESCRIPTION", "QTY", "UNIT PRICE", "AMOUNT", "TAX RATE")
		for i, li := range d.LineItems {
			unit, amt := "", ""
			if li.UnitPriceMinor != nil {
				unit = schema.FormatMinor(*li.UnitPriceMinor, cur)
			}
			if li.AmountMinor != nil {
				amt = schema.FormatMinor(*li.AmountMinor, cur)
			}
			tp.addRow(strconv.Itoa(i+1), li.Description, dash(deref(li.Quantity)), dash(unit), dash(amt), dash(rate(li.TaxRateBP)))
		}
		renderIndented(w, &b, tp)
	}
	if len(d.ActionItems) > 0 {
		tp := newTable(&b, true, "ACTION", "KIND", "EVIDENCE")
		for _, a := range d.ActionItems {
			tp.addRow(a.ID, a.Kind, a.Evidence)
		}
		renderIndented(w, &b, tp)
	}
}

// renderIndented renders tp into b, then writes it to w two spaces in.
func renderIndented(w io.Writer, b *strings.Builder, tp *tablePrinter) {
	b.Reset()
	_ = tp.render() // a strings.Builder does not fail
	for line := range strings.Lines(b.String()) {
		fmt.Fprintf(w, "  %s", line)
	}
}

// rate formats basis points as a percentage: 1900 is "19%", 770 "7.7%".
func rate(bp *int64) string {
	if bp == nil {
		return ""
	}
	s := strconv.FormatInt(*bp/100, 10)
	if frac := *bp % 100; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%02d", frac), "0")
	}
	return s + "%"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
