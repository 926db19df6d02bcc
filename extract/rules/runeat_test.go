package rules

import (
	"testing"
	"unicode/utf8"
)

// TestRuneAtDecodes holds runeAt's ASCII shortcut to utf8's decoding at
// every byte of every corpus line and of text with runes of every length
// and broken UTF-8 (the number and currency references call runeAt too,
// so they cannot see it change).
func TestRuneAtDecodes(t *testing.T) {
	t.Parallel()
	lines := append(equivLines(t, true, 2000), "12€ 5£ ¥9 ₹7 x\x80y \xff 3元 é", "", "a")
	for _, s := range lines {
		for i := 0; i <= len(s)+1; i++ {
			want := rune(0)
			if i < len(s) {
				want, _ = utf8.DecodeRuneInString(s[i:])
			}
			if got := runeAt(s, i); got != want {
				t.Fatalf("runeAt(%q, %d) = %q, want %q", s, i, got, want)
			}
		}
	}
}
