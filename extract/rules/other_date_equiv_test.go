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
	texts = append(texts, otherDateEdgeTexts(t)...)
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

// otherDateEdgeTexts builds, from reOtherDate's own source, every
// alternative alone (its inner blanks written every way \s allows and some
// it does not) after each kind of neighbour \b reads differently, with and
// without trailing blanks, and each alternative's prefixes and extensions.
func otherDateEdgeTexts(t *testing.T) []string {
	t.Helper()
	src := reOtherDate().String()
	const head, tail = `\b(?:`, `)\s*$`
	if !strings.HasPrefix(src, head) || !strings.HasSuffix(src, tail) {
		t.Fatalf("reOtherDate is %q: the test no longer reads its alternatives", src)
	}
	alts := strings.Split(src[len(head):len(src)-len(tail)], "|")
	if len(alts) < 50 {
		t.Fatalf("only %d alternatives in %q", len(alts), src)
	}
	// \s is [\t\n\f\r ]: not \v, not NBSP.
	blanks := []string{"", " ", "  ", "\t", "\n", "\r", "\f", "\v", "\u00a0", " \t\n"}
	var words []string
	for _, a := range alts {
		for _, sep := range blanks {
			w := strings.NewReplacer(`\s*`, sep, `\s+`, sep).Replace(a)
			words = append(words, w)
			for i := 1; i < len(w); i++ {
				words = append(words, w[:i], w[i:])
			}
			words = append(words, w+"s", w+"_", w+"1", w+"é", "x"+w)
		}
	}
	prefixes := []string{"", " ", "the ", "x", "1", "_", "é", "ß", "E", "-", ":", "\t", "\n", "\v", "\u00a0", "\xff",
		"tax", "tax ", "of ", "de\t", "di  "}
	var texts []string
	for _, w := range words {
		for _, p := range prefixes {
			for _, b := range blanks {
				texts = append(texts, p+w+b)
			}
		}
	}
	return texts
}
