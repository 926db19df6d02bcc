package rules

import "testing"

// TestLexKeyIndexMatchesKeySets holds mayFind through the line's lexicon
// mask to the key-by-key test on every lexicon and folded line of the
// corpus: the index must say yes exactly where some key of the line is
// one of the lexicon's.
func TestLexKeyIndexMatchesKeySets(t *testing.T) {
	t.Parallel()
	if n := lexKeys().n; n != len(lexicons) {
		t.Fatalf("the index covers %d of %d lexicons: raise lexMaskWords", n, len(lexicons))
	}
	lines := equivLines(t, false, 5000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	yes, indexed := 0, 0
	for _, lx := range lexicons {
		tb := lx.tables()
		if tb.full {
			continue
		}
		if tb.byKey != nil {
			indexed++
		}
		for _, f := range lines {
			lk, _ := newLineKeys(f, nil)
			want := tb.byKey != nil && tb.mayFindByKeys(&lk)
			for k := range tb.firstSet {
				want = want || tb.firstSet[k]&lk.other[k] != 0
			}
			if got := tb.mayFind(&lk); got != want {
				t.Fatalf("lexicon %d on %q: mayFind %v, key by key %v", tb.id, f, got, want)
			}
			if want {
				yes++
			}
		}
	}
	if indexed < 50 || yes < atLeast(100000) {
		t.Fatalf("only %d lexicons indexed, %d lines may match: the comparison proves little", indexed, yes)
	}
}
