package rules

// has is lx.MatchString(ln.f.s), answered from the line's keys where no
// phrase of the lexicon opens on the line (mayFind): most lines, for most
// lexicons, without walking the line.
func (ln *line) has(lx *lexicon) bool {
	t := lx.tables()
	if t.full {
		return t.MatchString(ln.f.s)
	}
	if ln.mayNot(t) || !ln.mayHave(t) {
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
	if ln.mayNot(t) || !ln.mayHave(t) {
		return nil
	}
	if s, e, ok := ln.find(t, 0); ok {
		return []int{s, e}
	}
	return nil
}

// all is lx.FindAllStringIndex(ln.f.s, -1), with has's shortcut, and
// read from the line's matches (lineKeys.found) where find would read
// them: the lexicon's matches, each searched from the end of the one
// before, are its longest at the word beginnings that lie past that end
// (a word beginning of the line is one for any search from before it).
// Walking the line again per list was half a percent of a document.
func (ln *line) all(lx *lexicon) [][]int {
	t := lx.tables()
	if t.full {
		return t.FindAllStringIndex(ln.f.s, -1)
	}
	lk := ln.keysOf()
	if !t.mayFind(lk) {
		return nil
	}
	if t.id < 0 || t.id >= lk.lexN || !lexAllIndex().covered.has(t.id) || t.opensOther(lk) {
		return t.FindAllStringIndex(ln.f.s, -1)
	}
	if !lk.foundLex.has(t.id) {
		return nil
	}
	var out [][]int
	var spans []int
	pos := 0
	for _, m := range lk.found {
		if int(m.lex) != t.id || int(m.pos) < pos {
			continue
		}
		var sp []int
		sp, spans = newSpan(spans, int(m.pos), int(m.end))
		out = append(out, sp)
		pos = int(m.end)
	}
	return out
}

// find is t.find(f[from:], 0) on the line's folded text f, its span
// shifted back by from (t not full). The line's search for every indexed
// lexicon at once (lineKeys.found) already holds each one's longest match
// at every word beginning, so find reads the first at or after from. Where
// that cannot answer — a phrase opening with another byte that the line
// holds, an anchored lexicon, one outside the index, or a search starting
// inside a word, which the slice makes a word start — t.find walks the
// line.
func (ln *line) find(t *lexTables, from int) (int, int, bool) {
	f := ln.f.s
	lk := ln.keysOf()
	if t.id < 0 || t.id >= lk.lexN || !lexAllIndex().covered.has(t.id) || t.opensOther(lk) ||
		from > 0 && from < len(f) && isAlnumByte[f[from]] && isREWordByte(f[from-1]) {
		s, e, ok := t.find(f[from:], 0)
		return s + from, e + from, ok
	}
	if !lk.foundLex.has(t.id) {
		return 0, 0, false
	}
	for _, m := range lk.found {
		if int(m.lex) == t.id && int(m.pos) >= from {
			return int(m.pos), int(m.end), true
		}
	}
	return 0, 0, false
}

// opensOther reports whether the line holds a byte that opens one of the
// lexicon's phrases outside byKey (first).
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

// mayHave is t.mayFind on the line's keys, exact for the lexicons the
// line's search covers (find reads those from it): false only where
// find(t, 0) finds nothing, and for most lexicons, whose phrases' openings
// a line holds without the phrases, without find's set-up.
func (ln *line) mayHave(t *lexTables) bool {
	lk := ln.keysOf()
	if t.byKeyOnly && t.id < lk.lexN {
		// mayFind's and the test below, for a lexicon that opens no
		// phrase by byte.
		return lk.may.has(t.id)
	}
	return ln.mayHaveOther(t, lk)
}

// mayNot is mayHave's no for a byKeyOnly lexicon on a line whose keys are
// gathered, without a call: small enough to inline into has, index and
// appendLabels, which ask some 1,400 times a document, most answering no
// (mayHave, a call each, was a fiftieth of the extractor's instructions).
// False where mayHave must be asked.
func (ln *line) mayNot(t *lexTables) bool {
	// Keys not gathered yet are zero, lexN too: then false.
	k := t.keyOnly
	return k < ln.lk.lexN && ln.lk.may[k>>6]>>(k&63)&1 == 0
}

// mayHaveOther is mayHave for a lexicon that is not byKeyOnly.
func (ln *line) mayHaveOther(t *lexTables, lk *lineKeys) bool {
	if !t.mayFind(lk) {
		return false
	}
	if t.prefix || t.byKey == nil || t.id < 0 || t.id >= lk.lexN || t.opensOther(lk) {
		return true
	}
	return lk.foundLex.has(t.id)
}
