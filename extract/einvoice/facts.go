package einvoice

import (
	"strings"

	xinv "github.com/invx/invx/internal/einvoice"
	"github.com/invx/invx/schema"
)

// creditCodes are the UNTDID 1001 document types EN 16931 counts as credit
// notes: their amounts are stated positive and mean a refund.
var creditCodes = map[string]bool{
	"81": true, "83": true, "261": true, "262": true, "296": true, "308": true,
	"381": true, "396": true, "420": true, "458": true, "532": true,
}

// debitCodes are the document types of a debit note.
var debitCodes = map[string]bool{"383": true, "527": true}

// facts are an e-invoice's values in invx's units, before they become a
// schema document: sign applied, dates in ISO form, amounts in minor units.
type facts struct {
	docType string
	// sign is -1 when the XML's positive amounts mean a refund.
	sign int64

	supplierName, supplierVAT, buyerName *string
	// ibans are the candidate accounts, in the e-invoice's order of
	// preference, with their evidence.
	ibans, ibanEvidence                                   []*string
	invoiceNumber, issueDate, dueDate, poNumber, currency *string
	net, tax, total, due                                  *int64
	evidence                                              schema.EvidenceV2

	taxLines []schema.TaxLine
	lines    []schema.LineItem
	// linesComplete: every line read with its amount.
	linesComplete bool
}

// readFacts converts what the e-invoice states into invx's forms. A value
// with no exact form is left nil.
func readFacts(inv *xinv.Invoice) *facts {
	f := &facts{docType: schema.DocInvoice, sign: 1}
	switch code := inv.TypeCode; {
	case creditCodes[code]:
		f.docType, f.sign = schema.DocCreditNote, -1
	case debitCodes[code]:
		f.docType = schema.DocDebitNote
	}
	ev := &f.evidence
	f.supplierName, ev.SupplierName = text(inv.SellerName, 200)
	f.buyerName, ev.BuyerName = text(inv.BuyerName, 200)
	f.invoiceNumber, ev.InvoiceNumber = text(inv.Number, 64)
	f.poNumber, ev.PONumber = text(inv.PONumber, 64)
	f.supplierVAT, ev.SupplierVATID = compact(inv.SellerVAT)
	for _, a := range inv.Accounts {
		if v, e := compact(a); v != nil && e != nil {
			f.ibans, f.ibanEvidence = append(f.ibans, v), append(f.ibanEvidence, e)
		}
	}
	f.issueDate, ev.IssueDate = date(inv.IssueDate)
	f.dueDate, ev.DueDate = date(inv.DueDate)

	exp, ok := schema.CurrencyExponent(strings.ToUpper(inv.Currency.Value))
	if !ok || len(inv.Currency.Value) != 3 {
		// Minor units mean nothing without the currency's exponent: no
		// amount at all.
		return f
	}
	cur := strings.ToUpper(inv.Currency.Value)
	f.currency, ev.Currency = &cur, evidence(inv.Currency)

	f.net, ev.NetMinor = f.amount(inv.Net, exp)
	f.tax, ev.TaxMinor = f.amount(inv.Tax, exp)
	f.total, ev.TotalMinor = f.amount(inv.Gross, exp)
	f.due, ev.AmountDueMinor = f.amount(inv.Due, exp)
	// An invoice type stated with a negative total is a credit in fact:
	// its amounts are already negative as written.
	if f.docType == schema.DocInvoice && f.total != nil && *f.total < 0 {
		f.docType = schema.DocCreditNote
	}
	f.taxLines = f.readTaxLines(inv.TaxLines, exp)
	f.lines, f.linesComplete = f.readLines(inv.Lines, exp)
	return f
}

// amount converts a stated amount, signed for the document type.
func (f *facts) amount(fl xinv.Field, exp int) (*int64, *string) {
	if !fl.Present() {
		return nil, nil
	}
	n, ok := xinv.Minor(fl.Value, exp)
	if !ok {
		return nil, nil
	}
	n *= f.sign
	return &n, evidence(fl)
}

// readTaxLines converts the VAT breakdown; all or nothing, so that the tax
// lines never add up to a part of the tax.
func (f *facts) readTaxLines(in []xinv.TaxLine, exp int) []schema.TaxLine {
	out := []schema.TaxLine{}
	if len(in) > 16 {
		return out
	}
	for _, tl := range in {
		tax, ok := xinv.Minor(tl.Tax.Value, exp)
		if !ok {
			return []schema.TaxLine{}
		}
		rate, ok := rateBP(tl.Rate)
		if !ok {
			// Exempt and out-of-scope categories (E, O) state no rate;
			// with no tax charged their rate is 0.
			if tl.Rate.Present() || tax != 0 {
				return []schema.TaxLine{}
			}
		}
		line := schema.TaxLine{RateBP: rate, TaxMinor: tax * f.sign}
		if base, ok := xinv.Minor(tl.Base.Value, exp); ok {
			base *= f.sign
			line.BaseMinor = &base
		}
		out = append(out, line)
	}
	return out
}

// readLines converts the invoice lines; complete is true when every line
// has an amount.
func (f *facts) readLines(in []xinv.Line, exp int) (out []schema.LineItem, complete bool) {
	out = []schema.LineItem{}
	if len(in) > 500 {
		return out, false
	}
	complete = len(in) > 0
	for i, l := range in {
		li := schema.LineItem{Description: description(l, i)}
		if q, ok := xinv.Quantity(l.Quantity.Value); ok {
			li.Quantity = &q
		}
		// A price for a base quantity other than one is not a unit price.
		if bq := l.BaseQty.Value; bq == "" || isOne(bq) {
			if p, ok := xinv.Minor(l.Price.Value, exp); ok {
				li.UnitPriceMinor = &p
			}
		}
		if a, ok := xinv.Minor(l.Amount.Value, exp); ok {
			a *= f.sign
			li.AmountMinor = &a
		} else {
			complete = false
		}
		if r, ok := rateBP(l.Rate); ok {
			li.TaxRateBP = &r
		}
		out = append(out, li)
	}
	return out, complete
}

// description is the line's item name, else a neutral label: the schema
// needs a non-empty description.
func description(l xinv.Line, i int) string {
	s := strings.Join(strings.Fields(l.Name.Value), " ")
	if s == "" {
		return "line " + itoa(i+1)
	}
	if len(s) > 300 {
		s = cut(s, 297) + "..."
	}
	return s
}

// rateBP reads a percentage as basis points (19 -> 1900); false when it is
// absent, finer than a basis point or out of 0..100 %.
func rateBP(fl xinv.Field) (int64, bool) {
	if !fl.Present() {
		return 0, false
	}
	n, ok := xinv.Minor(fl.Value, 2)
	if !ok || n < 0 || n > 10000 {
		return 0, false
	}
	return n, true
}

func isOne(s string) bool {
	n, ok := xinv.Minor(s, 4)
	return ok && n == 10000
}

// text is a name or number as written, white space folded, or nil when
// absent or longer than max bytes (a cut name is not the name).
func text(fl xinv.Field, max int) (*string, *string) {
	s := strings.Join(strings.Fields(fl.Value), " ")
	if s == "" || len(s) > max {
		return nil, nil
	}
	return &s, evidence(fl)
}

// compact is an id (VAT id, account) in compact form: letters and digits,
// upper case.
func compact(fl xinv.Field) (*string, *string) {
	var b strings.Builder
	for _, r := range fl.Value {
		switch {
		case r >= '0' && r <= '9', r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		}
	}
	if b.Len() == 0 {
		return nil, nil
	}
	s := b.String()
	return &s, evidence(fl)
}

func date(fl xinv.Field) (*string, *string) {
	if !fl.Present() {
		return nil, nil
	}
	d, ok := xinv.Date(fl)
	if !ok {
		return nil, nil
	}
	return &d, evidence(fl)
}

// maxEvidence is the schema's cap on one evidence string.
const maxEvidence = 500

// evidence is the element as the file writes it; a longer element than the
// schema allows is cited by its content alone.
func evidence(fl xinv.Field) *string {
	s := fl.Source
	if len(s) > maxEvidence || s == "" {
		s = fl.Value
	}
	if len(s) > maxEvidence {
		return nil
	}
	return &s
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
