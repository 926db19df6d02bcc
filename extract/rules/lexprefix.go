package rules

// prefixEnd returns the end of the match FindStringIndex(f) finds when
// that match starts at 0 of f, and -1 when it does not (no match, or a
// later one): the longest match at 0, the first position find tries. The
// block-label searches ask only whether a label opens the cell, and a full
// search for a match further on was a twentieth of the extractor's time.
func (lx *lexicon) prefixEnd(f string) int {
	t := lx.tables()
	if t.full {
		if m := t.FindStringIndex(f); m != nil && m[0] == 0 {
			return m[1]
		}
		return -1
	}
	return t.prefixEnd(f)
}

// prefixEnd is find's first step, at 0 (t not full).
func (lx *lexTables) prefixEnd(f string) int {
	if f == "" {
		return -1
	}
	var pos, next [16]int
	c := f[0]
	if isAlnumByte[c] {
		if lx.byKey == nil {
			return -1
		}
		best, k := -1, 0
		for n := 0; n < 3 && n < len(f) && isWordByte(f[n]); n++ {
			k = k*keyBase + wordCode(f[n])
			if !lx.keys.has(k) {
				if !lx.stems.has(k) {
					break
				}
				continue
			}
			groups := lx.byKey[k]
			for i := range groups {
				if g := &groups[i]; hasLitAt(f, 0, g.lit) {
					best = max(best, g.longest(f, pos[:0], next[:0]))
				}
			}
		}
		return best
	}
	progs := lx.byFirst[c]
	if progs == nil || lx.bounded[c] && !isREWordByte(c) {
		// A phrase's leading \b at 0 needs a word byte there.
		return -1
	}
	best := -1
	for _, prog := range progs {
		if prog.mayOpen(f) {
			best = max(best, prog.longestAt(f, pos[:0], next[:0]))
		}
	}
	return best
}
