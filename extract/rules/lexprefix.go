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
	if lx.firstSet[c/64]&(1<<(c%64)) == 0 || lx.first.bounded[c] && !isREWordByte(c) {
		// A phrase's leading \b at 0 needs a word byte there.
		return -1
	}
	best := -1
	for _, prog := range lx.first.progs[c] {
		if prog.mayOpen(f) {
			best = max(best, prog.longestAt(f, pos[:0], next[:0]))
		}
	}
	return best
}

// prefixEndAt is lx.prefixEnd(f) for f the line's folded text from s on
// (f == ln.f.s[s:s+len(f)], a cell's fold), read from the line's matches
// at s (at, matchesAt(s)) where they answer. A match of f at 0 is one of
// the line at s where s is a word beginning and the byte after f, if any,
// is no word byte (the \b a phrase may end with sees the same there), so
// the line's longest match at s is f's when it ends within f; where it
// runs on past f, f's own search decides. The block-label search asks
// four lexicons of every cell, anew for each.
func (ln *line) prefixEndAt(lx *lexicon, s int, f string, at []lexFound) int {
	t := lx.tables()
	lf := ln.f.s
	e := s + len(f)
	// The lexicons of the line's search (lexAll): keyed, in the key index.
	if t.full || t.byKey == nil || t.id < 0 || t.id >= ln.lk.lexN || !ln.lkDone ||
		f == "" || !isAlnumByte[f[0]] || s > 0 && isREWordByte(lf[s-1]) || e < len(lf) && isREWordByte(lf[e]) {
		return lx.prefixEnd(f)
	}
	for _, m := range at {
		if int(m.lex) == t.id {
			if int(m.end) <= e {
				return int(m.end) - s
			}
			return t.prefixEnd(f)
		}
	}
	return -1
}

// matchesAt returns the line's matches at s (lineKeys.found).
func (ln *line) matchesAt(s int) []lexFound {
	found := ln.keysOf().found
	i := 0
	for i < len(found) && int(found[i].pos) < s {
		i++
	}
	j := i
	for j < len(found) && int(found[j].pos) == s {
		j++
	}
	return found[i:j]
}

// cellMatches calls yield with each match lx.FindAllStringIndex(f) lists,
// for f the line's folded text from off on (a cell's fold), read from the
// line's matches where they answer; ok false where they cannot (then the
// caller searches f). Where off is a word beginning and the byte after f,
// if any, is no word byte, a match of f is one of the line at the same
// place (see prefixEndAt), and f's longest there is the line's when that
// ends within f; the list goes on from each match's end, as findAll does
// on f (whose word beginnings past 0 are the line's).
func (ln *line) cellMatches(lx *lexicon, off int, f string, yield func(s, e int)) bool {
	t := lx.tables()
	lf := ln.f.s
	end := off + len(f)
	if t.full || t.prefix || t.byKey == nil || t.id < 0 || !ln.lkDone || t.id >= ln.lk.lexN || t.opensOther(&ln.lk) ||
		off > 0 && isREWordByte(lf[off-1]) || end < len(lf) && isREWordByte(lf[end]) {
		return false
	}
	if !ln.lk.foundLex.has(t.id) {
		return true
	}
	// The matches in f, checked before any is handed on.
	pos := off
	for _, m := range ln.lk.found {
		if int(m.lex) != t.id || int(m.pos) < pos {
			continue
		}
		if int(m.pos) >= end {
			break
		}
		if int(m.end) > end {
			return false
		}
		pos = int(m.end)
	}
	pos = off
	for _, m := range ln.lk.found {
		if int(m.lex) != t.id || int(m.pos) < pos {
			continue
		}
		if int(m.pos) >= end {
			break
		}
		yield(int(m.pos)-off, int(m.end)-off)
		pos = int(m.end)
	}
	return true
}
