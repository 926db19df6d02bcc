package rules

// lineKeys is what a lexicon's search looks at first on a folded line,
// gathered once per line: the key codes (keySet's) of the one- to
// three-byte beginnings of its words, and the set of its other bytes.
// Each line is asked about some forty lexicons, and most answer no: with
// the keys in hand the answer is a few bit tests, not a scan of the line.
type lineKeys struct {
	keys  []int32   // codes of each word's 1-, 2- and 3-byte beginnings
	hits  []keyHit  // the beginnings some indexed lexicon opens a phrase with, in line order
	other [4]uint64 // bytes of the line that are not a-z or 0-9
	lex   lexMask   // the lexicons with one of keys (lexKeyIndex), of the first lexN
	lexN  int

	// found lists, in line order, each indexed lexicon's longest match at
	// each word beginning (lexAll.findAll), and foundLex the lexicons
	// with any: find reads them instead of searching.
	found    []lexFound
	foundLex lexMask
	// may is lex and foundLex at once, mayHave's answer for a byKeyOnly
	// lexicon in one bit test (setFound).
	may lexMask
}

// setFound records the line's matches and the lexicons they are of.
func (lk *lineKeys) setFound(found []lexFound, foundLex lexMask) {
	lk.found, lk.foundLex = found, foundLex
	for w := range lk.may {
		lk.may[w] = lk.lex[w] & foundLex[w]
	}
}

// keyHit is a word beginning of a line that opens a phrase of some
// indexed lexicon: where, its key code and the lexicons by which it may
// open a phrase.
type keyHit struct {
	pos int32
	key int32
}

// newLineKeys gathers the keys of f, with find's notion of a word start
// (a-z or 0-9 after anything but an ASCII letter, digit or "_"),
// appending them to buf (one buffer for the whole document).
func newLineKeys(f string, buf []int32) (lineKeys, []int32) {
	lk, buf, _ := newLineKeysHits(f, buf, nil, true)
	return lk, buf
}

// keysUnindexed reports whether some lexicon lies outside the key index
// (lexKeys), so that mayFind tests the line's keys one by one
// (mayFindByKeys): only then are a line's keys listed. Every lexicon is
// indexed today, and listing the keys nobody read was a twentieth of the
// key search and a buffer per document.
func keysUnindexed() bool { return lexKeys().n < len(lexicons) }

// newLineKeysHits is newLineKeys that also lists the line's key hits
// (lineKeys.hits), appending them to hbuf; the keys themselves only
// withKeys (keysUnindexed).
func newLineKeysHits(f string, buf []int32, hbuf []keyHit, withKeys bool) (lineKeys, []int32, []keyHit) {
	var lk lineKeys
	buf, hbuf = lk.gather(f, buf, hbuf, withKeys)
	return lk, buf, hbuf
}

// gather sets lk's keys, hits, other bytes and lexicon mask (not its
// matches) from f, appending to buf and hbuf: newLineKeysHits in place,
// so gatherKeys fills each line's keys where they live rather than
// copying a lineKeys out and in again. A word's first bytes are coded
// through the index's byte table (lexKeyIndex.code), which also says
// where the word bytes end.
func (lk *lineKeys) gather(f string, buf []int32, hbuf []keyHit, withKeys bool) ([]int32, []keyHit) {
	idx := lexKeys()
	code := &idx.code
	slot := idx.slot
	var other [4]uint64
	var lex lexMask
	from, hfrom := len(buf), len(hbuf)
	for s := 0; s < len(f); {
		c := f[s]
		if !isAlnumByte[c] {
			other[c/64] |= 1 << (c % 64)
			s++
			continue
		}
		if s == 0 || !isREWordByte(f[s-1]) {
			// c opens a word: its keys are its first one, two and three
			// word bytes (a-z, 0-9, "_").
			k := int(code[c])
			for n := 1; ; n++ {
				if withKeys {
					buf = append(buf, int32(k))
				}
				if m := slot[k]; m != 0 {
					lex.or(&idx.masks[m-1])
					hbuf = append(hbuf, keyHit{pos: int32(s), key: int32(k)})
				}
				if n == 3 || s+n >= len(f) || code[f[s+n]] == 0 {
					break
				}
				k = k*keyBase + int(code[f[s+n]])
			}
		}
		// The letters and digits that follow open no word and are not
		// other bytes: past them at once, not a pass of the loop each.
		s++
		for s < len(f) && isAlnumByte[f[s]] {
			s++
		}
	}
	lk.other, lk.lex, lk.lexN = other, lex, idx.n
	lk.keys = buf[from:len(buf):len(buf)]
	lk.hits = hbuf[hfrom:len(hbuf):len(hbuf)]
	return buf, hbuf
}

// mayFind reports whether find(f, 0) could find anything on the line
// whose keys lk are: false only where find would try no phrase at all.
// Only for lexicons that are not full (they search with the expression).
func (lx *lexTables) mayFind(lk *lineKeys) bool {
	if lx.opensOther(lk) {
		return true
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
		ln.gatherLineKeys() // a call of its own, so this one inlines
	}
	return &ln.lk
}

// gatherLineKeys fills the keys of a line made outside newDocument.
func (ln *line) gatherLineKeys() {
	ln.lk, _, _ = newLineKeysHits(ln.f.s, nil, nil, keysUnindexed())
	ln.lk.setFound(lexAllIndex().findAll(ln.f.s, ln.lk.hits, nil))
	ln.lkDone = true
}

// gatherKeys fills every line's keys from one buffer: a slice per line
// was a tenth of the document's allocations. The buffers are the
// document's scratch (docScratch), reused by the next document: three
// buffers a document were a third of the bytes it allocated. Each line's
// matches are searched right after its keys, while the line is at hand.
func (d *document) gatherKeys() {
	sc := d.scratch
	n := 0
	for _, ln := range d.lines {
		n += len(ln.f.s)
	}
	withKeys := keysUnindexed()
	var buf []int32
	if withKeys {
		buf = sized(sc.keys, n/2)
	}
	hbuf := sized(sc.hits, n/4) // about one a word start
	// The matches: documents hold some five matches for six hits (a
	// buffer grown from nothing was nine allocations).
	fbuf := sized(sc.found, n/5)
	all := lexAllIndex()
	var as allScratch
	for _, ln := range d.lines {
		lk := &ln.lk
		buf, hbuf = lk.gather(ln.f.s, buf, hbuf, withKeys)
		from := len(fbuf)
		var found lexMask
		fbuf, found = all.findAllIn(&as, ln.f.s, lk.hits, fbuf)
		lk.setFound(fbuf[from:len(fbuf):len(fbuf)], found)
		ln.lkDone = true
	}
	sc.keys, sc.hits, sc.found = buf, hbuf, fbuf
}
