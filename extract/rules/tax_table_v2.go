package rules

import (
	"github.com/invx/invx/schema"
)

// taxTable is a tax summary table: one row per rate ("19 %  4.525,50
// 859,85  5.385,35") and, when printed, the row of its totals.
type taxTable struct {
	lines           []schema.TaxLine
	net, tax, gross *fact[int64] // from the totals row, each checked against the rows
	rows            map[int]bool
	// oneBase and oneTax cite the base and tax of a table of one row and
	// no totals row: the document's net and tax when they make its total
	// (fillFromTaxTable).
	oneBase, oneTax *fact[int64]
}

// readTaxTable reads a tax summary table. A row is a line that starts its
// numbers with one rate and then prints base and tax (and optionally the
// gross) such that tax is the rate of the base: the arithmetic, not a
// header, says what the columns are, so tables in any language and layout
// are read, and a row that does not add up is never taken. skip holds the
// item table's lines.
func (d *document) readTaxTable(exp int, skip map[int]bool) taxTable {
	t := taxTable{rows: map[int]bool{}}
	last := -1
	var sumBase, sumTax, sumGross int64
	grossCols := true
	for i, ln := range d.lines {
		if ln.blank || skip[i] {
			continue
		}
		if last >= 0 && i-last > 2 {
			break // the table ended
		}
		tl, gross, ok := taxRow(ln, exp)
		if !ok {
			if last >= 0 && len(t.lines) > 0 && t.net == nil {
				d.taxTotalsRow(ln, exp, &t, sumBase, sumTax, sumGross, grossCols)
				if t.net != nil {
					t.rows[i] = true
					break
				}
			}
			continue
		}
		if len(t.lines) >= 16 {
			return taxTable{}
		}
		for _, x := range t.lines {
			if x.RateBP == tl.RateBP {
				return taxTable{} // a rate twice: not a summary table
			}
		}
		t.lines = append(t.lines, tl)
		t.rows[i] = true
		sumBase += *tl.BaseMinor
		sumTax += tl.TaxMinor
		if gross == nil {
			grossCols = false
		} else {
			sumGross += *gross
		}
		last = i
	}
	if len(t.lines) == 1 && t.net == nil {
		t.oneBase, t.oneTax = d.taxRowFacts(d.lines[last], exp)
	}
	return t
}

// taxRowFacts cites a tax row's base and tax (taxRow has read it).
func (d *document) taxRowFacts(ln *line, exp int) (base, tax *fact[int64]) {
	var money []amountTok
	for _, x := range ln.nums {
		if !x.percent && plausibleAmount(ln, x, exp) {
			money = append(money, x)
		}
	}
	if len(money) < 2 {
		return nil, nil
	}
	var v [2]int64
	for k := range v {
		m, _, ok := parseNumber(money[k].text(ln.raw), exp, true)
		if !ok {
			return nil, nil
		}
		v[k] = m
	}
	return &fact[int64]{V: v[0], Ev: citeAmount(ln, money[0])}, &fact[int64]{V: v[1], Ev: citeAmount(ln, money[1])}
}

// citeAmount quotes an amount of ln with the currency printed right after it.
func citeAmount(ln *line, x amountTok) string {
	end := x.end
	if h, ok := curNextTo(ln, x); ok && h.start >= x.end {
		end = h.end
	}
	s, e := trimSpan(ln.raw, x.start, end)
	return cleanEvidence(ln.raw[s:e])
}

// taxRow reads "rate base tax [gross]" from a line whose first number is a
// percentage.
func taxRow(ln *line, exp int) (schema.TaxLine, *int64, bool) {
	var tl schema.TaxLine
	var rate *amountTok
	var money []amountTok
	for k := range ln.nums {
		t := ln.nums[k]
		if t.percent {
			if rate != nil || len(money) > 0 {
				return tl, nil, false
			}
			rate = &ln.nums[k]
			continue
		}
		if rate == nil {
			return tl, nil, false // a number before the rate: an item row
		}
		if !plausibleAmount(ln, t, exp) {
			return tl, nil, false
		}
		money = append(money, t)
	}
	if rate == nil || len(money) < 2 || len(money) > 3 {
		return tl, nil, false
	}
	for _, h := range summaryLabels(ln) {
		if h.kind == akAdjust || h.kind == akPaid || h.kind == akFee || h.kind == akIgnore || h.kind == akPrior {
			return tl, nil, false // "2 % Skonto 5.385,35 107,71" adds up too
		}
	}
	bp, ok := rateBP(rate.text(ln.raw))
	if !ok {
		return tl, nil, false
	}
	var v []int64
	for _, t := range money {
		m, _, ok := parseNumber(t.text(ln.raw), exp, true)
		if !ok || t.neg {
			return tl, nil, false
		}
		v = append(v, m)
	}
	base, tax := v[0], v[1]
	if !taxOf(base, bp, tax) {
		return tl, nil, false
	}
	var gross *int64
	if len(v) == 3 {
		if !near(base+tax, v[2], 1) {
			return tl, nil, false
		}
		gross = &v[2]
	}
	tl = schema.TaxLine{RateBP: bp, BaseMinor: &base, TaxMinor: tax}
	return tl, gross, true
}

// taxTotalsRow reads the totals row under the tax rows: no rate, and the
// same columns adding up to the rows' sums.
func (d *document) taxTotalsRow(ln *line, exp int, t *taxTable, sumBase, sumTax, sumGross int64, grossCols bool) {
	var money []amountTok
	for _, x := range ln.nums {
		if x.percent {
			return
		}
		if plausibleAmount(ln, x, exp) {
			money = append(money, x)
		}
	}
	want := 2
	if grossCols {
		want = 3
	}
	if len(money) != want {
		return
	}
	var v []int64
	for _, x := range money {
		m, _, ok := parseNumber(x.text(ln.raw), exp, true)
		if !ok {
			return
		}
		v = append(v, m)
	}
	tol := max(int64(1), int64(len(t.lines)))
	if !near(v[0], sumBase, tol) || !near(v[1], sumTax, tol) || grossCols && !near(v[2], sumGross, tol) {
		return
	}
	t.net = &fact[int64]{V: v[0], Ev: citeAmount(ln, money[0])}
	t.tax = &fact[int64]{V: v[1], Ev: citeAmount(ln, money[1])}
	if grossCols {
		t.gross = &fact[int64]{V: v[2], Ev: citeAmount(ln, money[2])}
	}
}
