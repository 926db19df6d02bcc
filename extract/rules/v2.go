package rules

import (
	"strings"

	"github.com/invx/invx/schema"
)

// ExtractV2 reads normalised invoice text (UTF-8, NFC, LF line endings) and
// returns an invoice-v2 document. Like Extract it never fails: a fact it
// cannot read, or cannot tie to the text it came from, is null with null
// evidence. Every answer passes invoice-v2's ValidateReviewable (arithmetic
// disagreements may be left for review; nothing else).
func ExtractV2(text string) schema.InvoiceV2 {
	return ensureValid(text, draftV2(text))
}

// draftV2 is ExtractV2's answer before ensureValid checks it.
func draftV2(text string) schema.InvoiceV2 {
	d := newDocument(text)
	defer d.release() // nothing read from d outlives the call but strings
	credit := d.creditLine()
	docType := d.documentType(credit)
	regs := d.regions()

	doc := minimalV2()
	doc.DocumentType = docType
	sup := usableText(d.supplierFact(regs), maxSupplierBytes)
	buyer, block := d.findBuyer(regs, sup)
	setText(&doc.SupplierName, &doc.Evidence.SupplierName, sup)
	ids := newIDChecker()
	setText(&doc.SupplierVATID, &doc.Evidence.SupplierVATID, d.supplierVATID(regs, block, ids))
	setText(&doc.SupplierIBAN, &doc.Evidence.SupplierIBAN, d.supplierIBAN(regs, block, ids))
	setText(&doc.BuyerName, &doc.Evidence.BuyerName, usableText(buyer, 200))
	setText(&doc.InvoiceNumber, &doc.Evidence.InvoiceNumber, usableText(d.invoiceNumberFact(credit >= 0), 64))
	setText(&doc.IssueDate, &doc.Evidence.IssueDate, d.issueDateFact(docType))
	setText(&doc.DueDate, &doc.Evidence.DueDate, d.dueDateFact())
	setText(&doc.PONumber, &doc.Evidence.PONumber, usableText(d.poNumberFact(), 64))
	if doc.IssueDate != nil && doc.DueDate != nil && *doc.DueDate < *doc.IssueDate {
		// A due date before the issue date belongs to another document: a
		// reminder's table quoting the overdue invoice. Silent, not wrong.
		doc.DueDate, doc.Evidence.DueDate = nil, nil
	}

	am := d.readAmountsV2()
	applySign(docType, &am)
	setText(&doc.Currency, &doc.Evidence.Currency, am.Currency)
	setAmount(&doc.TotalMinor, &doc.Evidence.TotalMinor, am.Total)
	setAmount(&doc.NetMinor, &doc.Evidence.NetMinor, am.Net)
	setAmount(&doc.TaxMinor, &doc.Evidence.TaxMinor, am.Tax)
	due := am.Due
	if due == nil && am.TotalIsPayable && (docType == schema.DocInvoice || docType == schema.DocDebitNote) {
		// An invoice asks for its total when nothing below it changes
		// that; the total's own excerpt is the evidence.
		due = am.Total
	}
	setAmount(&doc.AmountDueMinor, &doc.Evidence.AmountDueMinor, due)
	if am.TaxLines != nil {
		doc.TaxLines = am.TaxLines
	}
	if am.Lines != nil {
		doc.LineItems = am.Lines
	}
	doc.LinesComplete = am.LinesComplete && len(doc.LineItems) > 0

	if items := d.actionItems(credit); items != nil {
		doc.ActionItems = items
	}
	quoteBareValues(text, &doc)
	doc.Title, doc.Bullets = summarizeV2(&doc)
	return doc
}

// quoteBareValues replaces an excerpt the schema would refuse as displayed
// text (a bidirectional mark or control character elsewhere on its line)
// by the value itself where the text spells the value verbatim: names and
// numbers as written are their own evidence.
func quoteBareValues(text string, doc *schema.InvoiceV2) {
	ev := &doc.Evidence
	for _, p := range [][2]*string{
		{doc.SupplierName, ev.SupplierName}, {doc.BuyerName, ev.BuyerName},
		{doc.InvoiceNumber, ev.InvoiceNumber}, {doc.PONumber, ev.PONumber},
	} {
		v, e := p[0], p[1]
		if v == nil || e == nil || !hasBidi(*e) && !hasControl(*e) {
			continue
		}
		if !hasBidi(*v) && !hasControl(*v) && strings.Contains(text, *v) {
			*e = *v
		}
	}
}

// usableText drops a text fact the schema would refuse as displayed text:
// blank, too long, or holding a control or bidirectional character.
func usableText(f *fact[string], maxBytes int) *fact[string] {
	if f == nil || strings.TrimSpace(f.V) == "" || len(f.V) > maxBytes || hasControl(f.V) || hasBidi(f.V) {
		return nil
	}
	return f
}

// hasBidi reports the bidirectional formatting characters the schema
// refuses in displayed text: they reorder what the clerk sees.
func hasBidi(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
	}) >= 0
}

func setText(v, ev **string, f *fact[string]) {
	if f == nil || f.Ev == "" {
		return
	}
	val, e := f.V, f.Ev
	*v, *ev = &val, &e
}

func setAmount(v *(*int64), ev **string, f *fact[int64]) {
	if f == nil || f.Ev == "" {
		return
	}
	val, e := f.V, f.Ev
	*v, *ev = &val, &e
}

// applySign gives the amounts the sign the document type implies. Credit
// notes print their amounts positive as often as negative; invoice-v2
// wants every document amount of a credit note <= 0, and of an invoice or
// debit note >= 0. A credit note's lines are negated when, as printed,
// they add up to a positive sum (a discount line keeps its place relative
// to the others). Other types keep the signs as printed.
func applySign(docType string, am *amountsV2) {
	var sign int64
	switch docType {
	case schema.DocCreditNote:
		sign = -1
	case schema.DocInvoice, schema.DocDebitNote:
		sign = 1
	default:
		return
	}
	for _, f := range []*fact[int64]{am.Total, am.Net, am.Tax, am.Due} {
		if f != nil {
			f.V = withSign(f.V, sign)
		}
	}
	for i := range am.TaxLines {
		tl := &am.TaxLines[i]
		tl.TaxMinor = withSign(tl.TaxMinor, sign)
		if tl.BaseMinor != nil {
			b := withSign(*tl.BaseMinor, sign)
			tl.BaseMinor = &b
		}
	}
	if sign > 0 {
		return
	}
	var sum int64
	for _, li := range am.Lines {
		if li.AmountMinor != nil {
			sum += *li.AmountMinor
		}
	}
	if sum <= 0 {
		return
	}
	for i := range am.Lines {
		li := &am.Lines[i]
		if li.AmountMinor != nil {
			v := -*li.AmountMinor
			li.AmountMinor = &v
		}
		if li.UnitPriceMinor != nil {
			v := -*li.UnitPriceMinor
			li.UnitPriceMinor = &v
		}
	}
}

// withSign returns the magnitude of v with the given sign (+1 or -1).
func withSign(v, sign int64) int64 {
	if v < 0 {
		v = -v
	}
	return v * sign
}

// docTitles names each document type in the title and the number bullet.
var docTitles = map[string][2]string{
	schema.DocInvoice:    {"Invoice", "Invoice number"},
	schema.DocCreditNote: {"Credit note", "Credit note number"},
	schema.DocDebitNote:  {"Debit note", "Debit note number"},
	schema.DocReceipt:    {"Receipt", "Receipt number"},
	schema.DocProforma:   {"Pro forma invoice", "Pro forma number"},
	schema.DocReminder:   {"Payment reminder", "Reference"},
	schema.DocOther:      {"Document", "Number"},
}

// summarizeV2 writes the title and 1-5 bullets, as v1's summarize does,
// naming the document type.
func summarizeV2(d *schema.InvoiceV2) (string, []string) {
	names := docTitles[d.DocumentType]
	title := names[0]
	if d.InvoiceNumber != nil {
		title += " " + *d.InvoiceNumber
	}
	if d.SupplierName != nil {
		title += " from " + *d.SupplierName
	}
	title = truncate(title, maxTitle)

	var bullets []string
	if d.SupplierName != nil {
		bullets = append(bullets, truncate("Supplier: "+*d.SupplierName+".", maxBullet))
	}
	if d.InvoiceNumber != nil {
		bullets = append(bullets, truncate(names[1]+": "+*d.InvoiceNumber+".", maxBullet))
	}
	amount, label := d.TotalMinor, "Total"
	switch {
	case d.DocumentType == schema.DocCreditNote:
		label = "Credit amount"
	case d.AmountDueMinor != nil:
		amount, label = d.AmountDueMinor, "Amount due"
	}
	if amount == nil && d.AmountDueMinor != nil {
		amount = d.AmountDueMinor
	}
	if amount != nil {
		cur := ""
		if d.Currency != nil {
			cur = *d.Currency
		}
		mag := *amount
		if mag < 0 {
			mag = -mag
		}
		bullets = append(bullets, label+": "+formatMoney(mag, cur)+".")
	} else if d.Currency != nil {
		bullets = append(bullets, "Currency: "+*d.Currency+"; no total amount found.")
	}
	if d.DueDate != nil {
		bullets = append(bullets, "Due date: "+*d.DueDate+".")
	}
	if n := len(d.ActionItems); n > 0 {
		var kinds []string
		for _, it := range d.ActionItems {
			kinds = append(kinds, kindText[it.Kind])
		}
		s := "1 action item"
		if n > 1 {
			s = itoa(n) + " action items"
		}
		bullets = append(bullets, truncate(s+": "+strings.Join(kinds, ", ")+".", maxBullet))
	}
	if len(bullets) == 0 {
		bullets = append(bullets, "No invoice facts could be read from the document.")
	}
	if len(bullets) > 5 {
		bullets = bullets[:5]
	}
	return title, bullets
}
