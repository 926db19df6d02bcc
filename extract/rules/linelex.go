package rules

// has is lx.MatchString(ln.f.s), answered from the line's keys where no
// phrase of the lexicon opens on the line (mayFind): most lines, for most
// lexicons, without walking the line.
func (ln *line) has(lx *lexicon) bool {
	t := lx.tables()
	if t.full {
		return t.MatchString(ln.f.s)
	}
	if !t.mayFind(ln.keysOf()) {
		return false
	}
	_, _, ok := ln.find(t, 0)
	return ok
}

// index is lx.FindStringIndex(ln.f.s), with has's shortcut.
func (ln *line) index(lx *lexicon) []int {
	t := lx.tables()
	if t.full {
		return t.FindStringIndex(ln.f.s)
	}
	if !t.mayFind(ln.keysOf()) {
		return nil
	}
	if s, e, ok := ln.find(t, 0); ok {
		return []int{s, e}
	}
	return nil
}

// all is lx.FindAllStringIndex(ln.f.s, -1), with has's shortcut.
func (ln *line) all(lx *lexicon) [][]int {
	t := lx.tables()
	if !t.full && !t.mayFind(ln.keysOf()) {
		return nil
	}
	return t.FindAllStringIndex(ln.f.s, -1)
}

// find is t.find(f[from:], 0) on the line's folded text f, its span
// shifted back by from (t not full). The line's key hits already list
// every word beginning where some lexicon opens a phrase, so the search
// visits only those of t instead of walking the line byte by byte once
// per lexicon (a sixth of the extractor's time). Where the hits cannot
// answer — a phrase opening with another byte that the line holds, an
// anchored lexicon, one outside the index, or a search starting inside a
// word, which the slice makes a word start — t.find walks the line.
func (ln *line) find(t *lexTables, from int) (int, int, bool) {
	f := ln.f.s
	lk := ln.keysOf()
	if t.prefix || t.byKey == nil || t.id < 0 || t.id >= lk.lexN || t.opensOther(lk) ||
		from > 0 && from < len(f) && isAlnumByte[f[from]] && isREWordByte(f[from-1]) {
		s, e, ok := t.find(f[from:], 0)
		return s + from, e + from, ok
	}
	w, bit := t.id/64, uint64(1)<<(t.id%64)
	var pos, next [16]int
	hits := lk.hits
	for i := 0; i < len(hits); {
		s := int(hits[i].pos)
		best := -1
		for ; i < len(hits) && int(hits[i].pos) == s; i++ {
			h := &hits[i]
			if s < from || h.lex[w]&bit == 0 {
				continue
			}
			groups := t.byKey[int(h.key)]
			for i := range groups {
				if g := &groups[i]; hasLitAt(f, s, g.lit) {
					best = max(best, g.longest(f[s:], pos[:0], next[:0]))
				}
			}
		}
		if best >= 0 {
			return s, s + best, true
		}
	}
	return 0, 0, false
}

// opensOther reports whether the line holds a byte that opens one of the
// lexicon's phrases outside byKey (byFirst).
func (lx *lexTables) opensOther(lk *lineKeys) bool {
	if !lx.hasFirst {
		return false
	}
	for k := range lx.firstSet {
		if lx.firstSet[k]&lk.other[k] != 0 {
			return true
		}
	}
	return false
}
