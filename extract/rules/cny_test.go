package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// reCNY is the expression hasCNY answers for.
var reCNY = mustRE(`元|人民币|\bRMB\b|\bCNY\b|\bChina\b|\bP\.?R\.?C\.?\b|中国`)

// TestHasCNYMatchesRegexp holds hasCNY to reCNY on every line and whole
// text of the corpus and on random strings built from the pattern's parts.
func TestHasCNYMatchesRegexp(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, true, 2000)
	parts := []string{"P", "R", "C", ".", "..", " ", "PRC", "P.R.C.", "RMB", "CNY", "China", "Chinas", "x", "_", "9",
		"元", "人民", "币", "中", "国", "é", "-", "\n", "MERCHANT", "PURCHASE", "RMB10", "(CNY)", "PR", "RC"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 30000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	lines = append(lines, strings.Join(lines[:500], "\n"))
	yes := 0
	for _, s := range lines {
		want := reCNY().MatchString(s)
		if got := hasCNY(s); got != want {
			t.Fatalf("hasCNY(%q) = %v, reCNY says %v", s, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 1000 {
		t.Fatalf("only %d texts match; the comparison would prove little", yes)
	}
}
