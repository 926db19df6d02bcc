package rules

import "testing"

// TestPrefixEndMatchesFindStringIndex holds prefixEnd to FindStringIndex
// read at 0, for every lexicon, on a fifth of the corpus lines (folded
// and raw) and random ones, from each word start or non-letter.
func TestPrefixEndMatchesFindStringIndex(t *testing.T) {
	t.Parallel()
	var texts []string
	for k, s := range equivLines(t, true, 5000) {
		if k%5 != 0 { // every fifth line: each gives many suffixes
			continue
		}
		for _, x := range []string{foldString(s), s} {
			for i := 0; i < len(x); i++ {
				if i == 0 || !isREWordByte(x[i]) || !isREWordByte(x[i-1]) {
					texts = append(texts, x[i:])
				}
			}
		}
	}
	found := 0
	for _, lx := range lexicons {
		for _, f := range texts {
			want := -1
			if m := lx.FindStringIndex(f); m != nil && m[0] == 0 {
				want = m[1]
			}
			if got := lx.prefixEnd(f); got != want {
				t.Fatalf("lexicon %d on %q: prefixEnd %d, FindStringIndex at 0 %d", lx.id, f, got, want)
			}
			if want >= 0 {
				found++
			}
		}
	}
	if found < atLeast(12000) {
		t.Fatalf("only %d matches at 0: the comparison proves little", found)
	}
	t.Logf("%d texts, %d matches at 0", len(texts), found)
}
