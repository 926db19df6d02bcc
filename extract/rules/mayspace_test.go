package rules

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// maySpaceLettersRef is maySpaceLetters as first written, a test per byte.
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

// TestMaySpaceLettersMatchesReference holds maySpaceLetters to the
// byte-by-byte reference over the corpus lines and random ones.
func TestMaySpaceLettersMatchesReference(t *testing.T) {
	t.Parallel()
	yes := 0
	lines := append(equivLines(t, true, 5000), "", " ", "  ", " a ", " a b ", " a b c", "x T O T A L", " é ß ", " é ß", "a  b  c  d")
	for _, s := range lines {
		want := maySpaceLettersRef(s)
		if got := maySpaceLetters(s); got != want {
			t.Fatalf("maySpaceLetters(%q) = %v, want %v", s, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 20 {
		t.Fatalf("only %d lines may hold spaced letters: the test would prove little", yes)
	}
}
