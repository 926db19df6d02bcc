package rules

import (
	"strings"
	"testing"
)

// TestIsBlankMatchesTrimSpace holds isBlank to strings.TrimSpace on every
// corpus line and on random lines of ASCII and Unicode white space, other
// bytes, runes and broken UTF-8.
func TestIsBlankMatchesTrimSpace(t *testing.T) {
	t.Parallel()
	parts := []string{" ", "   ", "\t", "\n", "\v", "\f", "\r", "\x1c", "\x85", "\u0085", "\u00a0", "\u2000", "\u200b",
		"\u3000", "\ufeff", "\xff", "\xe2\x80", "a", ".", "0", "é"}
	lines := scannerTexts(equivLines(t, false, 0), parts, 43, 40000)
	blank := 0
	for _, s := range lines {
		want := strings.TrimSpace(s) == ""
		if got := isBlank(s); got != want {
			t.Fatalf("isBlank(%q) = %v, TrimSpace says %v", s, got, want)
		}
		if want {
			blank++
		}
	}
	if blank < atLeast(3000) {
		t.Fatalf("only %d blank lines: the comparison proves little", blank)
	}
}
