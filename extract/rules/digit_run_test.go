package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// longestDigitRunRef is longestDigitRun as it was before it passed over
// the bytes between runs at once.
func longestDigitRunRef(s string) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// TestLongestDigitRunMatchesReference holds longestDigitRun to the
// reference on every corpus line and on random strings of digit runs,
// letters, blanks and separators.
func TestLongestDigitRunMatchesReference(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 2000)
	parts := []string{"0", "7", "12", "0123456", "01234567890", " ", "-", "IT", "a", "é", "/"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	long := 0
	for _, s := range lines {
		want := longestDigitRunRef(s)
		if got := longestDigitRun(s); got != want {
			t.Fatalf("longestDigitRun(%q) = %d, want %d", s, got, want)
		}
		if want >= 7 {
			long++
		}
	}
	if long < 1000 {
		t.Fatalf("only %d lines with a run of seven digits: the test would prove little", long)
	}
}
