package rules

// cellLabelMemo is blockLabel's answer for one cell, once done.
type cellLabelMemo struct {
	kind region
	end  int
	done bool
}

// cellLabel is blockLabel of cell k of the line, found once: regions, the
// buyer search and the supplier block each ask it of the same cells, and
// the label lexicons hold hundreds of phrases (blockLabel was a twentieth
// of the extractor's time, most of it asking again).
func (ln *line) cellLabel(k int) (region, int) {
	if ln.cellLbl == nil {
		ln.cellLbl = make([]cellLabelMemo, len(ln.cells))
	}
	m := &ln.cellLbl[k]
	if !m.done {
		c := ln.cells[k]
		m.kind, m.end = blockLabel(ln.foldCell(c), ln.raw[c.start:c.end])
		m.done = true
	}
	return m.kind, m.end
}
