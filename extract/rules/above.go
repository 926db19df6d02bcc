package rules

import (
	"strings"
	"unicode"
)

// Some tills print each amount on the line above its label, right-aligned
// in a column of its own:
//
//	                 93.40
//	(EXCLUDED GST) SUB TOTAL:
//	                  5.60
//	           TOTAL GST :
//	                 99.00
//	               TOTAL :
//	                100.00
//	                CASH :
//	                  1.00
//	              CHANGE :
//
// Read downwards, every label takes the next label's amount (TOTAL would be
// the cash tendered). A run of lines that alternate between a lone amount
// and a lone label pairs each label with one neighbour, and the run's ends
// say which: one that opens with an amount and closes with a label has an
// amount above every label and none below the last. Any other run (opening
// with a label, or opening and closing alike) keeps the reading below.

// minAboveRun is the fewest alternating lines that tell the pairing: two
// labels with their amounts. A single amount above a single label is as
// often the previous item's price.
const minAboveRun = 4

// Kinds of line in an alternating run.
const (
	runOther = iota
	runLabel
	runAmount
)

// runKind tells whether line j is a lone label, a lone amount or neither.
func (d *document) runKind(j int) int {
	ln := d.lines[j]
	if ln.blank {
		return runOther
	}
	if len(ln.nums) == 0 {
		if ln.isLabelOnly() || labelShaped(ln.raw) {
			return runLabel
		}
		return runOther
	}
	// An amount with decimals: a lone integer is a count or a code as often.
	if toks := usableNums(ln, nil); len(toks) == 1 && looksDecimal(toks[0].text(ln.raw)) &&
		amountOnly(ln, 0, len(ln.raw), toks) {
		return runAmount
	}
	return runOther
}

// labelShaped reports whether raw reads as a label waiting for its value:
// words, no digit, and a colon at the end ("CASH :").
func labelShaped(raw string) bool {
	t := strings.TrimRight(raw, " \t\u00a0")
	if !strings.HasSuffix(t, ":") {
		return false
	}
	letter := false
	for _, r := range t {
		switch {
		case unicode.IsDigit(r):
			return false
		case unicode.IsLetter(r):
			letter = true
		}
	}
	return letter
}

// aboveSpan returns the amount above label line i when i stands in an
// alternating run that pairs labels with the amounts above them.
func (d *document) aboveSpan(i int) (span, bool) {
	if i == 0 || d.runKind(i) != runLabel || d.runKind(i-1) != runAmount {
		return span{}, false
	}
	a := i - 1
	for a > 0 && i-a < 2*maxStack {
		k := d.runKind(a - 1)
		if k == runOther || k == d.runKind(a) {
			break
		}
		a--
	}
	if d.runKind(a) != runAmount {
		return span{}, false
	}
	b := i
	for b+1 < len(d.lines) && b-a < 2*maxStack {
		k := d.runKind(b + 1)
		if k == runOther || k == d.runKind(b) {
			break
		}
		b++
	}
	if b-a+1 < minAboveRun || d.runKind(b) != runLabel {
		return span{}, false
	}
	ln := d.lines[i-1]
	s, e := trimSpan(ln.raw, 0, len(ln.raw))
	return span{i - 1, s, e}, true
}
