package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOpenerSearchMatchesRegexp holds the opener search of each absorber
// (FindAllStringIndex, ReplaceAllString) to its full regexp, on every
// corpus line folded and as written, and on random strings built from the
// patterns' words, parentheses, spaces and word edges.
func TestOpenerSearchMatchesRegexp(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 2000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	parts := []string{"(", ")", " ", "  ", ".", ",", ":", "\n", "x", "a", "_", "9", "19 %", "é", "inci", "inki", "inc", "with",
		"y", "con", "pius", "zzgi", "incluye", "ttc", "ivato", "excl", "exci", "ex", "sin", "ohne", "hors", "senza",
		"vat", "tax", "taxes", "mwst", "ust", "btw", "iva", "tva", "gst", "steuer", "igic", "inciuded", "compris",
		"totai", "amount", "eur", "0,60", "123456789012345678901234567890"}
	rng := rand.New(rand.NewPCG(21, 22))
	for k := range 60000 {
		var b strings.Builder
		if k%2 == 0 {
			// An opener, a gap and a tax word, with random parts around.
			b.WriteString(parts[rng.IntN(7)])
			b.WriteString(parts[14+rng.IntN(18)])
			b.WriteString(parts[rng.IntN(5)])
			for range rng.IntN(3) {
				b.WriteString(parts[rng.IntN(len(parts))])
			}
			b.WriteString(parts[2+rng.IntN(3)])
			b.WriteString(parts[32+rng.IntN(11)])
		}
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	// The gap holds at most thirty runes, not bytes: gaps of several-byte
	// runes and ASCII around that bound.
	for n := range 34 {
		for _, r := range []string{"é", "€", "\xff", "x"} {
			gap := strings.Repeat(r, n/2) + strings.Repeat("1", n-n/2)
			lines = append(lines, "inci "+gap+" vat", "(inkl. "+gap+" mwst.)", "y"+gap+" gst")
		}
	}
	lines = raceSample(lines)
	for _, get := range []func() *guardedRE{reTotalAbsorb, reV2Included} {
		g := get()
		if g.open == nil {
			t.Fatalf("%s: no opener search", g.Regexp)
		}
		found := 0
		for _, s := range lines {
			want := g.Regexp.FindAllStringIndex(s, -1)
			if got := g.FindAllStringIndex(s, -1); !equalMatches(want, got) {
				t.Fatalf("%s: FindAllStringIndex(%q) = %v, the regexp says %v", g.Regexp, s, got, want)
			}
			if got, want := g.ReplaceAllString(s, " "), g.Regexp.ReplaceAllString(s, " "); got != want {
				t.Fatalf("%s: ReplaceAllString(%q) = %q, the regexp says %q", g.Regexp, s, got, want)
			}
			found += len(want)
		}
		if found < atLeast(3000) {
			t.Fatalf("%s: only %d matches; the comparison would prove little", g.Regexp, found)
		}
	}
}
