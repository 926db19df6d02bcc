package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestParsePlainNumberEquivalent holds parseNumber's plain-shape fast path
// to the general parser it bypasses: every numeric token of every line
// (fixtures, dev texts, random lines), every prefix and suffix of it, and
// random strings of digits and separators, at every exponent both with and
// without a known exponent.
func TestParsePlainNumberEquivalent(t *testing.T) {
	t.Parallel()
	toks := map[string]bool{}
	add := func(s string) {
		for i := 0; i <= len(s); i++ {
			toks[s[:i]] = true
			toks[s[i:]] = true
		}
	}
	for _, ln := range equivLines(t, false, 2000) {
		for _, a := range findNumbers(ln, nil) {
			add(a.text(ln))
		}
	}
	rng := rand.New(rand.NewPCG(15, 4))
	pieces := []string{"0", "1", "5", "9", "00", "123", "4567", ".", ",", "'", " ", "’", "\u00a0", "x", "-", "é"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		toks[b.String()] = true
	}
	toks["99999999999999999999.5"] = true
	toks["0000000000000000000001"] = true
	if len(toks) < 1000 {
		t.Fatalf("only %d tokens; the comparison would prove little", len(toks))
	}
	for tok := range toks {
		for _, exp := range []int{0, 1, 2, 3, 4, 6} {
			for _, known := range []bool{false, true} {
				m, f, ok := parseNumber(tok, exp, known)
				wm, wf, wok := parseNumberGroups(tok, exp, known)
				if m != wm || f != wf || ok != wok {
					t.Fatalf("parseNumber(%q, %d, %v) = %d, %v, %v; general parser: %d, %v, %v", tok, exp, known, m, f, ok, wm, wf, wok)
				}
			}
		}
	}
}
