package rules

import "testing"

// mayHaveRef is line.mayHave as it was before its byKeyOnly shortcut.
func mayHaveRef(t *lexTables, lk *lineKeys) bool {
	if !t.mayFind(lk) {
		return false
	}
	if t.prefix || t.byKey == nil || t.id < 0 || t.id >= lk.lexN || t.opensOther(lk) {
		return true
	}
	return lk.foundLex.has(t.id)
}

// TestMayHaveMatchesReference holds mayHave to mayHaveRef for every
// lexicon on every line of the corpus, and to what find says: where it
// says no, find finds nothing.
func TestMayHaveMatchesReference(t *testing.T) {
	t.Parallel()
	var lines []*line
	for _, s := range equivLines(t, true, 5000) {
		ln := &line{raw: s, f: fold(s)}
		lines = append(lines, ln)
	}
	keyOnly, yes, no := 0, 0, 0
	for _, lx := range lexicons {
		tb := lx.tables()
		if tb.full {
			continue
		}
		if tb.byKeyOnly {
			keyOnly++
		}
		for _, ln := range lines {
			want := mayHaveRef(tb, ln.keysOf())
			if got := ln.mayHave(tb); got != want {
				t.Fatalf("lexicon %d on %q: mayHave %v, the old test %v", tb.id, ln.f.s, got, want)
			}
			if want {
				yes++
				continue
			}
			no++
			if s, e, ok := tb.find(ln.f.s, 0); ok {
				t.Fatalf("lexicon %d on %q: mayHave says no, find finds %q", tb.id, ln.f.s, ln.f.s[s:e])
			}
		}
	}
	if keyOnly < 50 || yes < atLeast(10000) || no < atLeast(100000) {
		t.Fatalf("%d lexicons by key only, %d yes, %d no: the comparison proves little", keyOnly, yes, no)
	}
}
