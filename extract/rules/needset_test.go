package rules

import (
	"strings"
	"testing"
)

// needInRef is needSet.in as it was before its first-byte table (opens):
// every byte folded and its list read.
func needInRef(n *needSet, s string) bool {
	for i := 0; i < len(s); i++ {
		for _, l := range n.byFirst[lowerASCII(s[i])] {
			if len(s)-i < len(l.lit) {
				continue
			}
			w := s[i : i+len(l.lit)]
			if w == l.lit || l.fold && strings.EqualFold(w, l.lit) {
				return true
			}
		}
	}
	return false
}

// TestNeedSetInMatchesReference holds every guarded regexp's need test to
// needInRef on every corpus line, upper- and lower-cased, and on random
// lines: the first-byte table must skip only bytes that open nothing.
func TestNeedSetInMatchesReference(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, true, 20000)
	sets, yes, no := 0, 0, 0
	for _, get := range guardedREs {
		n := get().need
		if n == nil {
			continue
		}
		sets++
		for _, s := range lines {
			want := needInRef(n, s)
			if got := n.in(s); got != want {
				t.Fatalf("%s on %q: in %v, reference %v", get(), s, got, want)
			}
			if want {
				yes++
			} else {
				no++
			}
		}
	}
	if sets < 10 || yes < atLeast(10000) || no < atLeast(10000) {
		t.Fatalf("%d sets, %d yes, %d no: the comparison proves little", sets, yes, no)
	}
}
