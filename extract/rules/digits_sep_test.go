package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// hasDigitsThenSepRef is hasDigitsThenSep as it was before it passed over
// the bytes between runs of digits at once.
func hasDigitsThenSepRef(s string, n int, seps string) bool {
	run := 0
	for i := 0; i+1 < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			run++
			continue
		}
		if run >= n && byteIn(c, seps) && s[i+1] >= '0' && s[i+1] <= '9' {
			return true
		}
		run = 0
	}
	return false
}

// TestHasDigitsThenSepMatchesReference holds hasDigitsThenSep to the
// reference for every run length its callers ask (and more) and both
// separator sets, on every corpus line and on random strings of digits,
// separators and other bytes.
func TestHasDigitsThenSepMatchesReference(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 2000)
	// Runs of a separator ("-----") and lines longer than a few blocks of
	// eight bytes too: the separators are searched for, and their runs
	// passed over at once.
	parts := []string{"0", "1", "9", "12", "2026", "/", "-", ".", ",", " ", "a", "é", ":", "-----", "//", "..", "   "}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 30000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	yes := 0
	for _, s := range lines {
		for n := 1; n <= 6; n++ {
			for _, seps := range []string{"-./", "/-"} {
				want := hasDigitsThenSepRef(s, n, seps)
				if got := hasDigitsThenSep(s, n, seps); got != want {
					t.Fatalf("hasDigitsThenSep(%q, %d, %q) = %v, want %v", s, n, seps, got, want)
				}
				if want {
					yes++
				}
			}
		}
	}
	if yes < 10000 {
		t.Fatalf("only %d answers are yes: the test would prove little", yes)
	}
}
