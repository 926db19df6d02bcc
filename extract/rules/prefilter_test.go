package rules

import (
	"regexp"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestPrefilters pins the cheap checks that decide whether a costly pattern
// runs at all: each must say yes wherever its pattern could match.
func TestPrefilters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		got  bool
		want bool
	}{
		{"month word after digits", hasMonthWord("05 mar 2018"), true},
		{"month glued to day", hasMonthWord("05mar 2018"), true},
		{"month after ordinal", hasMonthWord("5thmarch, 2018"), true},
		{"month at the end", hasMonthWord("due 12 decembre"), true},
		{"month before digits", hasMonthWord("mar2018"), false},
		{"month inside a word", hasMonthWord("marzipan 12"), false},
		{"amount line", hasMonthWord("total 12.00"), false},
		{"iso date", hasDigitsThenSep("on 2026-03-01", 4, "-./"), true},
		{"amount is not iso", hasDigitsThenSep("1234,56", 4, "-./"), false},
		{"slash date", hasDigitsThenSep("3/4/26", 1, "/-"), true},
		{"slash without digit after", hasDigitsThenSep("12/ab", 1, "/-"), false},
		{"spaced title", maySpaceLetters("T O T A L"), true},
		{"spaced accented", maySpaceLetters("É T É S X"), true},
		{"plain words", maySpaceLetters("Total due 12,00"), false},
		{"one spaced letter", maySpaceLetters("a b"), false},
		{"vat digits", longestDigitRun("P.IVA 01234567890") >= 11, true},
		{"short digits", longestDigitRun("CIF 123456") >= 7, false},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// TestStartTablesAnchoring checks that the first-byte filter is built only
// for expressions every match of which starts at the text's start.
func TestStartTablesAnchoring(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src      string
		filtered bool
		emptyAt0 bool // the filter answers [0 0], not nil
	}{
		{`^abc`, true, false},
		{`^\s*(?:tax|vat)\s*invoice`, true, false},
		{`^abc|def`, false, false},
		{`(?m)^abc`, false, false},
		{`^(?:$|x)`, false, false},
		{`^a?`, true, true},
		{`^[\s*]*(?:\d+\s+|first\s+)?`, true, true},
		{`^\ba?`, false, false},
	} {
		tb := newStartTables(regexp.MustCompile(tc.src))
		if got := !tb.empty; got != tc.filtered {
			t.Errorf("%s: filtered %v, want %v", tc.src, got, tc.filtered)
		}
		if tb.emptyAt0 != tc.emptyAt0 {
			t.Errorf("%s: emptyAt0 %v, want %v", tc.src, tb.emptyAt0, tc.emptyAt0)
		}
	}
}

// maySpaceLettersRef is maySpaceLetters as it was before it stepped past
// two bytes at a time.
func maySpaceLettersRef(raw string) bool {
	n := 0
	for i := 0; i+2 < len(raw); i++ {
		if raw[i] != ' ' {
			continue
		}
		c := raw[i+1]
		if c < utf8.RuneSelf {
			if raw[i+2] == ' ' && unicode.IsLetter(rune(c)) {
				n++
			}
			continue
		}
		r, w := utf8.DecodeRuneInString(raw[i+1:])
		if i+1+w < len(raw) && raw[i+1+w] == ' ' && unicode.IsLetter(r) {
			n++
		}
	}
	return n >= 2
}

// TestMaySpaceLettersMatchesReference holds maySpaceLetters to its old
// loop on every corpus line and on random texts of single letters, spaces
// and words.
func TestMaySpaceLettersMatchesReference(t *testing.T) {
	t.Parallel()
	parts := []string{" ", "  ", "a", "B", "é", "É", "1", ".", "ab", "T O", " T ", "x y", "\t", "元", "\xc3"}
	texts := scannerTexts(equivLines(t, true, 3000), parts, 47, 100000)
	yes := 0
	for _, s := range texts {
		want := maySpaceLettersRef(s)
		if got := maySpaceLetters(s); got != want {
			t.Fatalf("maySpaceLetters(%q) = %v, the old loop says %v", s, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < atLeast(10000) {
		t.Fatalf("only %d texts may hold spaced letters: the comparison proves little", yes)
	}
}
