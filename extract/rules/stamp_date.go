package rules

import "strings"

// Scores of an unlabelled document date, below every labelled one.
const (
	stampScoreTimed = 4 // a date printed beside a clock time
	stampScoreLone  = 3 // the only date the document prints
)

// stampStopWords name another date when they stand right before one: a card
// expiry, a validity, a print or generation stamp, the end of a range.
// Folded on first use ("until" folds to "untii").
var stampStopWords = onFirstUse(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range stampStopList {
		m[foldString(w)] = true
	}
	return m
})

var stampStopList = []string{
	"expiry", "exp", "expires", "expiration", "expire", "valid", "validity",
	"until", "till", "bis", "to", "from", "printed", "print", "generated",
	"gedruckt", "erstellt", "due", "by", "before", "birth", "since", "seit",
	"ab", "au", "jusqu'au", "hasta", "desde", "tot", "van", "dal", "al",
	// "Lieferschein Nr. 84 vom ...", "Bestellung am ...": the date of
	// something the line names, not of the document.
	"vom", "dated", "del", "du", "of", "am", "on", "um",
	// "Faktura nr 2024/05/17": a reference that looks like a date.
	"nr", "no", "n°", "nº", "number", "nummer", "numero", "ref", "reference", "id",
}

// stampDate returns the document's date when no label names it: the one
// date printed beside a clock time (a till slip's "19/10/2018 20:49:59"), or,
// when no date has a time, the one date the document prints at all. Dates
// named as another date (expiry, due, delivery, print stamp, a range) do not
// count; two different candidates, or a numeric date whose day and month
// order the document cannot tell, give nothing.
//
// On a credit note or reminder (refersBack) only a time stamp counts: its
// one other date is as likely the invoice it refers to.
func (d *document) stampDate(refersBack bool) (*line, dateHit, bool) {
	var (
		timedLn, loneLn *line
		timed, lone     dateHit
		nTimed, nLone   int // distinct dates seen
	)
	for _, ln := range d.lines {
		if ln.blank || len(ln.dateHits()) == 0 {
			continue
		}
		if len(ln.labels(reDueLabel)) > 0 || ln.has(reRefContext) {
			continue
		}
		clock := hasClock(ln.f.s)
		// A date on a line with an amount dates an item or a payment.
		itemLine := hasDecimalAmount(ln)
		for k, dh := range ln.dateHits() {
			if d.stampNamedOther(ln, k) || !d.orderKnown(ln, dh) {
				continue
			}
			if clock {
				switch {
				case nTimed == 0:
					timedLn, timed, nTimed = ln, dh, 1
				case timed.date != dh.date:
					nTimed = 2
				}
			}
			switch {
			case refersBack || itemLine:
			case nLone == 0:
				loneLn, lone, nLone = ln, dh, 1
			case lone.date != dh.date:
				nLone = 2
			}
		}
	}
	switch {
	case nTimed == 1:
		return timedLn, timed, true
	case nTimed == 0 && nLone == 1:
		return loneLn, lone, true
	}
	return nil, dateHit{}, false
}

// stampNamedOther reports whether the k-th date of ln is named as another
// date by the words before it ("CARD EXPIRY : 31/05/18", "Lieferdatum",
// "PRINTED DATE:") or is one end of a range of two different dates.
func (d *document) stampNamedOther(ln *line, k int) bool {
	f := ln.f.s
	dh := ln.dateHits()[k]
	before := f[max(0, dh.start-40):dh.start]
	before = strings.TrimRight(before, " :#.-=[(")
	// A trailing "date" / "time" word names nothing by itself: look at the
	// word before it ("printed date", "expiry date").
	for _, w := range []string{"date", "dt", "datum", "time", "date/time", "date & time", "&"} {
		before = strings.TrimRight(strings.TrimSuffix(before, w), " :#.-=/&")
	}
	if otherDateBefore(before) {
		return true
	}
	if stampStopWords()[before[strings.LastIndexByte(before, ' ')+1:]] {
		return true
	}
	// A range "1 Jan 2018 - 31 Mar 2018": both ends are period bounds.
	if k+1 < len(ln.dateHits()) && ln.dateHits()[k+1].date != dh.date && rangeGap(f[dh.end:ln.dateHits()[k+1].start]) {
		return true
	}
	if k > 0 && ln.dateHits()[k-1].date != dh.date && rangeGap(f[ln.dateHits()[k-1].end:dh.start]) {
		return true
	}
	return false
}

// rangeGap reports whether the text between two dates, folded, joins them
// as a range.
func rangeGap(g string) bool {
	return rangeGapWords()[strings.TrimSpace(g)]
}

// rangeGapWords are the words joining two dates as a range, folded as the
// text is: Reason: folding reads an OCR "l" as "i", so "al" and "till" were
// never found in the folded gap.
var rangeGapWords = onFirstUse(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"-", "–", "to", "bis", "au", "al", "tot", "till"} {
		m[foldString(w)] = true
	}
	return m
})

// orderKnown reports whether a numeric date's day and month are known: one
// of them above 12, both equal, or the document decides the order
// (dateOrder). A date with a month name or a four-digit year first is
// always known.
func (d *document) orderKnown(ln *line, dh dateHit) bool {
	s := ln.f.s[dh.start:dh.end]
	if len(s) < 6 || !isDigitByte(s[0]) || hasMonthWord(s) {
		return true
	}
	// "2018-12-25": year first, then month.
	if len(s) >= 5 && isDigitByte(s[1]) && isDigitByte(s[2]) && isDigitByte(s[3]) {
		return true
	}
	// "02.04.2026": dots are written day first (findDates reads them so).
	if dh.date.d > 12 || dh.date.d == dh.date.m || strings.IndexByte(s, '.') >= 0 {
		return true
	}
	return d.orderSure
}

var (
	// reDayFirstCue names a company form or place of a day-first country.
	reDayFirstCue = lexRE("sdn bhd", "sdn. bhd", "sdn. bhd.", "bhd", "berhad", "s/b", "pte ltd", "pte. ltd", "pty ltd", "pty. ltd",
		"limited", "ltd", "gmbh", "sarl", "malaysia", "singapore", "united kingdom", "australia", "new zealand", "india",
		"ireland", "kuala lumpur", "selangor", "johor", "penang", "london",
		// Malay, written day first: thanks and week days.
		"terima kasih", "isnin", "selasa", "rabu", "khamis", "jumaat", "sabtu", "ahad")
	// reMonthFirstCue names a US company form or place.
	// Not "Inc": till slips print "(GST INC)" for tax inclusive.
	reMonthFirstCue = lexRE("llc", "usa", "u.s.a.", "united states", "sales tax")
)

// hasDecimalAmount reports whether ln holds an amount with decimals that is
// not part of a code or a percentage.
func hasDecimalAmount(ln *line) bool {
	for _, t := range ln.nums {
		if !t.code && !t.percent && looksDecimal(t.text(ln.raw)) {
			return true
		}
	}
	return false
}

// orderGate returns the check that a numeric date's day/month order is
// known (orderKnown).
func (d *document) orderGate() func(ln *line, dh dateHit) bool {
	return d.orderKnown
}
