package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOtherDateBeforeMatchesRegexp holds otherDateBefore's window to the
// expression run on the whole text: every folded line cut before each of
// its words (as issueDateFact and stampNamedOther cut the text before a
// label), and random texts built from the expression's words, its two-word
// alternatives split by runs of blanks, word and non-word neighbours.
func TestOtherDateBeforeMatchesRegexp(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, ln := range equivLines(t, false, atLeast(5000)) {
		f := foldString(ln)
		for i := 0; i <= len(f); i++ {
			if i == len(f) || f[i] == ' ' {
				texts = append(texts, f[max(0, i-80):i])
			}
		}
	}
	parts := []string{"deiivery", "due", "order", "of", "tax", "point", "taxpoint", "de", "iivraison", "di", "consegna",
		"ieistungs", "service", "invoice", "the", "x", "_", "1", "é", "-", ":", " ", "  ", "\t", "\n", "\r", "\f", "\v",
		"\u00a0", "date", "ddt", "payment", "a"}
	r := rand.New(rand.NewPCG(5, 6))
	for range atLeast(200000) {
		var b strings.Builder
		for range r.IntN(9) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		texts = append(texts, b.String())
	}
	matched := 0
	for _, s := range texts {
		want := reOtherDate().MatchString(s)
		if got := otherDateBefore(s); got != want {
			t.Fatalf("otherDateBefore(%q) = %v, want %v", s, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d of %d texts name another date: the comparison proves little", matched, len(texts))
	}
}
