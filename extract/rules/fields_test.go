package rules

import (
	"strings"
	"testing"
)

// TestFieldCountIsLenFields holds fieldCount to len(strings.Fields) on the
// corpus's lines and on strings of spaces, letters and odd runes.
func TestFieldCountIsLenFields(t *testing.T) {
	t.Parallel()
	texts := []string{"", " ", "a", " a ", "a  b\tc", "a\vb\fc\rd", "\u00a0x\u00a0", "x\u2003y", "\u0085a", "\xffa b", "a\xc2", "\u200bq r"}
	texts = append(texts, equivLines(t, true, 2000)...)
	for _, s := range texts {
		if got, want := fieldCount(s), len(strings.Fields(s)); got != want {
			t.Fatalf("fieldCount(%q) = %d, want %d", s, got, want)
		}
	}
}
