package rules

import "testing"

// TestLineFindMatchesLexiconFind holds the line's search by its key hits
// (line.find) to the lexicon's own search on the text from the same
// position, for every lexicon that is not full, on folded corpus lines and
// random ones (raw too: folding is not what makes them agree), from the
// line's start, from each match's end as labels goes on, and on every
// sixty-first line and a few hand-written ones from every byte.
func TestLineFindMatchesLexiconFind(t *testing.T) {
	t.Parallel()
	raw := equivLines(t, false, 5000)
	var texts []string
	for _, s := range raw {
		texts = append(texts, foldString(s), s)
	}
	// Words that hold a phrase inside them, where a search from inside the
	// word sees a word start the line does not have.
	hand := []string{"subtotal 5.00 grandtotal", "nettobetrag:steuerbetrag", "invoicenumber", "totaldue1.00"}
	for _, s := range hand {
		texts = append(texts, foldString(s))
	}
	check := func(tb *lexTables, ln *line, from int) (int, bool) {
		t.Helper()
		ws, we, wok := tb.find(ln.f.s[from:], 0)
		ws, we = ws+from, we+from
		gs, ge, gok := ln.find(tb, from)
		if gok != wok || wok && (gs != ws || ge != we) {
			t.Fatalf("lexicon %d on %q from %d: line.find %d %d %v, find %d %d %v", tb.id, ln.f.s, from, gs, ge, gok, ws, we, wok)
		}
		return we, wok
	}
	found, froms := 0, 0
	for _, lx := range lexicons {
		tb := lx.tables()
		if tb.full {
			continue
		}
		for i, s := range texts {
			ln := &line{f: folded{s: s}}
			for from := 0; from <= len(s); {
				e, ok := check(tb, ln, from)
				froms++
				if !ok {
					break
				}
				found++
				from = max(e, from+1)
			}
			if i%61 == 0 || i >= len(texts)-len(hand) {
				for from := 1; from < len(s); from++ {
					check(tb, ln, from)
					froms++
				}
			}
		}
	}
	t.Logf("%d matches, %d positions, %d texts", found, froms, len(texts))
	if found < atLeast(24000) || froms < atLeast(1000000) {
		t.Fatalf("only %d matches from %d positions: the comparison proves little", found, froms)
	}
}

// TestLineAllMatchesFindAll holds line.all to the lexicon's
// FindAllStringIndex on every lexicon and folded corpus line: the key test
// in front of it may answer nil only where there is no match.
func TestLineAllMatchesFindAll(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, s := range equivLines(t, false, 5000) {
		texts = append(texts, foldString(s))
	}
	found := 0
	for _, lx := range lexicons {
		for _, s := range texts {
			ln := &line{f: folded{s: s}}
			want, got := lx.FindAllStringIndex(s, -1), ln.all(lx)
			if !equalMatches(want, got) {
				t.Fatalf("lexicon %d on %q: all %v, FindAllStringIndex %v", lx.id, s, got, want)
			}
			found += len(want)
		}
	}
	if found < atLeast(20000) {
		t.Fatalf("only %d matches: the comparison proves little", found)
	}
}
