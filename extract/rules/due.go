package rules

import (
	"strings"
	"unicode"
)

var (
	reDueLabel       = lexRE(dueDatePhrases...)
	reDueStrongLabel = lexPrefixRE(dueDateStrongPhrases...)
	// Words that may stand between a due-date label and its date.
	reDueGapWord = lexRE("on", "am", "le", "el", "op", "il", "the", "den", "de", "del", "by", "bis", "before", "vor",
		"avant", "au", "a", "date", "datum", "fecha", "data", "zum", "to", "is", "ist", "est", "es", "on or before",
		"spatestens", "uiterlijk", "entro", "dia", "giorno", "of", "voor", "payment", "zahlung", "paiement", "pago",
		"betaling", "pagamento", "du", "des", "latest", "at the latest", "at", "plus tard", "au plus tard", "ie", "lo",
		"day", "tag", "jour", "datum", "date of payment", "for payment", "dd.mm.yyyy", "dd/mm/yyyy", "mm/dd/yyyy", "yyyy-mm-dd",
		// Week days: "Due date: Tuesday, 31 March 2026".
		"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
		"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
		"montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag",
		"lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
		"lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo",
		"maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag",
		"lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica")
	// A stated date after "until/by/before" in a payment-terms line.
	// What endsWithDuePrep reads (its test holds it to the expression).
	reDuePrep = foldedRegexp(`\b(?:bis(?:\s+zum|\s+spatestens)?|by|before|until|avant(?:\s+le)?|au\s+plus\s+tard\s+le|antes\s+del?|hasta\s+el|voor|uiterlijk|entro(?:\s+il)?|on\s+or\s+before)\s*:?\s*$`)
)

func dueGapOK(gap string) bool {
	if len(gap) > 40 {
		return false
	}
	for _, r := range gap {
		if unicode.IsDigit(r) {
			return false
		}
	}
	rest := reDueGapWord.ReplaceAllString(gap, " ")
	for _, r := range rest {
		if unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// findDueDate returns the stated due date, or nil. A date is never computed
// from payment terms.
func (d *document) findDueDate() *string {
	if f := d.dueDateFact(); f != nil {
		return &f.V
	}
	return nil
}

// dueDateFact is findDueDate with the line the date was read from as
// evidence.
func (d *document) dueDateFact() *fact[string] {
	bestScore := 0
	var best civil
	var bestLn *line
	bestS, bestE := 0, 0
	known := d.orderGate()
	consider := func(score int, c civil, ln *line, dh dateHit) {
		if score > 0 && score > bestScore && known(ln, dh) {
			bestScore, best = score, c
			bestLn = ln
			bestS, bestE = ln.f.rawSpan(dh.start, dh.end)
		}
	}
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		f := ln.f.s
		discount := ln.has(reDiscountTerms)
		for _, m := range ln.labels(reDueLabel) {
			base := 10
			if reDueStrongLabel.MatchString(f[m[0]:m[1]]) {
				base = 12
			}
			if discount {
				// "Zahlbar bis 26.03. mit 2 % Skonto": the discount date.
				base -= 8
			}
			found := false
			for _, dh := range ln.dateHits() {
				if dh.start < m[1] {
					continue
				}
				if dueGapOK(f[m[1]:dh.start]) {
					consider(base, dh.date, ln, dh)
					found = true
				} else if endsWithDuePrep(f[:dh.start]) {
					consider(base-4, dh.date, ln, dh)
					found = true
				}
				break
			}
			if found {
				continue
			}
			ls, le := ln.f.rawSpan(m[0], m[1])
			if vl, dh, ok := d.dueColumnDate(i, ls, le); ok {
				// A due-date column whose rows wrap text around its dates.
				consider(base-2, dh.date, vl, dh)
			}
			for _, sp := range d.valueSpans(i, ls, le)[1:] {
				vl := d.lines[sp.line]
				fs, fe := vl.f.foldPos(sp.start), vl.f.foldPos(sp.end)
				ok := false
				for _, dh := range vl.dateHits() {
					if dh.start >= fs && dh.end <= fe+1 && dueGapOK(vl.f.s[fs:dh.start]) {
						consider(base-1, dh.date, vl, dh)
						ok = true
						break
					}
				}
				if ok {
					break
				}
			}
		}
	}
	// "Please transfer the amount by 30.03.2026": a payment verb, then
	// "by/bis/avant/..." right before a date.
	for _, ln := range d.lines {
		if ln.blank || ln.has(reDiscountTerms) {
			continue
		}
		for _, dh := range ln.dateHits() {
			before := ln.f.s[:dh.start]
			if endsWithDuePrep(before) && rePayVerb().MatchString(before) {
				consider(7, dh.date, ln, dh)
				break
			}
		}
	}
	if bestScore <= 0 {
		return nil
	}
	return &fact[string]{V: best.String(), Ev: evidence(bestLn, bestS, bestE)}
}

var _ = strings.TrimSpace
