package rules

import "github.com/invx/invx/schema"

// fact is a value read for invoice-v2 together with the exact substring of
// the source text it was read from (its evidence). Ev is always a substring
// of the text passed to ExtractV2 and holds the value's digits or
// characters, so validation's evidence check passes by construction.
type fact[T any] struct {
	V  T
	Ev string
}

// amountsV2 is what readAmountsV2 finds besides the total: amounts as
// printed (a credit note's amounts are usually printed positive; ExtractV2
// applies the sign the document type implies), the tax lines and the line
// items. A nil fact is not stated, or not read with confidence: right or
// silent.
type amountsV2 struct {
	Currency      *fact[string]
	Total         *fact[int64] // gross, before deposits and prepayments
	Net, Tax, Due *fact[int64]
	TaxLines      []schema.TaxLine
	Lines         []schema.LineItem
	// LinesComplete is true only when Lines holds every line of the item
	// table, each with an amount.
	LinesComplete bool
	// TotalIsPayable is true when nothing printed after the gross total
	// changes what is to be paid: no deposit or payment, no reminder fee,
	// no deduction (withholding, early-payment discount) below it. Then an
	// invoice's amount due is its total even without a label saying so.
	TotalIsPayable bool
}
