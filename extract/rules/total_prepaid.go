package rules

// prepaid reports whether the document deducts a payment already made (a
// deposit, payments on account of a final invoice) from its gross total
// to reach the amount due that invoice-summary-v1 read as its total: a
// payment label whose amount P (on its line or the next) is exactly the
// gross total less that amount due, both as invoice-v2's summary reading
// finds them. v1 has one total field, read as the amount due by some and
// as the invoice's gross total by others; when the two differ the field is
// left null for review rather than one reading stated as the total.
// invoice-v2 states both (total_minor, amount_due_minor).
//
// Reason: "Bruttosumme 23.800,00 / Erhaltene Anzahlungen 11.900,00 /
// Zahlbetrag 11.900,00": one document, two totals.
func (d *document) prepaid(total int64, cur *string) bool {
	if cur == nil {
		return false // invoice-v2's reading states no amount without one
	}
	exp, known := currencyExponent(*cur)
	if !known {
		return false
	}
	// Cheap first: a payment label with an amount P, and the gross total
	// +P printed somewhere. Receipts' "CASH PAID 50.00" lines fail here,
	// before a second reading of the summary block.
	lx := paidLexicon()
	var paid []int64
	for i, ln := range d.lines {
		if ln.blank || len(ln.nums) == 0 && (i+1 >= len(d.lines) || len(d.lines[i+1].nums) == 0) {
			continue // no amount for a payment label to name
		}
		if !ln.has(lx) {
			continue
		}
		// "Less: Deposit paid / (02/20/2026)  -$2,000.00": the amount may
		// stand on the line below its label.
		for j := i; j <= i+1 && j < len(d.lines); j++ {
			d.eachAmount(d.lines[j], exp, known, func(v int64) bool {
				paid = append(paid, v)
				return false
			})
		}
	}
	if len(paid) == 0 {
		return false
	}
	grossPrinted := false
	for _, ln := range d.lines {
		if grossPrinted {
			break
		}
		d.eachAmount(ln, exp, known, func(v int64) bool {
			for _, p := range paid {
				if p > 0 && v == total+p {
					grossPrinted = true
				}
			}
			return grossPrinted
		})
	}
	if !grossPrinted {
		return false
	}
	a := d.readAmountsV2()
	if a.Total == nil || a.Due == nil || a.Due.V != total || a.Due.V >= a.Total.V {
		return false
	}
	for _, p := range paid {
		if p == a.Total.V-a.Due.V {
			return true
		}
	}
	return false
}

// eachAmount calls f with the magnitude of each usable amount of ln, read
// with the currency's exponent, until f returns true.
func (d *document) eachAmount(ln *line, exp int, known bool, f func(int64) bool) {
	for _, t := range usableNums(ln, nil) {
		v, _, ok := parseNumber(t.text(ln.raw), exp, known)
		if !ok {
			continue
		}
		if v < 0 {
			v = -v
		}
		if f(v) {
			return
		}
	}
}

// paidLexicon is invoice-v2's lexicon of payments already made.
func paidLexicon() *lexicon {
	for _, l := range v2Lexicons {
		if l.kind == akPaid {
			return l.re
		}
	}
	panic("rules: v2Lexicons has no akPaid entry")
}
