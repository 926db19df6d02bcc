package rules

// lineKeys is what a lexicon's search looks at first on a folded line,
// gathered once per line: the key codes (keySet's) of the one- to
// three-byte beginnings of its words, and the set of its other bytes.
// Each line is asked about some forty lexicons, and most answer no: with
// the keys in hand the answer is a few bit tests, not a scan of the line.
type lineKeys struct {
	keys  []int32   // codes of each word's 1-, 2- and 3-byte beginnings
	other [4]uint64 // bytes of the line that are not a-z or 0-9
	lex   lexMask   // the lexicons with one of keys (lexKeyIndex), of the first lexN
	lexN  int
}

// newLineKeys gathers the keys of f, with find's notion of a word start
// (a-z or 0-9 after anything but an ASCII letter, digit or "_"),
// appending them to buf (one buffer for the whole document).
func newLineKeys(f string, buf []int32) (lineKeys, []int32) {
	var lk lineKeys
	idx := lexKeys()
	lk.lexN = idx.n
	from := len(buf)
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
			if m := idx.slot[k]; m != 0 {
				lk.lex.or(&idx.masks[m-1])
			}
		}
	}
	lk.keys = buf[from:len(buf):len(buf)]
	return lk, buf
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
	if lx.id >= 0 && lx.id < lk.lexN {
		return lk.lex.has(lx.id)
	}
	return lx.mayFindByKeys(lk)
}

// mayFindByKeys is mayFind's key test without the index: some key of the
// line is one of the lexicon's.
func (lx *lexTables) mayFindByKeys(lk *lineKeys) bool {
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
		ln.lk, _ = newLineKeys(ln.f.s, nil)
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
	buf := make([]int32, 0, n)
	for _, ln := range d.lines {
		ln.lk, buf = newLineKeys(ln.f.s, buf)
		ln.lkDone = true
	}
}
