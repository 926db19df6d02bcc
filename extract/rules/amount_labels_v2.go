package rules

import (
	"strings"
	"sync"
)

// kindHit is a summary label found in a folded line.
type kindHit struct {
	start, end int // folded
	kind       amtKind
}

// summaryLabels lists the v2 amount labels of a line, leftmost and then
// longest first, leaving out the tax words of an "incl. VAT" qualifier
// (which make the label before them a gross total). The totals, the line
// items and the tax table each ask about the same lines, so the answer is
// kept on the line; callers only read the slice.
func summaryLabels(ln *line) []kindHit {
	if !ln.sumDone {
		ln.sumHits, ln.sumDone = findSummaryLabels(ln), true
	}
	return ln.sumHits
}

// findSummaryLabels is summaryLabels computed anew.
func findSummaryLabels(ln *line) []kindHit {
	f := ln.f.s
	var hits []labelHit
	var buf [8][2]int
	for _, lx := range v2Lexicons {
		for _, m := range ln.appendLabels(buf[:0], lx.re) {
			hits = append(hits, labelHit{m[0], m[1], int(lx.kind)})
		}
	}
	if len(hits) == 0 {
		return nil
	}
	incl := reV2Included().FindAllStringIndex(f, -1)
	var out []kindHit
	for _, h := range resolveHits(hits) {
		inside := false
		for _, a := range incl {
			if h.start >= a[0] && h.start < a[1] {
				inside = true
			}
		}
		if inside || includedInTotal(ln, h) {
			continue
		}
		k := amtKind(h.cls)
		if k == akGross && exclQualified(f, h.end, incl) {
			// "Rechnungssumme ohne USt.", "Invoice total excl. VAT": the
			// total before tax, whatever total word names it.
			k = akNet
		}
		out = append(out, kindHit{h.start, h.end, k})
	}
	return out
}

// exclQualified reports whether the qualifier span of incl that follows
// position end with only blanks, a colon or "(" between opens with a word that
// excludes the tax ("ohne", "excl.", "hors").
func exclQualified(f string, end int, incl [][]int) bool {
	for _, a := range incl {
		if a[0] < end || strings.TrimSpace(strings.Trim(f[end:a[0]], " :(")) != "" {
			continue
		}
		w := strings.TrimLeft(f[a[0]:a[1]], "( ")
		if i := strings.IndexAny(w, " .\t"); i >= 0 {
			w = w[:i]
		}
		return v2ExclFolded()[w]
	}
	return false
}

// v2ExclFolded is v2ExclWords folded as the text they are found in is:
// Reason: folding reads an OCR "l" as "i", so "(EXCL GST)" is "(exci gst)",
// and a total so qualified was taken for the gross.
var v2ExclFolded = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, len(v2ExclWords))
	for _, w := range v2ExclWords {
		m[foldString(w)] = true
	}
	return m
})

// reIncludedIn is the wording of a remark on a total: "GST @6% INCLUDED IN
// TOTAL 0.60" states the tax in the total, after the word "total".
var reIncludedIn = lexRE("included in", "incl in", "incl. in", "inclusive in", "included in the", "inc in", "inc. in")

// includedInTotal reports whether a total label is the tail of such a
// remark: the amount after it is the tax, never the total.
func includedInTotal(ln *line, h labelHit) bool {
	if amtKind(h.cls) != akGross && amtKind(h.cls) != akDue {
		return false
	}
	for _, m := range ln.labels(reIncludedIn) {
		if m[1] <= h.start && strings.TrimSpace(ln.f.s[m[1]:h.start]) == "" {
			return true
		}
	}
	return false
}

// labelled is an amount a summary label names.
type labelled struct {
	kind   amtKind
	line   int
	minor  int64 // magnitude as printed
	neg    bool
	rate   *int64 // basis points printed with a tax label
	odd    bool   // a rate was printed but is not whole basis points (9,975 %)
	base   *int64 // a second amount on a tax line: the base it applies to
	ev     string // evidence: label through amount, or the amount's cell
	folded string // the label as matched, folded
}

// readLabelled lists the labelled amounts of the document outside the item
// table, in document order. exp is the currency's exponent.
func (d *document) readLabelled(exp int, skip map[int]bool) []labelled {
	var out []labelled
	for i, ln := range d.lines {
		if ln.blank || skip[i] {
			continue
		}
		hits := summaryLabels(ln)
		if len(hits) == 0 || remarkLine(ln.raw) {
			continue // "(TOTAL INCLUDED GST @ 6% : 1.09)" states the tax in a total, not a total
		}
		toks := usableNums(ln, nil)
		for k, h := range hits {
			if h.kind == akIgnore {
				continue
			}
			ls, le := ln.f.rawSpan(h.start, h.end)
			next := len(ln.raw)
			if k+1 < len(hits) {
				next, _ = ln.f.rawSpan(hits[k+1].start, hits[k+1].end)
			}
			var mine []amountTok
			for _, t := range toks {
				if t.numStart >= le && t.numEnd <= next {
					mine = append(mine, t)
				}
			}
			rate := rateNear(ln, hits, k)
			if len(mine) == 0 {
				if k == len(hits)-1 {
					if l, ok := d.labelledBelow(i, ls, le, h, exp, skip); ok {
						out = append(out, l)
					}
				}
				continue
			}
			t := mine[len(mine)-1]
			if !gapAllowed(ln, h.end, ln.f.foldPos(t.numStart)) {
				continue
			}
			if !plausibleAmount(ln, t, exp) && !curHeadsGap(ln, le, t) {
				continue
			}
			minor, _, ok := parseNumber(t.text(ln.raw), exp, true)
			if !ok {
				continue
			}
			l := labelled{kind: h.kind, line: i, minor: minor, neg: t.neg, folded: ln.f.s[h.start:h.end]}
			if rate != nil && (h.kind == akTax || h.kind == akTaxSum) {
				if bp, ok := rateBP(rate.text(ln.raw)); ok {
					l.rate = &bp
				} else {
					l.odd = true
				}
			}
			if (h.kind == akTax || h.kind == akTaxSum) && len(mine) == 2 {
				if b, _, ok := parseNumber(mine[0].text(ln.raw), exp, true); ok && plausibleAmount(ln, mine[0], exp) {
					l.base = &b
				}
			}
			if len(mine) > 2 {
				continue // a table row or a sentence, not a summary line
			}
			if len(mine) == 2 && h.kind != akTax && h.kind != akTaxSum && moneyCount(ln, mine) == 2 {
				continue // "TOTAL  75.00  4.50": a tax summary row (base, tax), not a total
			}
			l.ev = evidenceSpan(ln, ls, t)
			out = append(out, l)
		}
	}
	return out
}

// rateNear returns the percentage that belongs to label k of the line: the
// first one after it (before the next label), else the last one before it
// and after the previous label ("19 % MwSt.").
func rateNear(ln *line, hits []kindHit, k int) *amountTok {
	_, le := ln.f.rawSpan(hits[k].start, hits[k].end)
	ls, _ := ln.f.rawSpan(hits[k].start, hits[k].end)
	next, prev := len(ln.raw), 0
	if k+1 < len(hits) {
		next, _ = ln.f.rawSpan(hits[k+1].start, hits[k+1].end)
	}
	if k > 0 {
		_, prev = ln.f.rawSpan(hits[k-1].start, hits[k-1].end)
	}
	var before *amountTok
	for j := range ln.nums {
		t := &ln.nums[j]
		if !t.percent {
			continue
		}
		if t.numStart >= le && t.numEnd <= next {
			return t
		}
		if t.numEnd <= ls && t.numStart >= prev {
			before = t
		}
	}
	return before
}

// labelledBelow reads the amount of a label whose value stands in the cell
// below it or in a stacked block, as findTotal does.
func (d *document) labelledBelow(i, ls, le int, h kindHit, exp int, skip map[int]bool) (labelled, bool) {
	if d.lines[i].has(reTableHeader) {
		return labelled{}, false
	}
	for _, sp := range d.valueSpans(i, ls, le)[1:] {
		if skip[sp.line] {
			continue // a cell of an item or tax table, not a value of its own
		}
		vl := d.lines[sp.line]
		vt := usableNums(vl, nil)
		if !amountOnly(vl, sp.start, sp.end, vt) {
			continue
		}
		for _, t := range vt {
			if t.numStart < sp.start || t.numEnd > sp.end || t.percent || !plausibleAmount(vl, t, exp) {
				continue
			}
			minor, _, ok := parseNumber(t.text(vl.raw), exp, true)
			if !ok {
				return labelled{}, false
			}
			s, e := trimSpan(vl.raw, sp.start, sp.end)
			return labelled{kind: h.kind, line: sp.line, minor: minor, neg: t.neg, ev: cleanEvidence(vl.raw[s:e]),
				folded: d.lines[i].f.s[h.start:h.end]}, true
		}
	}
	return labelled{}, false
}

// plausibleAmount reports whether a number may be money: printed with
// decimals or a currency, unless the currency has no minor unit.
func plausibleAmount(ln *line, t amountTok, exp int) bool {
	if t.code || !thousandsGrouped(t.text(ln.raw), exp) {
		return false
	}
	if exp == 0 || looksMoney(t.text(ln.raw), exp) {
		return true
	}
	_, ok := curNextTo(ln, t)
	return ok
}

// curHeadsGap reports whether a currency stands between a label (ending at
// raw offset le) and the number t with only blanks or a colon after it:
// "Steuerbetrag in EUR      285" prints a whole amount in a column, and the
// label says what it is counted in. The sums still have to add up.
func curHeadsGap(ln *line, le int, t amountTok) bool {
	if t.code || !thousandsGrouped(t.text(ln.raw), 2) {
		return false
	}
	for _, h := range ln.curs {
		if h.start >= le && h.end <= t.numStart && strings.Trim(ln.raw[h.end:t.numStart], " \u00a0\u202f:") == "" {
			return true
		}
	}
	return false
}

// thousandsGrouped reports whether the integer part of a printed amount is
// ungrouped, grouped by thousands, or grouped the Indian way (4,50,000.00:
// commas, pairs before the last three digits, a decimal point or none), as
// invoice-v2's evidence check reads amounts: any other grouping could never
// be cited.
func thousandsGrouped(s string, exp int) bool {
	intPart := s
	if n := len(s); exp > 0 && n > exp && (s[n-exp-1] == '.' || s[n-exp-1] == ',') {
		intPart = s[:n-exp-1]
	} else if looksDecimal(s) {
		intPart = s[:strings.LastIndexAny(s, ".,")]
	}
	groups := strings.FieldsFunc(intPart, func(r rune) bool { return !(r >= '0' && r <= '9') })
	thousands := true
	for i, g := range groups {
		if i > 0 && len(g) != 3 {
			thousands = false
		}
	}
	return thousands || lakhGrouped(s, intPart, groups)
}

// lakhGrouped reports whether intPart, the integer part of s, is grouped
// the Indian way with at least one pair: 1,19,600 or 12,34,56,789, with a
// decimal point after it if anything.
func lakhGrouped(s, intPart string, groups []string) bool {
	// Reason: Indian amounts are grouped in lakhs (1,19,600.00), which invoice-v2 evidence reads.
	n := len(groups)
	if n < 3 || len(groups[0]) > 2 || len(groups[n-1]) != 3 || strings.Count(intPart, ",") != n-1 ||
		len(intPart) < len(s) && s[len(intPart)] != '.' {
		return false
	}
	for _, g := range groups[1 : n-1] {
		if len(g) != 2 {
			return false
		}
	}
	return true
}

// looksMoney reports whether a printed number ends in a decimal separator
// and the currency's number of decimals (two for EUR, three for KWD), or
// in one or two decimals as v1's looksDecimal accepts.
func looksMoney(s string, exp int) bool {
	if looksDecimal(s) {
		return true
	}
	n := len(s)
	return exp > 0 && n > exp && (s[n-exp-1] == '.' || s[n-exp-1] == ',') && isASCIIDigitsRules(s[n-exp:])
}

func isASCIIDigitsRules(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// gapAllowed reports whether only label-like words stand between a label
// (ending at folded offset from) and its amount (at folded offset to): a
// sentence ("Total services rendered in March 500.00") is not a summary
// line.
func gapAllowed(ln *line, from, to int) bool {
	if to < from {
		return false
	}
	gap := []byte(ln.f.s[from:to])
	// Currency codes and symbols in the gap ("Total amount (RMB)") are
	// part of the label, as in v1's valueSpans.
	for _, h := range ln.curs {
		s, e := ln.f.foldPos(h.start)-from, ln.f.foldPos(h.end)-from
		for k := max(s, 0); k < min(e, len(gap)); k++ {
			gap[k] = ' '
		}
	}
	// A date in the gap passes only with label words around it (see
	// gapWithoutDates): a sentence holds a date more often than a label.
	blankDates(ln, gap, from, to)
	// The qualifier first: "(INCLUSIVE GST)" must still hold its tax word.
	gapS := reV2Included().ReplaceAllString(string(gap), " ")
	gapS = reV2GapWord.ReplaceAllString(gapS, " ")
	return gapPenalty(gapS) == 0
}

// evidenceSpan cuts the evidence of an amount read on the label's line:
// from the label to the amount and a currency printed right after it.
func evidenceSpan(ln *line, ls int, t amountTok) string {
	end := t.end
	if h, ok := curNextTo(ln, t); ok && h.start >= t.end {
		end = h.end
	}
	if ls > t.start {
		ls = t.start
	}
	s, e := trimSpan(ln.raw, ls, end)
	if ev := cleanEvidence(ln.raw[s:e]); len(ev) <= maxEvidenceV2 && citable(ev) {
		return ev
	}
	// A label far from its amount, or odd characters between them: the
	// amount alone is evidence enough.
	s, e = trimSpan(ln.raw, t.start, end)
	return cleanEvidence(ln.raw[s:e])
}

// maxEvidenceV2 stays under invoice-v2's cap on an evidence string.
const maxEvidenceV2 = 400

// citable reports whether validation accepts s as evidence text: no control
// characters but tabs, no bidirectional formatting characters.
func citable(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c {
			return false
		}
	}
	return true
}

// cleanEvidence drops what validation refuses in evidence: anything up to
// a form feed or other control character but tabs.
func cleanEvidence(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			s = s[i+1:]
			break
		}
	}
	return strings.TrimSpace(s)
}
