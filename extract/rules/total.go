package rules

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// Strength of an amount label.
const (
	clsNeg   = -1
	clsWeak  = 4
	clsPlain = 10
	clsGrand = 20
	clsDue   = 30
)

var totalLexicons = []struct {
	cls int
	re  *lexicon
}{
	// Receipt wording first: on equal spans the earlier lexicon wins.
	{clsNeg, lexRE(receiptNegPhrases...)},
	{clsGrand, lexRE(receiptGrandPhrases...)},
	{clsDue, lexRE(totalDuePhrases...)},
	{clsGrand, lexRE(totalGrandPhrases...)},
	{clsPlain, lexRE(totalPlainPhrases...)},
	{clsWeak, lexRE(totalWeakPhrases...)},
	{clsNeg, lexRE(totalNegPhrases...)},
}

// labelHit is a label found in a folded line.
type labelHit struct {
	start, end int // folded
	cls        int
}

// resolveHits keeps, among overlapping hits, the one that starts first and
// then the longest; equal spans keep the order given.
func resolveHits(hits []labelHit) []labelHit {
	// slices' stable sort: sort.SliceStable allocated on every line.
	slices.SortStableFunc(hits, func(a, b labelHit) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(b.end-b.start, a.end-a.start)
	})
	var out []labelHit
	lastEnd := -1
	for _, h := range hits {
		if h.start < lastEnd {
			continue
		}
		out = append(out, h)
		lastEnd = h.end
	}
	return out
}

// totalLabels lists the amount labels of a folded line and the spans that
// qualify a total ("incl. VAT") without being labels.
func totalLabels(ln *line) ([]labelHit, [][]int) {
	f := ln.f.s
	var hits []labelHit
	var buf [8][2]int
	for _, lx := range totalLexicons {
		for _, m := range ln.appendLabels(buf[:0], lx.re) {
			hits = append(hits, labelHit{m[0], m[1], lx.cls})
		}
	}
	if len(hits) == 0 {
		// Most lines: the absorbed wording matters only around a label.
		return nil, nil
	}
	absorb := reTotalAbsorb().FindAllStringIndex(f, -1)
	hits = resolveHits(hits)
	out := hits[:0]
	for _, h := range hits {
		inside := false
		for _, a := range absorb {
			if h.start >= a[0] && h.start < a[1] {
				inside = true
				break
			}
		}
		if inside {
			continue
		}
		if h.cls == clsPlain {
			for _, a := range absorb {
				if a[0] >= h.end && strings.TrimSpace(strings.Trim(f[h.end:a[0]], " :()")) == "" {
					h.cls = clsGrand
				}
			}
		}
		out = append(out, h)
	}
	return out, absorb
}

// totalCand is a candidate amount payable.
type totalCand struct {
	score  int
	line   int
	pos    int
	ln     *line
	tok    amountTok
	cur    string // resolved ISO code or ""
	curRaw bool   // the currency was printed next to the amount or label
}

var reAllowedGapWord = lexRE("amount", "betrag", "montant", "importe", "bedrag", "importo", "total", "totale", "totaal",
	"due", "in", "en", "de", "of", "the", "this", "invoice", "rechnung", "facture", "factura", "factuur", "fattura",
	"eur", "usd", "gbp", "chf", "now", "sum", "gross", "brutto", "ttc", "incl", "inkl", "a", "da", "te", "zu", "to", "pay",
	"payable", "amount due", "balance", "net", "final", "grand", "document", "doc", "des", "du", "le", "la", "il", "het",
	"all", "taxes", "tax", "vat", "mwst", "iva", "tva", "btw", "included", "inc", "including", "con", "y", "et", "und", "and",
	"su", "your", "please", "by", "before", "rounded", "sales", "myr", "rm", "amt", "for")

// gapWithoutDates returns the folded gap from..to of ln with its dates
// blanked, and whether it held one. Reason: "Total amount due by
// December 2, 2026   EUR 412.58" states the amount payable; only the
// words around the date tell it from a sentence.
func gapWithoutDates(ln *line, from, to int) (string, bool) {
	gap := ln.f.s[from:to]
	if !hasDateIn(ln, from, to) {
		return gap, false // most gaps: no copy
	}
	b := []byte(gap)
	blankDates(ln, b, from, to)
	return string(b), true
}

// hasDateIn reports whether a date of ln lies within folded from..to.
func hasDateIn(ln *line, from, to int) bool {
	for _, dh := range ln.dateHits() {
		if dh.start >= from && dh.end <= to {
			return true
		}
	}
	return false
}

// blankDates blanks, in gap (ln's folded text from..to), the dates that
// lie within it.
func blankDates(ln *line, gap []byte, from, to int) {
	for _, dh := range ln.dateHits() {
		if dh.start >= from && dh.end <= to {
			for k := dh.start - from; k < dh.end-from; k++ {
				gap[k] = ' '
			}
		}
	}
}

// gapPenalty punishes a total whose label and amount are separated by
// unrelated words ("Total services 500.00").
func gapPenalty(gapF string) int {
	rest := reAllowedGapWord.ReplaceAllString(gapF, " ")
	rest = reTotalAbsorb().ReplaceAllString(rest, " ")
	words := 0
	for _, w := range strings.FieldsFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) >= 3 {
			words++
		}
	}
	if words > 0 {
		return -5
	}
	return 0
}

// usableNums returns the numbers of a line that may be amounts: not
// percentages, not inside a date and not inside an absorbed qualifier.
//
// Most lines keep every number: their own ln.nums is returned then (capped,
// so an append copies), not a copy, which was v2's most frequent growslice.
// Callers only read the result.
func usableNums(ln *line, absorbF [][]int) []amountTok {
	var out []amountTok
	kept := true // every number so far is usable: out is still unmade
	for k, t := range ln.nums {
		skip := t.percent
		for _, dh := range ln.dateHits() {
			if skip {
				break
			}
			s, e := ln.f.rawSpan(dh.start, dh.end)
			skip = t.numStart < e && t.numEnd > s
		}
		for _, a := range absorbF {
			if skip {
				break
			}
			s, e := ln.f.rawSpan(a[0], a[1])
			skip = t.numStart >= s && t.numEnd <= e
		}
		switch {
		case skip && kept:
			kept = false
			if k > 0 {
				out = append(make([]amountTok, 0, len(ln.nums)-1), ln.nums[:k]...)
			}
		case !skip && !kept:
			out = append(out, t)
		}
	}
	if kept && len(ln.nums) > 0 {
		return ln.nums[:len(ln.nums):len(ln.nums)]
	}
	return out
}

// curNextTo returns the currency printed right next to a number.
func curNextTo(ln *line, t amountTok) (curHit, bool) {
	for _, h := range ln.curs {
		if t.numStart >= h.end && t.numStart-h.end <= 4 && strings.Trim(ln.raw[h.end:t.numStart], " \u00a0\u202f-−(") == "" {
			return h, true
		}
		if h.start >= t.numEnd && h.start-t.numEnd <= 4 && strings.Trim(ln.raw[t.numEnd:h.start], " \u00a0\u202f-−)") == "" {
			return h, true
		}
	}
	return curHit{}, false
}

func looksDecimal(s string) bool {
	n := len(s)
	for k := 1; k <= 3 && k < n; k++ {
		if (s[n-k-1] == '.' || s[n-k-1] == ',') && k <= 2 {
			return true
		}
	}
	return false
}

// pickToken chooses among the numbers that follow a label: one printed with
// a currency, else one with decimals, else the last.
func pickToken(ln *line, toks []amountTok) amountTok {
	for k := len(toks) - 1; k >= 0; k-- {
		if _, ok := curNextTo(ln, toks[k]); ok {
			return toks[k]
		}
	}
	for k := len(toks) - 1; k >= 0; k-- {
		if looksDecimal(toks[k].text(ln.raw)) {
			return toks[k]
		}
	}
	return toks[len(toks)-1]
}

// amountOnly reports whether raw[s:e] holds just one amount with optional
// currency and sign.
func amountOnly(ln *line, s, e int, toks []amountTok) bool {
	n := 0
	for _, t := range toks {
		if t.numStart >= s && t.numEnd <= e {
			n++
		}
	}
	if n != 1 {
		return false
	}
	rest := ln.raw[s:e]
	for _, t := range toks {
		if t.numStart >= s && t.numEnd <= e {
			rest = strings.Replace(rest, ln.raw[t.numStart:t.numEnd], " ", 1)
		}
	}
	for _, h := range ln.curs {
		if h.start >= s && h.end <= e {
			rest = strings.Replace(rest, ln.raw[h.start:h.end], " ", 1)
		}
	}
	letters := 0
	for _, r := range rest {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			letters++
		}
	}
	return letters == 0
}

// findTotal returns the amount payable: its minor units and currency.
func (d *document) findTotal() (total *int64, currency *string) {
	total, currency = d.findTotalLabelled()
	if total != nil || currency == nil {
		return total, currency
	}
	// No label names the payable on its own; invoice-v2's summary reading
	// may still find it by its sums ("NET TOTAL" = subtotal + tax), and it
	// states nothing it cannot cross-check.
	a := d.readAmountsV2()
	if a.Currency == nil || a.Currency.V != *currency {
		return nil, currency
	}
	for _, f := range []*fact[int64]{a.Due, a.Total} {
		if f != nil {
			if f.V == 0 {
				return nil, currency // a zero payable is a balance of something else as often
			}
			v := f.V
			return &v, currency
		}
	}
	return nil, currency
}

// findTotalLabelled is findTotal by the labels alone: the strongest label
// naming an amount payable, and the currency.
func (d *document) findTotalLabelled() (total *int64, currency *string) {
	// Once per document: v1's findTotal asks again through readAmountsV2
	// when no label names the payable. Callers only read the answers.
	if !d.totalDone {
		d.total, d.totalCur = d.findTotalLabelledOnce()
		d.totalCur = d.withLocale(d.total, d.totalCur)
		d.totalDone = true
	}
	return d.total, d.totalCur
}

func (d *document) findTotalLabelledOnce() (total *int64, currency *string) {
	var cands []totalCand
	inTaxSummary := d.taxSummaryLines()
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		labels, absorb := totalLabels(ln)
		if len(labels) == 0 {
			continue
		}
		if remarkLine(ln.raw) {
			// Reason: "(TOTAL INCLUDED GST @ 6% : 1.09)" remarks on the total
			// and states its tax; invoice-v2's reading skips it too.
			continue
		}
		if inTaxSummary[i] && labels[0].cls == clsPlain {
			continue // "TOTAL 565.50 33.93" under "GST SUMMARY": the table's sum of bases
		}
		toks := usableNums(ln, absorb)
		// Raw spans of the labels.
		type rl struct {
			labelHit
			rs, re int
		}
		rls := make([]rl, len(labels))
		for k, h := range labels {
			s, e := ln.f.rawSpan(h.start, h.end)
			rls[k] = rl{h, s, e}
		}
		assigned := make([][]amountTok, len(rls))
		for _, t := range toks {
			owner := -1
			for k, r := range rls {
				if r.re <= t.numStart {
					owner = k
				}
			}
			if owner >= 0 {
				assigned[owner] = append(assigned[owner], t)
			}
		}
		for k, r := range rls {
			if r.cls == clsNeg {
				continue
			}
			if moneyCount(ln, assigned[k]) >= 2 {
				// "TOTAL : 106.10 6.37": a row of a tax summary table (base
				// and tax), not the amount payable.
				continue
			}
			if len(assigned[k]) > 0 {
				t := pickToken(ln, assigned[k])
				tf := ln.f.foldPos(t.numStart)
				gapF, dated := gapWithoutDates(ln, r.end, tf)
				score := r.cls + gapPenalty(gapF)
				if dated && score < r.cls {
					// "Te betalen vóór 15/04/2026 op rekening ...": a due-date
					// sentence, not an amount line.
					continue
				}
				c := totalCand{score: score, line: i, pos: r.rs, ln: ln, tok: t}
				c.cur, c.curRaw = d.totalCurrency(ln, r.rs, t, nil)
				cands = append(cands, c)
				continue
			}
			if k != len(rls)-1 || ln.has(reTableHeader) {
				continue
			}
			for _, sp := range d.valueSpans(i, r.rs, r.re)[1:] {
				vl := d.lines[sp.line]
				vt := usableNums(vl, nil)
				if !amountOnly(vl, sp.start, sp.end, vt) {
					continue
				}
				var t amountTok
				for _, x := range vt {
					if x.numStart >= sp.start && x.numEnd <= sp.end {
						t = x
					}
				}
				c := totalCand{score: r.cls - 1, line: sp.line, pos: r.rs, ln: vl, tok: t}
				c.cur, c.curRaw = d.totalCurrency(vl, sp.start, t, ln)
				cands = append(cands, c)
				break
			}
		}
	}
	if len(cands) == 0 {
		if c := d.dominantCurrency(); c != "" {
			return nil, &c
		}
		return nil, nil
	}
	cands = d.dropPreTax(cands)
	// A document that prints its labelled amounts, or any amount beside a
	// currency, with decimals prints money so; a bare integer with no
	// currency of its own ("CLOSING BALANCE 2307") counts points or pieces.
	anyFrac, anyNonZero := false, false
	for _, c := range cands {
		exp, known := currencyExponent(c.cur)
		if !known {
			exp = 2
		}
		if minor, frac, ok := parseNumber(c.tok.text(c.ln.raw), exp, known); ok {
			anyFrac = anyFrac || frac && exp > 0
			anyNonZero = anyNonZero || minor != 0
		}
	}
	best := -1
	var bestMinor int64
	for k, c := range cands {
		exp, known := currencyExponent(c.cur)
		if !known {
			exp = 2
		}
		minor, frac, ok := parseNumber(c.tok.text(c.ln.raw), exp, known)
		if !ok {
			continue
		}
		if !frac && exp > 0 && c.cur == "" {
			// "Totaal 480" with no currency anywhere: hours or pieces.
			continue
		}
		if !frac && exp > 0 && !c.curRaw {
			if anyFrac || d.printsDecimalMoney() {
				continue
			}
			c.score -= 3
			cands[k].score = c.score
		}
		if best < 0 || c.score > cands[best].score || c.score == cands[best].score && (c.line > cands[best].line || c.line == cands[best].line && c.pos >= cands[best].pos) {
			best = k
			bestMinor = minor
		}
	}
	if best < 0 || d.rivalTotal(cands, best, bestMinor) {
		if c := d.dominantCurrency(); c != "" {
			return nil, &c
		}
		return nil, nil
	}
	if bestMinor == 0 && anyNonZero {
		// "RC BALANCE : 0.00" (a rewards balance) beside a non-zero total:
		// the label reading is unsure, so silent rather than a zero payable.
		if c := cands[best].cur; c != "" {
			return nil, &c
		}
		return nil, nil
	}
	exp, known := currencyExponent(cands[best].cur)
	if !known {
		exp = 2
	}
	bestMinor = d.roundedTotal(cands[best].line, bestMinor, exp, known)
	var cur *string
	if c := cands[best].cur; c != "" {
		cur = &c
	}
	return &bestMinor, cur
}

// totalCurrency finds the currency of a total: next to the amount, else on
// the label's line, else on the value's line, else the document's.
func (d *document) totalCurrency(ln *line, labelStart int, t amountTok, labelLine *line) (string, bool) {
	if h, ok := curNextTo(ln, t); ok {
		if c := d.cur.resolve(h.code); c != "" {
			return c, true
		}
	}
	lines := []*line{ln}
	if labelLine != nil {
		lines = []*line{labelLine, ln}
	}
	for _, l := range lines {
		for _, h := range l.curs {
			if h.weak {
				continue
			}
			if c := d.cur.resolve(h.code); c != "" {
				return c, true
			}
		}
	}
	return d.dominantCurrency(), false
}

// moneyCount counts the numbers of toks printed with decimals.
func moneyCount(ln *line, toks []amountTok) int {
	n := 0
	for _, t := range toks {
		if looksDecimal(t.text(ln.raw)) {
			n++
		}
	}
	return n
}

// remarkLine reports whether a whole line stands in parentheses: "(TOTAL
// INCLUDED GST @ 6% : 1.42)" remarks on the total, stating the tax in it.
func remarkLine(raw string) bool {
	t := strings.TrimSpace(raw)
	return len(t) > 2 && t[0] == '(' && t[len(t)-1] == ')' && strings.Count(t, "(") == 1
}

// reTaxSummary finds the heading of a receipt's tax summary table.
var reTaxSummary = lexRE("gst summary", "sst summary", "tax summary", "vat summary", "vat analysis", "tax analysis",
	"summary of vat", "vat breakdown", "tax breakdown")

// taxSummaryLines marks the lines of tax summary tables: the heading and
// the lines below it up to a blank line, at most eight.
func (d *document) taxSummaryLines() map[int]bool {
	out := map[int]bool{}
	for i, ln := range d.lines {
		if ln.blank || len(ln.labels(reTaxSummary)) == 0 {
			continue
		}
		for k := i; k < len(d.lines) && k <= i+8 && !d.lines[k].blank; k++ {
			out[k] = true
		}
	}
	return out
}

// printsDecimalMoney reports whether some line prints an amount with
// decimals right beside a currency ("RM41.43", "€ 12,50").
func (d *document) printsDecimalMoney() bool {
	for _, ln := range d.lines {
		if ln.blank || len(ln.curs) == 0 {
			continue
		}
		for _, t := range ln.nums {
			if t.percent || !looksDecimal(t.text(ln.raw)) {
				continue
			}
			if _, ok := curNextTo(ln, t); ok {
				return true
			}
		}
	}
	return false
}
