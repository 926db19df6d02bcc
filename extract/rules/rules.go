// Package rules is invx's embedded, offline, deterministic extractor: the
// default provider. It reads supplier-invoice text in English, German,
// French, Spanish, Dutch and Italian with label lexicons, number and date
// grammars and scoring, and fills invoice-summary-v1 (Extract) and
// invoice-v2 (ExtractV2, with the excerpt each fact was read from). It has no network
// access and keeps no state between calls; a fact the text does not state is
// left null.
//
// How it reads a document:
//   - every line gets a matching form (lower case, no accents, collapsed
//     spaces, OCR "l/I/1" evened out) with a byte map back to the raw line,
//     so anything quoted is cut verbatim from the input;
//   - lines are split into columns, so a value may sit after its label, in
//     the cell under it, or in a stacked block of labels then values;
//   - amounts are read with an integer grammar (1,234.56 / 1.234,56 /
//     1 234,56 / 1'234.50) whose decimal separator is decided by the digits
//     printed and the currency's exponent;
//   - dates are read in numeric and month-name forms in six languages and
//     must be real calendar dates; day/month order follows the document.
package rules

import (
	"strings"

	"github.com/invx/invx/schema"
)

// Limits of invoice-summary-v1 that the extractor respects itself.
const (
	maxSafeInteger   = 1<<53 - 1
	maxSupplierBytes = 200
)

// Extract reads normalised invoice text (UTF-8, NFC, LF line endings) and
// returns the summary. It never fails: facts it cannot read are null, the
// title and bullets are built from what was found, and every action item's
// evidence is an exact substring of text.
func Extract(text string) schema.InvoiceSummaryV1 {
	d := newDocument(text)
	defer d.release() // nothing read from d outlives the call but strings
	credit := d.creditLine()
	facts := schema.InvoiceFacts{
		SupplierName:  d.findSupplier(),
		InvoiceNumber: d.findInvoiceNumber(credit >= 0),
		DueDate:       d.findDueDate(),
	}
	facts.TotalMinor, facts.Currency = d.findTotal()
	if facts.TotalMinor != nil && d.prepaid(*facts.TotalMinor, facts.Currency) {
		facts.TotalMinor = nil
	}
	if facts.TotalMinor != nil && *facts.TotalMinor > maxSafeInteger {
		facts.TotalMinor = nil // beyond what every JSON reader keeps exact
	}
	if n := facts.SupplierName; n != nil && (hasControl(*n) || len(*n) > maxSupplierBytes || strings.TrimSpace(*n) == "") {
		facts.SupplierName = nil
	}
	items := d.actionItems(credit)
	if items == nil {
		items = []schema.ActionItem{}
	}
	title, bullets := summarize(facts, items, credit >= 0)
	return schema.InvoiceSummaryV1{
		SchemaVersion: schema.V1,
		Title:         title,
		Bullets:       bullets,
		Invoice:       facts,
		ActionItems:   items,
	}
}

// summarize writes the title and 1-5 bullets from the facts found.
func summarize(f schema.InvoiceFacts, items []schema.ActionItem, credit bool) (string, []string) {
	doc, docNum := "Invoice", "Invoice number"
	if credit {
		doc, docNum = "Credit note", "Credit note number"
	}
	title := doc
	if f.InvoiceNumber != nil {
		title += " " + *f.InvoiceNumber
	}
	if f.SupplierName != nil {
		title += " from " + *f.SupplierName
	}
	title = truncate(title, maxTitle)

	var bullets []string
	if f.SupplierName != nil {
		bullets = append(bullets, truncate("Supplier: "+*f.SupplierName+".", maxBullet))
	}
	if f.InvoiceNumber != nil {
		bullets = append(bullets, truncate(docNum+": "+*f.InvoiceNumber+".", maxBullet))
	}
	if f.TotalMinor != nil {
		cur := ""
		if f.Currency != nil {
			cur = *f.Currency
		}
		label := "Amount due"
		if credit {
			label = "Credit amount"
		}
		s := label + ": " + formatMoney(*f.TotalMinor, cur)
		if cur == "" {
			s += " (currency not stated)"
		}
		bullets = append(bullets, s+".")
	} else if f.Currency != nil {
		bullets = append(bullets, "Currency: "+*f.Currency+"; no total amount found.")
	}
	if f.DueDate != nil {
		bullets = append(bullets, "Due date: "+*f.DueDate+".")
	}
	if len(items) > 0 {
		var kinds []string
		for _, it := range items {
			kinds = append(kinds, kindText[it.Kind])
		}
		n := "1 action item"
		if len(items) > 1 {
			n = itoa(len(items)) + " action items"
		}
		bullets = append(bullets, truncate(n+": "+strings.Join(kinds, ", ")+".", maxBullet))
	}
	if len(bullets) == 0 {
		bullets = append(bullets, "No invoice facts could be read from the document.")
	}
	if len(bullets) > 5 {
		bullets = bullets[:5]
	}
	return title, bullets
}
