package rules

// cellMemo is what is found once per cell of a line.
type cellMemo struct {
	f       string // foldString of the cell's raw text, once non-empty (foldCell)
	kind    region // blockLabel's answer, once lblDone (cellLabel)
	end     int
	lblDone bool
}

// cellMemos returns the line's cell memos; newDocument cuts them from one
// array for the document, a line made elsewhere gets its own here.
func (ln *line) cellMemos() []cellMemo {
	if ln.cellM == nil && len(ln.cells) > 0 {
		ln.cellM = make([]cellMemo, len(ln.cells))
	}
	return ln.cellM
}

// cellLabel is blockLabel of cell k of the line, found once: regions, the
// buyer search and the supplier block each ask it of the same cells, and
// the label lexicons hold hundreds of phrases (blockLabel was a twentieth
// of the extractor's time, most of it asking again).
func (ln *line) cellLabel(k int) (region, int) {
	m := &ln.cellMemos()[k]
	if !m.lblDone {
		c := ln.cells[k]
		cf := ln.foldCell(c)
		if off, ok := ln.foldedAt(c, cf); ok {
			if lead := markLead(cf); ln.noBlockLabelAt(off+lead, cf[lead:]) {
				m.kind, m.end = regNone, 0
			} else {
				m.kind, m.end = blockLabelIn(ln, off, cf, ln.raw[c.start:c.end])
			}
		} else {
			m.kind, m.end = blockLabel(cf, ln.raw[c.start:c.end])
		}
		m.lblDone = true
	}
	return m.kind, m.end
}

// foldedAt returns where the cell's fold cf stands in the line's folded
// text, if it is that text there (cellFold cuts most cells' folds from it).
func (ln *line) foldedAt(c cell, cf string) (int, bool) {
	if len(ln.f.idx) != len(ln.f.s)+1 || c.start >= c.end || c.end > len(ln.raw) {
		return 0, false
	}
	off := ln.f.foldPos(c.start)
	return off, off+len(cf) <= len(ln.f.s) && ln.f.s[off:off+len(cf)] == cf
}

// noBlockLabelAt reports that no block label starts at s, the line's
// folded text f from s on past the cell's marks: what blockLabelIn finds
// when prefixEndAt answers every label lexicon from the line's matches
// and none is at s (most cells), told without asking each lexicon.
func (ln *line) noBlockLabelAt(s int, f string) bool {
	if len(ln.matchesAt(s)) != 0 || !ln.lkDone {
		return false
	}
	lf := ln.f.s
	e := s + len(f)
	if f == "" || !isAlnumByte[f[0]] || s > 0 && isREWordByte(lf[s-1]) || e < len(lf) && isREWordByte(lf[e]) {
		return false
	}
	for _, c := range &blockLabels {
		if t := c.re.tables(); t.full || t.byKey == nil || t.id < 0 || t.id >= ln.lk.lexN {
			return false
		}
	}
	return true
}
