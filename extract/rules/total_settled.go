package rules

// A total may be followed by what changes it before the amount payable:
// service charge, tax and rounding on a restaurant bill ("TOTAL AMOUNT
// 49.60", then "SERV CHARGE 4.96", "GST 3.27", "ROUNDING -0.03", then
// "TOTAL 57.80"), a reminder's fee, a deposit already paid. Which label
// reads stronger says nothing then; the arithmetic does: an earlier total
// that, with the signed amounts printed between, makes a later total is
// not the amount payable.

// maxSettleGap bounds how far below the earlier total the later one is:
// three adjustment lines between them (charge, tax, rounding).
const maxSettleGap = 4

// adjustedLater reports whether c plus every amount printed on the lines
// between it and a later candidate equals that candidate's amount. Each
// line between holds at most one amount (a line with two is a table row,
// not an adjustment), and at least one does; an amount that adds must be
// labelled a tax or charge, or printed beside its rate ("SERV CHARGE 10%
// 4.96"): a deposit or a payment never adds to what is owed.
func (d *document) adjustedLater(c totalCand, later []totalCand) bool {
	exp, known := currencyExponent(c.cur)
	if !known {
		exp = 2
	}
	sum, _, ok := parseNumber(c.tok.text(c.ln.raw), exp, known)
	if !ok || sum <= 0 || c.tok.neg {
		return false
	}
	// The later candidates in line order: cands are built top to bottom.
	next := 0
	n := 0
	for j := c.line + 1; j < len(d.lines) && j <= c.line+maxSettleGap; j++ {
		for next < len(later) && later[next].line < j {
			next++
		}
		for k := next; k < len(later) && later[k].line == j; k++ {
			// Reason: total + the adjustments printed under it = a later
			// total: the earlier one is not what is payable.
			if v, _, ok := parseNumber(later[k].tok.text(later[k].ln.raw), exp, known); ok && n > 0 && v == sum && v != 0 && !later[k].tok.neg {
				return true
			}
		}
		if next < len(later) && later[next].line == j {
			return false // another total first: it is the one to compare with
		}
		ln := d.lines[j]
		if ln.blank {
			continue
		}
		var amt *amountTok
		rate := false
		for i := range ln.nums {
			t := &ln.nums[i]
			rate = rate || t.percent
			if t.code || t.percent || !looksDecimal(t.text(ln.raw)) {
				continue
			}
			if amt != nil {
				return false
			}
			amt = t
		}
		if amt == nil {
			continue
		}
		v, _, ok := parseNumber(amt.text(ln.raw), exp, known)
		if !ok {
			return false
		}
		if amt.neg {
			v = -v
		} else if !rate && !addsToTotal(ln) {
			return false
		}
		sum += v
		n++
	}
	return false
}

// addsToTotal reports whether the line is labelled as a tax or a charge.
func addsToTotal(ln *line) bool {
	for _, h := range summaryLabels(ln) {
		if h.kind == akTax || h.kind == akTaxSum || h.kind == akAdjust {
			return true
		}
	}
	return false
}

// rivalTotal reports whether another candidate as strongly labelled as the
// best names a different amount: two "TOTAL AMOUNT" lines that disagree,
// with no cross-check (dropPreTax, adjustedLater) to say which is payable.
//
// A zero (a balance after payment) and a difference below five cents (a
// cash rounding, "TOTAL: 102.39", "0.01", "TOTAL 102.40") make no rival:
// there the later, rounded total is payable, as before.
//
// Reason: the later of two equal labels is a guess; a null goes to review.
func (d *document) rivalTotal(cands []totalCand, best int, bestMinor int64) bool {
	for k, c := range cands {
		if k == best || c.score != cands[best].score || c.cur != cands[best].cur {
			continue
		}
		exp, known := currencyExponent(c.cur)
		if !known {
			exp = 2
		}
		v, frac, ok := parseNumber(c.tok.text(c.ln.raw), exp, known)
		if !ok || !frac || v == 0 || v == bestMinor {
			continue
		}
		if exp == 2 && v-bestMinor < 5 && bestMinor-v < 5 {
			continue
		}
		return true
	}
	return false
}
