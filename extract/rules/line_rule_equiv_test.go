package rules

import (
	oldrand "math/rand"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestIsRuleLineMatchesRunes holds isRuleLine's byte loop to the general
// form (isRuleLineRunes) on every line of the texts, the synthetic
// invoices', and rule lines mixed with spaces, tabs, control bytes and the
// non-ASCII dashes, where the two part ways if either is wrong.
func TestIsRuleLineMatchesRunes(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, atLeast(20000))
	sr := oldrand.New(oldrand.NewSource(20260331))
	for range 200 {
		text, _ := synthInvoice(sr)
		lines = append(lines, strings.Split(text, "\n")...)
	}
	parts := []string{"-", "=", "_", "*", ".", " ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "–", "—", "·", "x", "1",
		"\x7f", "\x00", "\xff", "\u2003", "\u0085"}
	r := rand.New(rand.NewPCG(3, 4))
	for range atLeast(50000) {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	rules := 0
	for _, ln := range lines {
		want := isRuleLineRunes(ln)
		if got := isRuleLine(ln); got != want {
			t.Fatalf("isRuleLine(%q) = %v, want %v", ln, got, want)
		}
		if want {
			rules++
		}
	}
	if rules < 100 {
		t.Fatalf("only %d rule lines among %d: the comparison proves little", rules, len(lines))
	}
}
