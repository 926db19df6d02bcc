package rules

import (
	"testing"
)

// monthDateTexts are the corpus lines (folded, as findDates sees them, and
// as written), whole texts, and random strings built from the month-name
// patterns' parts, so ordinals, "de", separators, spaces, digit runs,
// month names and word edges meet in every order.
func monthDateTexts(t *testing.T) []string {
	t.Helper()
	lines := equivLines(t, false, 2000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	parts := []string{"1", "12", "123", "2026", "20261", "0", "3", "31", "19", "26", ".", "/", "-", "'", ",", " ", "  ", "\t", "\n",
		"st", "nd", "th", "er", "e", "o", "de", "de ", " de ", "a", "_", "x", "é", "march", "mar", "marz", "mars", "marzo",
		"jan", "january", "janv", "sept", "sep", "september", "set", "mai", "may", "mayo", "dec", "dez", "dic", "decembre",
		"aout", "ago", "juil", "juillet", "Mar", "MAY", "12 march 2026", "march 12, 2026", "1er mai 2026", "5 de mayo de 2026",
		"may 5th 2026", "sept. 3 , 2026", "jan 1", " 2026", ", 2026", "12th", "dec.", "oct 31st, 1999",
		", de ", ",de 2026", "5 de marzo, de 2026", "1 mai ,  de  26"}
	return scannerTexts(lines, parts, 13, 100000)
}

// TestMonthDateScannersMatchRegexp holds each month-name date scanner to
// the regexp it replaced: the same matches with the same submatch indexes.
func TestMonthDateScannersMatchRegexp(t *testing.T) {
	t.Parallel()
	var dmy, mdy int
	for _, s := range monthDateTexts(t) {
		if want, got := reDateDMY().FindAllStringSubmatchIndex(s, -1), scanDMYDates(s); !equalMatches(want, got) {
			t.Fatalf("scanDMYDates(%q) = %v, reDateDMY says %v", s, got, want)
		} else {
			dmy += len(want)
		}
		if want, got := reDateMDY().FindAllStringSubmatchIndex(s, -1), scanMDYDates(s); !equalMatches(want, got) {
			t.Fatalf("scanMDYDates(%q) = %v, reDateMDY says %v", s, got, want)
		} else {
			mdy += len(want)
		}
	}
	t.Logf("%d dmy, %d mdy matches", dmy, mdy)
	for name, n := range map[string]int{"dmy": dmy, "mdy": mdy} {
		if n < atLeast(2000) {
			t.Fatalf("%s: only %d matches; the comparison would prove little", name, n)
		}
	}
}
