package rules

// lineKeys is what a lexicon's search looks at first on a folded line,
// gathered once per line: the key codes (keySet's) of the one- to
// three-byte beginnings of its words, and the set of its other bytes.
// Each line is asked about some forty lexicons, and most answer no: with
// the keys in hand the answer is a few bit tests, not a scan of the line.
type lineKeys struct {
	keys  []int32   // codes of each word's 1-, 2- and 3-byte beginnings
	at    []int32   // the offset of the word start each of keys is at
	other [4]uint64 // bytes of the line that are not a-z or 0-9
}

// newLineKeys gathers the keys of f, with find's notion of a word start
// (a-z or 0-9 after anything but an ASCII letter, digit or "_"),
// appending them to buf and their offsets to atBuf (one buffer each for
// the whole document).
func newLineKeys(f string, buf, atBuf []int32) (lineKeys, []int32, []int32) {
	var lk lineKeys
	from, atFrom := len(buf), len(atBuf)
	for s := 0; s < len(f); s++ {
		c := f[s]
		if !isAlnumByte[c] {
			lk.other[c/64] |= 1 << (c % 64)
			continue
		}
		if s > 0 && isREWordByte(f[s-1]) {
			continue
		}
		k := 0
		for n := 0; n < 3 && s+n < len(f) && isWordByte(f[s+n]); n++ {
			k = k*keyBase + wordCode(f[s+n])
			buf = append(buf, int32(k))
			atBuf = append(atBuf, int32(s))
		}
	}
	lk.keys = buf[from:len(buf):len(buf)]
	lk.at = atBuf[atFrom:len(atBuf):len(atBuf)]
	return lk, buf, atBuf
}

// mayFind reports whether find(f, 0) could find anything on the line
// whose keys lk are: false only where find would try no phrase at all.
// Only for lexicons that are not full (they search with the expression).
func (lx *lexTables) mayFind(lk *lineKeys) bool {
	for k := range lx.firstSet {
		if lx.firstSet[k]&lk.other[k] != 0 {
			return true
		}
	}
	if lx.byKey == nil {
		return false
	}
	for _, k := range lk.keys {
		if lx.keys.has(int(k)) {
			return true
		}
	}
	return false
}

// keysOf returns the line's keys, gathered on first use.
func (ln *line) keysOf() *lineKeys {
	if !ln.lkDone {
		ln.lk, _, _ = newLineKeys(ln.f.s, nil, nil)
		ln.lkDone = true
	}
	return &ln.lk
}

// gatherKeys fills every line's keys from one buffer: a slice per line
// was a tenth of the document's allocations.
func (d *document) gatherKeys() {
	n := 0
	for _, ln := range d.lines {
		n += len(ln.f.s) / 2
	}
	buf, atBuf := make([]int32, 0, n), make([]int32, 0, n)
	for _, ln := range d.lines {
		ln.lk, buf, atBuf = newLineKeys(ln.f.s, buf, atBuf)
		ln.lkDone = true
	}
}

// findFrom is find(f[pos:], 0) on a line whose keys are lk, its ends
// relative to pos like find's. When every phrase of the lexicon opens with
// a letter or digit (most label lexicons), the phrases can start only at
// the line's word starts with one of the lexicon's keys: those are tried
// in order from lk, instead of find's walk over every byte, which was a
// sixth of the extractor's time when asked again after each match.
func (lx *lexTables) findFrom(lk *lineKeys, f string, pos int) (int, int, bool) {
	// find takes f[pos] as a word start even after a word byte; lk, built
	// on the whole line, does not: find decides there.
	if lx.prefix || lx.byKey == nil || lx.firstSet != [4]uint64{} ||
		pos > 0 && pos < len(f) && isREWordByte(f[pos-1]) && isWordByte(f[pos]) {
		return lx.find(f[pos:], 0)
	}
	var p, n [16]int
	for j := 0; j < len(lk.keys); {
		s := int(lk.at[j])
		best := -1
		// The one- to three-byte keys of the word at s, in order.
		for ; j < len(lk.keys) && int(lk.at[j]) == s; j++ {
			if s < pos || !lx.keys.has(int(lk.keys[j])) {
				continue
			}
			for _, prog := range lx.byKey[int(lk.keys[j])] {
				if prog.mayOpen(f[s:]) {
					best = max(best, prog.longestAt(f[s:], p[:0], n[:0]))
				}
			}
		}
		if best >= 0 {
			return s - pos, s - pos + best, true
		}
	}
	return 0, 0, false
}
