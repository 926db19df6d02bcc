package rules

import (
	"slices"
	"testing"
)

// TestLexAllMatchesEachLexicon holds the one search for all lexicons
// (lexAll.findAll) to each lexicon's own phrases tried at each word
// beginning the line's key hits list (the search line.find ran per lexicon
// before): for every covered lexicon, the same word beginnings and the
// same longest match at each, on folded and raw corpus and random lines
// and words that hold phrases inside them.
func TestLexAllMatchesEachLexicon(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, s := range equivLines(t, false, 5000) {
		texts = append(texts, foldString(s), s)
	}
	texts = append(texts, "subtotal 5.00 grandtotal", "nettobetrag:steuerbetrag", "invoicenumber", "totaldue1.00",
		"total  amount   due", "inv. no. 7", "total-due", "n° de facture")
	all := lexAllIndex()
	covered, found := 0, 0
	for _, lx := range lexicons[:lexKeys().n] {
		tb := lx.tables()
		if !all.covered.has(tb.id) && !all.anchored.has(tb.id) {
			continue
		}
		covered++
		for _, s := range texts {
			lk, _, _ := newLineKeysHits(s, nil, nil, true)
			got, gotLex := all.findAll(s, lk.hits, nil)
			want := eachLexiconAtHits(tb, s, lk.hits)
			var mine []lexFound
			for _, m := range got {
				if int(m.lex) == tb.id {
					mine = append(mine, m)
				}
			}
			if !slices.Equal(mine, want) {
				t.Fatalf("lexicon %d on %q: findAll %v, its own phrases %v", tb.id, s, mine, want)
			}
			if gotLex.has(tb.id) != (len(want) > 0) {
				t.Fatalf("lexicon %d on %q: found mask %v with %d matches", tb.id, s, gotLex.has(tb.id), len(want))
			}
			found += len(want)
		}
	}
	t.Logf("%d lexicons, %d matches, %d texts", covered, found, len(texts))
	if covered < 60 || found < atLeast(20000) {
		t.Fatalf("only %d lexicons and %d matches: the comparison proves little", covered, found)
	}
}

// eachLexiconAtHits is the reference: the lexicon's longest match at every
// word beginning of f among hits, trying its groups for each key there.
func eachLexiconAtHits(tb *lexTables, f string, hits []keyHit) []lexFound {
	var out []lexFound
	var pos, next [16]int
	for i := 0; i < len(hits); {
		s := int(hits[i].pos)
		best := -1
		for ; i < len(hits) && int(hits[i].pos) == s; i++ {
			groups := tb.byKey[int(hits[i].key)]
			for gi := range groups {
				if g := &groups[gi]; hasLitAt(f, s, g.lit) {
					best = max(best, g.longest(f[s:], pos[:0], next[:0]))
				}
			}
		}
		if best >= 0 {
			out = append(out, lexFound{pos: int32(s), end: int32(s + best), lex: uint8(tb.id)})
		}
	}
	return out
}

// TestLexAllCoversTheIndexedLexicons holds the index to the lexicons
// line.find answers from it: every one of the key index's that searches
// by key and is not anchored, and none other.
func TestLexAllCoversTheIndexedLexicons(t *testing.T) {
	t.Parallel()
	all := lexAllIndex()
	n := 0
	for _, lx := range lexicons {
		tb := lx.tables()
		want := tb.id < lexKeys().n && !tb.full && !tb.prefix && tb.byKey != nil
		if all.covered.has(tb.id) != want {
			t.Errorf("lexicon %d (%v): covered %v, want %v", tb.id, lx.list()[:1], all.covered.has(tb.id), want)
		}
		if want {
			n++
		}
	}
	if n < 60 {
		t.Fatalf("only %d lexicons covered", n)
	}
}

// TestAllNeedOf holds the byte a rest needs first to what its first step
// reads: a boundary after a word byte needs a non-word byte, but after a
// byte that is none (a literal ending in "°" or "é" unfolded) it needs a
// word byte, so no need may be claimed there.
func TestAllNeedOf(t *testing.T) {
	t.Parallel()
	boundary := phraseProg{{kind: stepBoundary}}
	dotWord := phraseProg{{kind: stepDotWord}, {kind: stepLit, lit: "no"}, {kind: stepBoundary}}
	tests := []struct {
		name string
		lit  string
		rest phraseProg
		want allNeed
	}{
		{"word then boundary", "total", boundary, allNeed{skip: needNotWord}},
		{"word then dot or boundary", "inv", dotWord, allNeed{skip: needNotWord}},
		{"non-word byte then boundary", "n\u00b0", boundary, allNeed{}},
		{"non-word byte then dot or boundary", "r\u00e9f", dotWord, allNeed{skip: needNotWord}},
		{"accent last then dot or boundary", "pay\u00e9", dotWord, allNeed{}},
		{"literal", "total", phraseProg{{kind: stepLit, lit: "due"}}, allNeed{needAt, 'd'}},
		{"spaces then literal", "total", phraseProg{{kind: stepSpaces}, {kind: stepLit, lit: "due"}}, allNeed{needAfterSpaces, 'd'}},
		{"empty rest", "total", nil, allNeed{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := allNeedOf(tt.lit, tt.rest); got != tt.want {
				t.Errorf("allNeedOf(%q, %v) = %v, want %v", tt.lit, tt.rest, got, tt.want)
			}
		})
	}
}

// TestPrefixEndAtMatchesPrefixEnd holds the block-label search read from
// the line's matches (line.prefixEndAt) to each lexicon's own search on
// the text cut out, for every lexicon the line's search covers, on folded
// corpus and random lines, from every word beginning (and some other
// bytes) to every later space and the line's end, and into some words.
func TestPrefixEndAtMatchesPrefixEnd(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, s := range equivLines(t, false, 3000) {
		texts = append(texts, foldString(s))
	}
	texts = append(texts, "bill to:acme", "ship tomorrow", "invoice to  acme ltd", "bank details: iban", "rechnungsadresse")
	all := lexAllIndex()
	var lxs []*lexicon
	for _, lx := range lexicons[:lexKeys().n] {
		if id := lx.tables().id; all.covered.has(id) || all.anchored.has(id) {
			lxs = append(lxs, lx)
		}
	}
	asked, found := 0, 0
	for i, f := range texts {
		ln := &line{f: folded{s: f}}
		for s := 0; s < len(f); s++ {
			if s > 0 && isREWordByte(f[s-1]) && i%7 != 0 {
				continue // inside a word: only some lines
			}
			spaces := 0
			for e := s + 1; e <= len(f) && spaces < 4; e++ {
				if e < len(f) && f[e] != ' ' && (i%5 != 0 || e-s > 12) {
					continue // ends inside a word or on other bytes: only some
				}
				if e < len(f) && f[e] == ' ' && i%3 != 0 {
					spaces++ // the first few cells from s: all on every third line
				}
				for _, lx := range lxs {
					want, got := lx.prefixEnd(f[s:e]), ln.prefixEndAt(lx, s, f[s:e], ln.matchesAt(s))
					if got != want {
						t.Fatalf("lexicon %d on %q [%d:%d] %q: prefixEndAt %d, prefixEnd %d", lx.id, f, s, e, f[s:e], got, want)
					}
					asked++
					if want > 0 {
						found++
					}
				}
			}
		}
		if raceOn && i > 2000 {
			break
		}
	}
	t.Logf("%d lexicons, %d asked, %d found", len(lxs), asked, found)
	if len(lxs) < 60 || found < atLeast(20000) {
		t.Fatalf("only %d lexicons, %d found: the comparison proves little", len(lxs), found)
	}
}

// TestCellMatchesMatchFindAll holds a cell's matches read from its line's
// (line.cellMatches) to each lexicon's FindAllStringIndex on the text cut
// out, for every lexicon, on folded corpus and random lines, from every
// word beginning (and some other bytes) to the next spaces and the line's
// end, and into some words; where it cannot answer it must say so.
func TestCellMatchesMatchFindAll(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, s := range equivLines(t, false, 3000) {
		texts = append(texts, foldString(s))
	}
	texts = append(texts, "unit price  qty  amount", "total amount due", "totaltotal total", "pos. description vat %")
	answered, found := 0, 0
	for i, f := range texts {
		ln := &line{f: folded{s: f}}
		ln.keysOf()
		for s := 0; s < len(f); s++ {
			if s > 0 && isREWordByte(f[s-1]) && i%7 != 0 {
				continue
			}
			spaces := 0
			for e := s + 1; e <= len(f) && spaces < 3; e++ {
				if e < len(f) && f[e] != ' ' && (i%5 != 0 || e-s > 12) {
					continue
				}
				if e < len(f) && f[e] == ' ' && i%3 != 0 {
					spaces++
				}
				for _, lx := range lexicons {
					var got [][]int
					if !ln.cellMatches(lx, s, f[s:e], func(a, b int) { got = append(got, []int{a, b}) }) {
						continue
					}
					answered++
					if want := lx.FindAllStringIndex(f[s:e], -1); !equalMatches(want, got) {
						t.Fatalf("lexicon %d on %q [%d:%d] %q: cellMatches %v, FindAllStringIndex %v", lx.id, f, s, e, f[s:e], got, want)
					}
					found += len(got)
				}
			}
		}
		if raceOn && i > 1500 {
			break
		}
	}
	t.Logf("%d answered, %d matches", answered, found)
	if answered < atLeast(1000000) || found < atLeast(20000) {
		t.Fatalf("only %d answered, %d matches: the comparison proves little", answered, found)
	}
}
