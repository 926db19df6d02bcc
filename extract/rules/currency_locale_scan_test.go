package rules

import (
	"regexp"
	"strings"
	"testing"
)

// TestUSStateZIPAtMatchesRegexp holds usStateZIPAt to the start of
// usStateZIPPattern's leftmost match on every corpus line (in three cases)
// and text (selfCheckTexts: with INVX_SYNTH_DIR, the bench corpus too), and
// on random texts of state codes, ZIP codes, letters of one and several
// bytes, invalid UTF-8, commas, dots and blanks beside them.
func TestUSStateZIPAtMatchesRegexp(t *testing.T) {
	t.Parallel()
	texts := equivLines(t, true, 3000)
	for _, s := range selfCheckTexts(t) {
		texts = append(texts, s)
		texts = append(texts, strings.Split(s, "\n")...)
	}
	parts := []string{" ", "  ", "\t", ",", ".", "-", "1", "0", "12345", "1234", "123456", "78701-1234", "x", "A", "é",
		"Ł", "元", "\u00a0", "\xe9", "\xc3", "\xa9", "\n", "_", "(", "TX", "NY", "DC", "WY", "OX", "tx", "Austin", "St."}
	texts = scannerTexts(texts, parts, 45, 100000)
	texts = append(texts, slotTexts(46, 100000, stateZIPSlots)...)
	re := regexp.MustCompile(usStateZIPPattern)
	var n int
	for _, s := range texts {
		want := -1
		if m := re.FindStringIndex(s); m != nil {
			want = m[0]
			n++
		}
		if got := usStateZIPAt(s); got != want {
			t.Fatalf("usStateZIPAt(%q) = %d, the regexp's match starts at %d", s, got, want)
		}
	}
	if n < atLeast(8000) {
		t.Fatalf("%d texts with a state and ZIP code: the comparison proves little", n)
	}
}

// stateZIPSlots is usStateZIPPattern's shape, slot by slot, with right and
// wrong fillings of each.
var stateZIPSlots = [][][]string{{
	{"", " ", "1", "x", "-", "\n", "\xe9"},
	{"Austin", "é", "Ł", "元", ".", "St.", "1", "", "-", "\xc3", "\xc3\xa9", "\xa9", " "},
	{"", "", ",", ",,", ".", " ,"},
	{" ", "  ", "\t", "", "\u00a0", "-"},
	{"TX", "NY", "DC", "WY", "OX", "tx", "T", "ON", "TX TX"},
	{"", "", ".", ",", ".."},
	{" ", "", "  ", "\t", " \t", "-"},
	{"78701", "7870", "787012", "78701-1234", "78701-123", "7870a", "0"},
	{"", " ", "  ", " \t", "x", " x", "  x", "1", ".", "é", " é", "Ł", "_", "-", "\n", "\xe9", " \xe9", "\u00a0"},
}}
