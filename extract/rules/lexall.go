package rules

import (
	"math/bits"
	"slices"
)

// lexAll is every indexed lexicon's keyed phrases in one table, so a line
// is searched once for all of them (lineKeys.found) rather than once per
// lexicon it is asked about. Each line is asked about some forty lexicons,
// a label search walked the line's key hits once per lexicon (and again
// after each match), and lexicons share most of their openings ("total",
// "invoice", "tax"): the same literal was compared, and the same phrase
// run, once per lexicon and per search. Here a word beginning's phrases
// are run once, each phrase once however many lexicons list it, and the
// line keeps, per word beginning, each lexicon's longest match.
type lexAll struct {
	slot   []uint16     // by key code: 0 for none, else 1 + index in groups
	groups [][]allGroup // the phrases by key, grouped by their opening literal
	// covered holds the lexicons line.find answers from the index: those
	// of the key index (lexKeys) that search by key and are not anchored.
	covered lexMask
}

// allGroup is phraseGroup over all lexicons: the rests of the phrases
// that open with lit, each listed once, with the lexicons that hold it.
type allGroup struct {
	lit   string
	rests []phraseProg
	needs []restNeed
	lexs  []lexMask // per rest: the lexicons with the phrase
}

// lexAllIndex builds the table on first use from the lexicons' compiled
// keyed phrases (their byKey groups), so it holds exactly what each
// lexicon's own search tries.
var lexAllIndex = onFirstUse(func() *lexAll {
	keys := lexKeys()
	x := &lexAll{slot: make([]uint16, keyBits)}
	byKey := map[int][]allGroup{}
	for _, lx := range lexicons[:keys.n] {
		t := lx.tables()
		if t.full || t.prefix || t.byKey == nil {
			continue
		}
		x.covered[t.id/64] |= 1 << (t.id % 64)
		for k, groups := range t.byKey {
			for _, g := range groups {
				byKey[k] = addAllGroup(byKey[k], t.id, g)
			}
		}
	}
	codes := make([]int, 0, len(byKey))
	for k := range byKey {
		codes = append(codes, k)
	}
	slices.Sort(codes) // the same table on every run
	for _, k := range codes {
		x.groups = append(x.groups, byKey[k])
		x.slot[k] = uint16(len(x.groups))
	}
	return x
})

// addAllGroup adds lexicon id's group g to the key's groups.
func addAllGroup(groups []allGroup, id int, g phraseGroup) []allGroup {
	i := slices.IndexFunc(groups, func(a allGroup) bool { return a.lit == g.lit })
	if i < 0 {
		groups = append(groups, allGroup{lit: g.lit})
		i = len(groups) - 1
	}
	a := &groups[i]
	for r, rest := range g.rests {
		j := slices.IndexFunc(a.rests, func(p phraseProg) bool { return slices.Equal(p, rest) })
		if j < 0 {
			a.rests = append(a.rests, rest)
			a.needs = append(a.needs, g.needs[r])
			a.lexs = append(a.lexs, lexMask{})
			j = len(a.rests) - 1
		}
		a.lexs[j][id/64] |= 1 << (id % 64)
	}
	return groups
}

// lexFound is a match of an indexed lexicon on a line: at pos, the
// longest of its keyed phrases ends at end.
type lexFound struct {
	pos, end int32
	lex      uint8
}

// findAll appends to out, in line order, each indexed lexicon's longest
// match at every word beginning of f whose keys (hits) open one of its
// keyed phrases, and returns the lexicons with any.
func (x *lexAll) findAll(f string, hits []keyHit, out []lexFound) ([]lexFound, lexMask) {
	var found lexMask
	var pos, next [16]int
	var ends [lexMaskWords * 64]int32 // per lexicon: 1 + the longest match's length at s, 0 for none
	for i := 0; i < len(hits); {
		s := int(hits[i].pos)
		var at lexMask
		for ; i < len(hits) && int(hits[i].pos) == s; i++ {
			slot := x.slot[hits[i].key]
			if slot == 0 {
				continue
			}
			for gi := range x.groups[slot-1] {
				g := &x.groups[slot-1][gi]
				if hasLitAt(f, s, g.lit) {
					g.ends(f[s:], pos[:0], next[:0], &ends, &at)
				}
			}
		}
		for w, m := range at {
			for m != 0 {
				id := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				out = append(out, lexFound{pos: int32(s), end: int32(s) + ends[id] - 1, lex: uint8(id)})
				ends[id] = 0
			}
			found[w] |= at[w]
		}
	}
	return out, found
}

// ends is phraseGroup.longest for every lexicon at once: each rest that
// matches t raises the match of the lexicons holding it (ends, 1 + the
// length) and marks them in at.
func (g *allGroup) ends(t string, pos, next []int, ends *[lexMaskWords * 64]int32, at *lexMask) {
	p := len(g.lit)
	c, afterSpaces, afterSep := -1, -2, -2
	if p < len(t) {
		c = int(t[p])
	}
	for i, rest := range g.rests {
		switch n := g.needs[i]; n.skip {
		case needAt:
			if c != int(n.b) {
				continue
			}
		case needAfterSpaces:
			if afterSpaces == -2 {
				afterSpaces = byteAfterRun(t, p, stepSpaces)
			}
			if afterSpaces != int(n.b) {
				continue
			}
		case needAfterSep:
			if afterSep == -2 {
				afterSep = byteAfterRun(t, p, stepSep)
			}
			if afterSep != int(n.b) {
				continue
			}
		}
		e := rest.longestAfter(t, p, pos, next)
		if e < 0 {
			continue
		}
		for w, m := range g.lexs[i] {
			at[w] |= m
			for m != 0 {
				id := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				ends[id] = max(ends[id], int32(e)+1)
			}
		}
	}
}
