package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// labelOnlyRef is labelOnly as it was: the line with every label blanked
// out, then read for a letter or digit.
func labelOnlyRef(f string) bool {
	if strings.TrimSpace(f) == "" {
		return false
	}
	rest := reAnyLabel.ReplaceAllString(f, " ")
	for _, r := range rest {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// TestLabelOnlyMatchesReplace holds labelOnly to labelOnlyRef on every
// folded corpus line and on random lines built from the labels themselves,
// punctuation, blanks and words that are no label.
func TestLabelOnlyMatchesReplace(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, ln := range equivLines(t, false, atLeast(5000)) {
		texts = append(texts, foldString(ln))
	}
	parts := append([]string{" ", "  ", ":", "-", ".", "#", "/", "(", ")", "\t", "\u00a0", "é", "1", "x", "no", "_",
		"2026", "€", "ß", "\xff"}, allPhrases()...)
	r := rand.New(rand.NewPCG(7, 8))
	for range atLeast(200000) {
		var b strings.Builder
		for range r.IntN(7) {
			if r.IntN(2) == 0 {
				b.WriteString(parts[r.IntN(20)])
			} else {
				b.WriteString(foldString(parts[r.IntN(len(parts))]))
			}
		}
		texts = append(texts, b.String())
	}
	yes := 0
	for _, f := range texts {
		want := labelOnlyRef(f)
		if got := labelOnly(f); got != want {
			t.Fatalf("labelOnly(%q) = %v, want %v", f, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 1000 {
		t.Fatalf("only %d of %d lines are labels only: the comparison proves little", yes, len(texts))
	}
}
