package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTitleRestOK holds titleRestOK's shortcuts to reTitleRest over every
// cell of the texts and their tails, and over random mixes of the bytes
// the shortcuts test.
func TestTitleRestOK(t *testing.T) {
	t.Parallel()
	check := func(s string) {
		t.Helper()
		if got, want := titleRestOK(s), reTitleRest.MatchString(s); got != want {
			t.Fatalf("titleRestOK(%q) = %v, reTitleRest says %v", s, got, want)
		}
	}
	for _, text := range globTexts(t, "../../fixtures/*/*.txt", "../../fixtures/*/*/*.txt", "testdata/dev/*.txt",
		"/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt") {
		for ln := range strings.SplitSeq(foldString(text), "\n") {
			for i := 0; i < len(ln) && i < 80; i++ {
				check(ln[i:])
				check(strings.TrimSpace(ln[i:]))
			}
		}
	}
	alphabet := []string{"", " ", "–", "-", "—", ":", "#", "/", "(", ")", "|", "0", "9", "a", "n", "o", "°", "no", "nr", "number", "nummer", "numero", "numer", "nu", "x", "\t", "\n", "\xe2", "\x80"}
	r := rand.New(rand.NewPCG(15, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(5) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		check(b.String())
	}
}
