package rules

import (
	"regexp"
	"testing"
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
