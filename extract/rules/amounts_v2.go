package rules

import (
	"strings"

	"github.com/invx/invx/schema"
)

// readAmountsV2 reads the currency, the gross total, net, tax, amount due,
// the tax lines and the line items.
//
// Every amount is read from a labelled summary line and then checked
// against the others: a subtotal counts as the net only when net + tax
// makes the total, two totals that disagree give no total, a tax rate that
// does not produce its tax is dropped. What cannot be made consistent is
// left out (right or silent).
func (d *document) readAmountsV2() amountsV2 {
	var a amountsV2
	_, cur := d.findTotalLabelled()
	if cur == nil {
		return a // an amount without a currency means nothing
	}
	exp, ok := currencyExponent(*cur)
	if !ok {
		return a
	}
	if ev := d.currencyEvidence(*cur); ev != "" {
		a.Currency = &fact[string]{V: *cur, Ev: ev}
	} else {
		return a
	}
	items := d.readLineItems(exp)
	tt := d.readTaxTable(exp, items.rows)
	skip := map[int]bool{}
	for _, m := range []map[int]bool{items.rows, tt.rows} {
		for k := range m {
			skip[k] = true
		}
	}
	ls := d.readLabelled(exp, skip)
	s := summarizeLabelled(ls)
	s.taxRemark = d.taxRemark(skip)
	for _, tl := range tt.lines {
		s.tableTax = append(s.tableTax, tl.TaxMinor)
	}

	a.Total, a.Net = s.pickGrossNet()
	if a.Total == nil {
		a.Total = d.paidSubtotal(s, exp)
	}
	a.Tax = s.tax
	a.Due = s.pickDue(a.Total)
	if a.Due == nil {
		a.Due = s.adjustedDue
	}
	if a.Due != nil && a.Due.V == 0 && a.Total == nil {
		// "RC BALANCE : 0.00" is a rewards balance as often as a settled
		// invoice: a zero due is believed only beside the total it settles.
		a.Due = nil
	}
	if a.Due == nil && a.Total != nil {
		a.Due = d.roundedDue(s, a.Total, exp)
	}
	a.TotalIsPayable = s.totalIsPayable(a.Total)
	a.TaxLines = s.taxLines()
	a.fillFromTaxTable(tt)
	a.reconcile()

	a.Lines = items.lines
	if items.complete {
		a.LinesComplete = linesAddUp(items.lines, a.Net, a.Total, max(1, int64(len(a.TaxLines))))
	}
	return a
}

// labelledSet is the labelled amounts sorted by what they name.
type labelledSet struct {
	all                []labelled
	gross, due         []labelled
	net, sub           []labelled
	rated, plainTax    []labelled
	tax                *fact[int64]
	paid, fee, adjusts int
	prior              int          // balances carried from earlier bills, not zero
	firstPaid          int          // line of the first deposit or prepayment, -1
	taxRemark          bool         // a remark states a tax the total includes (taxRemark)
	lastFee            int          // line of the last fee, -1
	oddRate            bool         // a rate that tax lines cannot state: no tax lines
	tableTax           []int64      // the taxes of a tax summary table's rows
	adjustedDue        *fact[int64] // a rounded total below the gross (adjustedLast)
}

func summarizeLabelled(ls []labelled) *labelledSet {
	s := &labelledSet{all: ls, lastFee: -1, firstPaid: -1}
	var sums []labelled
	for _, l := range ls {
		switch l.kind {
		case akGross:
			s.gross = append(s.gross, l)
		case akDue:
			s.due = append(s.due, l)
		case akNet:
			s.net = append(s.net, l)
		case akSub:
			s.sub = append(s.sub, l)
		case akTax:
			if l.odd {
				s.oddRate = true
			}
			if l.rate != nil || l.odd {
				s.rated = append(s.rated, l)
			} else {
				s.plainTax = append(s.plainTax, l)
			}
		case akTaxSum:
			sums = append(sums, l)
		case akPaid:
			s.paid++
			if s.firstPaid < 0 {
				s.firstPaid = l.line
			}
		case akFee:
			s.fee++
			s.lastFee = l.line
		case akPrior:
			if l.minor != 0 {
				s.prior++
			}
		case akAdjust:
			s.adjusts++
		}
	}
	// The tax: a printed total of the taxes, else the one tax amount the
	// document prints (several rates without a printed total give none).
	if v, ok := oneValue(sums); ok {
		s.tax = v
	} else if len(sums) == 0 {
		taxes := append(append([]labelled(nil), s.rated...), s.plainTax...)
		if v, ok := oneValue(taxes); ok && !splitTax(taxes) {
			s.tax = v
		}
	}
	return s
}

// taxComponent names the part of a split tax a label states: India's GST
// is charged as a central and a state (or union territory) half, at the
// same rate and of the same amount, so "CGST @ 9%  999.00" over "SGST @ 9%
// 999.00" is two taxes adding up, not one printed twice. "" for any other
// label.
func taxComponent(folded string) string {
	// Reason: CGST and SGST of one amount at one rate are two taxes, not a repeat.
	for _, c := range [...]string{"cgst", "sgst", "utgst"} {
		if strings.HasPrefix(folded, c) && (len(folded) == len(c) || !isREWordByte(folded[len(c)])) {
			return c
		}
	}
	return ""
}

// splitTax reports whether ls state two different parts of a split tax
// (taxComponent).
func splitTax(ls []labelled) bool {
	first := ""
	for _, l := range ls {
		if c := taxComponent(l.folded); c != "" {
			if first != "" && c != first {
				return true
			}
			first = c
		}
	}
	return false
}

// taxRemark reports whether a remark line, which readLabelled passes over,
// names a tax: "(Consumption tax 10% incl. ¥106)", "(GST 6% included)".
//
// Reason: a document whose prices include a tax stated only in a remark
// has tax all the same, so a subtotal equal to its total is no net.
func (d *document) taxRemark(skip map[int]bool) bool {
	for i, ln := range d.lines {
		if ln.blank || skip[i] || !remarkLine(ln.raw) {
			continue
		}
		for _, h := range summaryLabels(ln) {
			if h.kind == akTax || h.kind == akTaxSum {
				return true
			}
		}
	}
	return false
}

// oneValue returns the amount of ls when they all state the same one
// (a remittance slip repeats the total), citing the last.
func oneValue(ls []labelled) (*fact[int64], bool) {
	if len(ls) == 0 {
		return nil, false
	}
	for _, l := range ls {
		if l.minor != ls[0].minor {
			return nil, false
		}
	}
	l := ls[len(ls)-1]
	return &fact[int64]{V: l.minor, Ev: l.ev}, true
}

// near reports |a-b| <= tol.
func near(a, b, tol int64) bool { return a-b <= tol && b-a <= tol }

// pickGrossNet chooses the gross total and the net together: the latest net
// (explicit, else a subtotal) that makes the total with the tax; a subtotal
// never counts unchecked, since a discount or shipping may follow it.
func (s *labelledSet) pickGrossNet() (gross, net *fact[int64]) {
	var grossCands []labelled
	if s.fee > 0 {
		// A reminder's fees: the totals after them are the amount due.
		for _, l := range s.gross {
			if l.line < s.lastFee {
				grossCands = append(grossCands, l)
			}
		}
	} else {
		grossCands = s.gross
	}
	// "TOTAL : 0.00" beside "TOTAL SALES : 327.00" is a tax or discount
	// column's total: a zero is never the gross when another total is not.
	if nz := nonZero(grossCands); len(nz) > 0 {
		grossCands = nz
	}
	if len(grossCands) == 0 && s.paid == 0 && s.prior == 0 {
		// Only an amount payable (before a reminder's fees): that is the
		// total too.
		var due []labelled
		for _, l := range s.due {
			if s.fee == 0 || l.line < s.lastFee {
				due = append(due, l)
			}
		}
		if v, ok := oneValue(due); ok && (s.fee > 0 || len(s.gross) == 0) {
			grossCands = []labelled{{minor: v.V, ev: v.Ev}}
		}
	}
	if len(grossCands) == 0 {
		if g, n := s.netAsTotal(); g != nil {
			return g, n
		}
	}
	// Explicit nets latest first, then subtotals latest first.
	var nets []labelled
	for k := len(s.net) - 1; k >= 0; k-- {
		nets = append(nets, s.net[k])
	}
	for k := len(s.sub) - 1; k >= 0; k-- {
		nets = append(nets, s.sub[k])
	}
	tol := max(int64(1), int64(len(s.rated)))
	// The tax to check the sum with: the one printed, else the rated
	// lines' taxes (several rates, no printed total).
	var taxV int64
	taxKnown := s.tax != nil
	if taxKnown {
		taxV = s.tax.V
	} else if len(s.rated) > 1 && len(s.plainTax) == 0 {
		for _, r := range s.rated {
			taxV += r.minor
		}
		taxKnown = true
	} else if len(s.rated) == 0 && len(s.plainTax) == 0 && len(s.tableTax) > 0 {
		for _, v := range s.tableTax {
			taxV += v
		}
		taxKnown = true
	}
	if taxKnown && taxV > 0 {
		// Reason: a gross total includes its tax, so a "total" below the
		// tax is another figure ("TOTAL EV : 2.10", loyalty points, beside
		// GST of 4.43).
		grossCands = notBelow(grossCands, taxV)
	}
	if taxKnown && len(grossCands) == 0 && s.paid > 0 && s.fee == 0 {
		// Reason: "TOTAL AMOUNT PAYABLE 488.66 / DEPOSIT PAID 200.00 /
		// BALANCE DUE 288.66": an amount payable above the deposit is the
		// gross when net and tax make it.
		for k := len(s.due) - 1; k >= 0; k-- {
			if g := s.due[k]; g.line < s.firstPaid {
				for _, n := range nets {
					if near(n.minor+taxV, g.minor, tol) {
						return &fact[int64]{V: g.minor, Ev: g.ev}, &fact[int64]{V: n.minor, Ev: n.ev}
					}
				}
			}
		}
	}
	if taxKnown {
		// Latest total first, explicit net before subtotal, latest first.
		for gi := len(grossCands) - 1; gi >= 0; gi-- {
			g := grossCands[gi]
			for _, n := range nets {
				if near(n.minor+taxV, g.minor, tol) {
					return &fact[int64]{V: g.minor, Ev: g.ev}, &fact[int64]{V: n.minor, Ev: n.ev}
				}
			}
			// A plain "Total" that is the net of a later gross total.
			for ni := gi - 1; ni >= 0; ni-- {
				n := grossCands[ni]
				if near(n.minor+taxV, g.minor, tol) && n.minor != g.minor {
					return &fact[int64]{V: g.minor, Ev: g.ev}, &fact[int64]{V: n.minor, Ev: n.ev}
				}
			}
		}
	}
	gross, _ = oneValue(grossCands)
	if gross == nil {
		gross = s.risingLast(grossCands)
	}
	if gross == nil {
		gross, s.adjustedDue = s.adjustedLast(grossCands)
	}
	// Without a sum that adds up: an explicit net only when the document
	// has no tax at all and the net is the total; a subtotal likewise, and
	// only with nothing (discount, shipping) between it and the total.
	noTax := len(s.rated) == 0 && len(s.plainTax) == 0 && s.tax == nil && !s.taxRemark
	if gross == nil {
		net, _ = oneValue(s.net)
		return gross, net
	}
	if v, ok := oneValue(s.net); ok && noTax && v.V == gross.V {
		net = v
	} else if v, ok := oneValue(s.sub); ok && len(s.net) == 0 && noTax && v.V == gross.V && s.adjusts == 0 {
		net = v
	}
	return gross, net
}

// notBelow returns the amounts of ls of at least v, in a new slice when it
// drops one.
func notBelow(ls []labelled, v int64) []labelled {
	for k, l := range ls {
		if l.minor < v {
			out := append([]labelled(nil), ls[:k]...)
			for _, m := range ls[k+1:] {
				if m.minor >= v {
					out = append(out, m)
				}
			}
			return out
		}
	}
	return ls
}

// pickDue chooses the amount due: the one amount the due labels state; with
// a reminder's fees, the last total after them.
func (s *labelledSet) pickDue(gross *fact[int64]) *fact[int64] {
	if s.fee > 0 {
		var after []labelled
		for _, l := range s.all {
			if (l.kind == akDue || l.kind == akGross) && l.line > s.lastFee {
				after = append(after, l)
			}
		}
		if len(after) > 0 {
			l := after[len(after)-1]
			return &fact[int64]{V: l.minor, Ev: l.ev}
		}
		return nil
	}
	v, ok := oneValue(s.due)
	if !ok && s.paid > 0 && gross != nil {
		// The amounts payable before a deposit and after it: what is left
		// to pay is the one below every deposit, when the gross is known.
		var after []labelled
		for _, l := range s.due {
			if l.line > s.lastPaidLine() {
				after = append(after, l)
			}
		}
		v, _ = oneValue(after)
	}
	return v
}

// lastPaidLine is the line of the last deposit or prepayment, -1 if none.
func (s *labelledSet) lastPaidLine() int {
	last := -1
	for _, l := range s.all {
		if l.kind == akPaid {
			last = max(last, l.line)
		}
	}
	return last
}

// totalIsPayable reports whether gross is the last word on what to pay:
// no payment or deposit anywhere, no fee, and no adjustment labelled below
// the last line that prints the gross total.
func (s *labelledSet) totalIsPayable(gross *fact[int64]) bool {
	if gross == nil || s.paid > 0 || s.fee > 0 {
		return false
	}
	last := -1
	for _, l := range s.gross {
		if l.minor == gross.V {
			last = max(last, l.line)
		}
	}
	if last < 0 {
		return false
	}
	for _, l := range s.all {
		if l.kind == akAdjust && l.line > last {
			return false
		}
	}
	return true
}

// taxLines builds one tax line per printed rate, and per part of a split
// tax (taxComponent). A rate printed twice with different taxes gives none:
// the reading is unsure.
func (s *labelledSet) taxLines() []schema.TaxLine {
	if s.oddRate {
		return nil
	}
	var out []schema.TaxLine
	type key struct {
		rate int64
		part string // taxComponent: the halves of a split tax are two lines
	}
	seen := map[key]int{}
	for _, l := range s.rated {
		k := key{*l.rate, taxComponent(l.folded)}
		if i, ok := seen[k]; ok {
			if out[i].TaxMinor != l.minor {
				return nil
			}
			continue
		}
		seen[k] = len(out)
		tl := schema.TaxLine{RateBP: *l.rate, TaxMinor: l.minor, BaseMinor: l.base}
		if tl.BaseMinor != nil && !taxOf(*tl.BaseMinor, tl.RateBP, tl.TaxMinor) {
			return nil
		}
		out = append(out, tl)
	}
	if len(out) > 16 {
		return nil
	}
	return out
}

// taxOf reports whether tax is rate (basis points) of base, allowing the
// rounding of per-line tax: two minor units, or 0.1 % of the tax.
func taxOf(base, rateBP, tax int64) bool {
	want := float64(base) * float64(rateBP) / 10000
	tol := max(2.0, float64(tax)/1000)
	diff := want - float64(tax)
	return diff <= tol && diff >= -tol
}

// fillFromTaxTable takes what the labelled lines did not give from a tax
// summary table, when the table agrees with the total read.
func (a *amountsV2) fillFromTaxTable(tt taxTable) {
	if len(tt.lines) == 0 {
		return
	}
	if len(a.TaxLines) == 0 {
		a.TaxLines = tt.lines
	}
	if tt.net == nil && tt.oneBase != nil && a.Total != nil && near(tt.oneBase.V+tt.oneTax.V, a.Total.V, 1) {
		// Reason: "23%  750,00  172,50  922,50" under a total of 922,50: one
		// rate's base and tax are the whole net and tax when they make the
		// total, totals row or not.
		if a.Net == nil {
			a.Net = tt.oneBase
		}
		if a.Tax == nil {
			a.Tax = tt.oneTax
		}
		return
	}
	if tt.net == nil {
		return
	}
	if a.Total != nil && tt.gross != nil && a.Total.V != tt.gross.V {
		return // the table is of something else
	}
	if a.Total == nil && tt.gross != nil {
		a.Total = tt.gross
	}
	if a.Net == nil {
		a.Net = tt.net
	}
	if a.Tax == nil {
		a.Tax = tt.tax
	}
}

// reconcile drops what does not add up, the least sure value first.
func (a *amountsV2) reconcile() {
	tol := max(int64(1), int64(len(a.TaxLines)))
	if a.Net != nil && a.Tax != nil && a.Total != nil && !near(a.Net.V+a.Tax.V, a.Total.V, tol) {
		a.Net = nil
	}
	if len(a.TaxLines) > 0 {
		var tax, base int64
		all := true
		for _, tl := range a.TaxLines {
			tax += tl.TaxMinor
			if tl.BaseMinor == nil {
				all = false
			} else {
				base += *tl.BaseMinor
			}
		}
		switch {
		case a.Tax != nil && !near(tax, a.Tax.V, tol):
			a.TaxLines = nil
		case all && a.Net != nil && !near(base, a.Net.V, tol):
			a.TaxLines = nil
		case len(a.TaxLines) == 1 && a.TaxLines[0].BaseMinor == nil && a.Net != nil &&
			!taxOf(a.Net.V, a.TaxLines[0].RateBP, a.TaxLines[0].TaxMinor):
			// "Skonto 2 %" on the tax line, or a rate misread.
			a.TaxLines = nil
		}
	}
	if a.Total != nil && a.Tax != nil && a.Tax.V > a.Total.V {
		a.Tax, a.TaxLines = nil, nil
	}
}

// linesAddUp reports whether the line amounts add up to the net or, for
// gross-priced lines, to the total.
func linesAddUp(lines []schema.LineItem, net, total *fact[int64], tol int64) bool {
	var sum int64
	for _, li := range lines {
		if li.AmountMinor == nil {
			return false
		}
		sum += *li.AmountMinor
	}
	return net != nil && near(sum, net.V, tol) || total != nil && near(sum, total.V, tol)
}

// currencyEvidence returns the text of the first currency indicator of the
// document that names code in a form validation accepts: the ISO code, or a
// symbol of it; for a currency the document does not print, the place that
// decided it (localeEvidence).
func (d *document) currencyEvidence(code string) string {
	var symbol string
	for _, ln := range d.lines {
		if ln.injected {
			continue
		}
		for _, h := range ln.curs {
			text := ln.raw[h.start:h.end]
			if strings.EqualFold(text, code) {
				return text
			}
			// The symbol table is validation's (schema.CurrencyIn), so a
			// local symbol such as "RM" is cited only when it will be accepted.
			// A "$" that no printed code resolves is the currency withLocale
			// gave the document (a dollar of the issuer's country).
			resolves := d.cur.resolve(h.code) == code || h.code == famDollar && d.cur.dollarGuess
			if symbol == "" && resolves && schema.CurrencyIn(text, code) {
				symbol = text
			}
		}
	}
	if symbol == "" {
		return d.localeEvidence(code)
	}
	return symbol
}

// roundedDue returns the amount due of a till receipt that rounds its gross
// total ("TOTAL 60.31 / ROUNDING -0.01 / 60.30"): the rounded figure, when
// it is printed below the rounding line (so it can be cited).
func (d *document) roundedDue(s *labelledSet, gross *fact[int64], exp int) *fact[int64] {
	last := -1
	for _, l := range s.gross {
		if l.minor == gross.V {
			last = max(last, l.line)
		}
	}
	if last < 0 {
		return nil
	}
	v, at := d.roundedAfter(last, gross.V, exp, true)
	if v == gross.V || at < 0 {
		return nil
	}
	ev := cleanEvidence(d.lines[at].raw)
	if ev == "" || len(ev) > maxEvidenceV2 || !citable(ev) {
		return nil
	}
	return &fact[int64]{V: v, Ev: ev}
}

// nonZero keeps the labelled amounts that are not zero.
func nonZero(ls []labelled) []labelled {
	var out []labelled
	for _, l := range ls {
		if l.minor != 0 {
			out = append(out, l)
		}
	}
	return out
}

// risingLast resolves totals that disagree when the document explains why:
// a receipt prints "TOTAL 49.60", then service charge, tax or rounding, then
// "TOTAL 57.80". The last total counts when it is the largest and a tax or
// adjustment line stands between it and every earlier total that differs.
func (s *labelledSet) risingLast(ls []labelled) *fact[int64] {
	if len(ls) < 2 {
		return nil
	}
	last := ls[len(ls)-1]
	for _, l := range ls[:len(ls)-1] {
		if l.minor > last.minor {
			return nil
		}
		if l.minor == last.minor {
			continue
		}
		between := false
		for _, a := range s.all {
			if a.line > l.line && a.line < last.line && (a.kind == akTax || a.kind == akTaxSum || a.kind == akAdjust) {
				between = true
			}
		}
		if !between {
			return nil
		}
	}
	return &fact[int64]{V: last.minor, Ev: last.ev}
}
