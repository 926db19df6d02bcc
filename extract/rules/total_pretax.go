package rules

// A receipt may print a sum before tax under a label that reads like the
// total ("GROSS AMOUNT 40.00", then "TOTAL GST 2.40", then "TOTAL 42.40"):
// on receipts "gross" is often the sum of the items, the reverse of an
// invoice's net and gross. The arithmetic tells them apart: a labelled
// amount that, plus the tax printed under it, makes a later labelled amount
// is the sum before tax, whatever its label says.

// maxTaxGap bounds the lines between a sum and the tax line under it.
const maxTaxGap = 3

// dropPreTax removes the candidates that a tax amount printed below them
// turns into a later candidate (the cross-check net + tax = total). cands
// is reused; a document without such a pair keeps every candidate.
func (d *document) dropPreTax(cands []totalCand) []totalCand {
	if len(cands) < 2 {
		return cands
	}
	out := cands[:0]
	for k, c := range cands {
		if !d.preTaxOf(c, cands[k+1:]) && !d.adjustedLater(c, cands[k+1:]) {
			out = append(out, c)
		}
	}
	return out
}

// preTaxOf reports whether c plus a tax amount on one of the lines right
// under it equals the amount of a later candidate (later).
func (d *document) preTaxOf(c totalCand, later []totalCand) bool {
	exp, known := currencyExponent(c.cur)
	if !known {
		exp = 2
	}
	base, _, ok := parseNumber(c.tok.text(c.ln.raw), exp, known)
	if !ok || base <= 0 {
		return false
	}
	for j := c.line + 1; j <= c.line+maxTaxGap && j < len(d.lines); j++ {
		ln := d.lines[j]
		if ln.blank {
			continue
		}
		for _, t := range ln.nums {
			if t.code || t.percent {
				continue
			}
			tax, frac, ok := parseNumber(t.text(ln.raw), exp, known)
			if !ok || !frac || tax <= 0 {
				continue
			}
			for _, l := range later {
				if l.line <= j {
					continue
				}
				// The sums first, the labels only when they tie: reading a
				// line's labels costs more than adding two numbers.
				if v, _, ok := parseNumber(l.tok.text(l.ln.raw), exp, known); ok && v == base+tax && taxLine(ln) {
					// Reason: sum + tax = a later total: the sum is before tax.
					return true
				}
			}
		}
	}
	return false
}

// taxLine reports whether the line is labelled as a tax amount ("TOTAL GST
// AMT", "VAT 20 %").
func taxLine(ln *line) bool {
	for _, h := range summaryLabels(ln) {
		if h.kind == akTax || h.kind == akTaxSum {
			return true
		}
	}
	return false
}
