package eval

import (
	"strings"

	"github.com/invx/invx/schema"
)

// valuesV2 returns the scored values of an invoice-v2 document, in the
// types of Expect. Amounts keep their sign here (a report shows what the
// model said); sameV2 compares magnitudes.
func valuesV2(d *schema.InvoiceV2) map[string]any {
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	num := func(p *int64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	return map[string]any{
		FieldDocumentType:   d.DocumentType,
		FieldSupplierName:   str(d.SupplierName),
		FieldSupplierVATID:  str(d.SupplierVATID),
		FieldSupplierIBAN:   str(d.SupplierIBAN),
		FieldBuyerName:      str(d.BuyerName),
		FieldInvoiceNumber:  str(d.InvoiceNumber),
		FieldIssueDate:      str(d.IssueDate),
		FieldDueDate:        str(d.DueDate),
		FieldPONumber:       str(d.PONumber),
		FieldCurrency:       str(d.Currency),
		FieldNetMinor:       num(d.NetMinor),
		FieldTaxMinor:       num(d.TaxMinor),
		FieldTotalMinor:     num(d.TotalMinor),
		FieldAmountDueMinor: num(d.AmountDueMinor),
		FieldLineCount:      lineCount(d),
		FieldLineSumMinor:   lineSum(d.LineItems),
		FieldActionKinds:    actionKinds(d.ActionItems),
	}
}

// lineCount is the number of lines, or nil when the answer lists none and
// does not claim the list complete: a table the reader could not read is a
// silence, not a count of zero.
func lineCount(d *schema.InvoiceV2) any {
	if len(d.LineItems) == 0 && !d.LinesComplete {
		return nil
	}
	return int64(len(d.LineItems))
}

// lineSum is the signed sum of the line amounts, as the lines print them
// (a discount line subtracts), or nil when there are no lines or a line
// has no amount: a sum over part of the lines would be a confident wrong
// value.
func lineSum(lines []schema.LineItem) any {
	if len(lines) == 0 {
		return nil
	}
	var sum int64
	for _, li := range lines {
		if li.AmountMinor == nil {
			return nil
		}
		sum += *li.AmountMinor
	}
	return sum
}

// wantV2 returns the expectation of an invoice-v2 field, whether it is
// scored, and whether a result's payable amount may answer it in place of
// the field itself. Every field reads the key of its name, except
// total_minor (the gross total): it reads gross_minor, and falls back on the
// expectation's total_minor (v1's amount payable) when amount_due_minor is
// stated and equal to it, i.e. when the document has no separate amount due
// and the two totals are one figure. An expectation with total_minor alone
// does not say which total it is: in v1-style suites and the dev set's
// receipts it is what was paid (after rounding, after a deposit), in the
// dev set's e-invoice suites EN 16931's BT-112, the gross total
// (shared/devset/README.md). So it is right when it equals either the
// result's gross total or its payable amount (its amount_due_minor when
// stated, else its total_minor); scoring only one of them counted right
// answers of the other kind as wrong. Otherwise it is not scored: a gross
// total guessed from an amount due would score right answers as wrong.
func wantV2(exp Expect, field string) (want any, scored, payable bool) {
	if field != FieldTotalMinor {
		want, ok := exp[field]
		return want, ok, false
	}
	if gross, ok := exp[KeyGrossMinor]; ok {
		return gross, true, false
	}
	total, ok1 := exp[FieldTotalMinor]
	due, ok2 := exp[FieldAmountDueMinor]
	switch {
	case ok1 && !ok2:
		return total, true, true
	case !ok1 || !ok2:
	case total == nil && due == nil:
		return nil, true, false
	case total != nil && due != nil && magnitude(total) == magnitude(due):
		return total, true, false
	}
	return nil, false, false
}

// payableV2 is the amount a v2 result asks to be paid: its amount due when
// stated, else its gross total.
func payableV2(got map[string]any) any {
	if due := got[FieldAmountDueMinor]; due != nil {
		return due
	}
	return got[FieldTotalMinor]
}

// sameV2 reports whether got is right for want under invoice-v2. Amounts
// (and the line sum) are compared by magnitude: expectations hold amounts
// as printed, credit notes positive, and whether a credit note's amounts
// are negative is validation's business (schema arithmetic checks the sign
// against document_type), not the scorer's. buyer_name is compared like
// supplier_name; the VAT id and IBAN ignore case and spaces, so that an
// expectation may be written as printed, and a VAT id also matches without
// its country prefix (see sameVATID); everything else as Same does.
func sameV2(field string, want, got any) bool {
	if field == FieldLineCount && got == nil && want == int64(0) {
		// No lines read is right for a document without a line table.
		return true
	}
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	switch field {
	case FieldNetMinor, FieldTaxMinor, FieldTotalMinor, FieldAmountDueMinor, FieldLineSumMinor:
		w, ok1 := want.(int64)
		g, ok2 := got.(int64)
		return ok1 && ok2 && magnitude(w) == magnitude(g)
	case FieldBuyerName:
		return Same(FieldSupplierName, want, got)
	case FieldSupplierVATID:
		w, ok1 := want.(string)
		g, ok2 := got.(string)
		return ok1 && ok2 && sameVATID(compactID(w), compactID(g))
	case FieldSupplierIBAN:
		w, ok1 := want.(string)
		g, ok2 := got.(string)
		return ok1 && ok2 && compactID(w) == compactID(g)
	}
	return Same(field, want, got)
}

// sameVATID compares VAT ids in compact form, allowing one side to lack the
// two-letter country prefix the other has: Italian invoices print "P.IVA
// 00994470962", and evidence must be quoted from the text, so a model
// faithful to the text answers 00994470962 for IT00994470962. The rest of
// the id must be identical, so no other id can match.
func sameVATID(w, g string) bool {
	switch {
	case w == g:
		return true
	case len(w) == len(g)+2:
		return isPrefix(w[:2]) && w[2:] == g
	case len(g) == len(w)+2:
		return isPrefix(g[:2]) && g[2:] == w
	}
	return false
}

// isPrefix reports whether p is a two-letter country prefix.
func isPrefix(p string) bool {
	return len(p) == 2 && p[0] >= 'A' && p[0] <= 'Z' && p[1] >= 'A' && p[1] <= 'Z'
}

// magnitude is |v| of an amount held as any (an int64); other values are 0.
func magnitude(v any) int64 {
	n, _ := v.(int64)
	if n < 0 {
		return -n
	}
	return n
}

// compactID is an identifier in electronic form: upper case, without
// spaces, dots or dashes ("DE 812 445 903" -> "DE812445903").
func compactID(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '.' || r == '-' || r == '\u00a0' {
			return -1
		}
		return r
	}, strings.ToUpper(s))
}

// mismatch records a wrong field. An IBAN is masked on both sides: a
// report travels (CI artifacts, pull requests) where bank details have no
// business; the country, check digits and last four characters still tell
// a reader which account was meant.
func mismatch(field string, want, got any) Mismatch {
	if field == FieldSupplierIBAN {
		want, got = maskAny(want), maskAny(got)
	}
	return Mismatch{Field: field, Want: want, Got: got}
}

func maskAny(v any) any {
	if s, ok := v.(string); ok {
		return MaskIBAN(s)
	}
	return v
}

// MaskIBAN is schema.MaskIBAN, the one masked form every listing prints
// ("DE89…3000"), so a report and invx show agree on what a clerk sees.
func MaskIBAN(s string) string { return schema.MaskIBAN(s) }
