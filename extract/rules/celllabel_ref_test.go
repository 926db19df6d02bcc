package rules

import "testing"

// cellLabelRef is (*line).cellLabel as on 2bbf73e, frozen and unmemoised:
// blockLabelIn asked of every cell whose fold is the line's.
func cellLabelRef(ln *line, k int) (region, int) {
	c := ln.cells[k]
	cf := ln.foldCell(c)
	if off, ok := ln.foldedAt(c, cf); ok {
		return blockLabelIn(ln, off, cf, ln.raw[c.start:c.end])
	}
	return blockLabel(cf, ln.raw[c.start:c.end])
}

// TestCellLabelMatchesReference holds cellLabel (with its shortcut for
// cells no label lexicon matches at) to the frozen copy on every cell of
// fixtures, dev texts, synthetic invoices and /tmp/devset2 where present.
func TestCellLabelMatchesReference(t *testing.T) {
	t.Parallel()
	cells, labelled, short := 0, 0, 0
	for _, text := range selfCheckTexts(t) {
		d := newDocument(text)
		for _, ln := range d.lines {
			for k, c := range ln.cells {
				wk, we := cellLabelRef(ln, k)
				gk, ge := ln.cellLabel(k)
				if gk != wk || ge != we {
					t.Fatalf("cellLabel of %q = %v %d, frozen copy %v %d", ln.raw[c.start:c.end], gk, ge, wk, we)
				}
				cf := ln.foldCell(c)
				if off, ok := ln.foldedAt(c, cf); ok && ln.noBlockLabelAt(off+markLead(cf), cf[markLead(cf):]) {
					short++
				}
				if wk != regNone {
					labelled++
				}
				cells++
			}
		}
		d.release()
	}
	t.Logf("%d cells, %d labelled, %d by the shortcut", cells, labelled, short)
	if cells < atLeast(9000) || labelled < atLeast(500) || short < atLeast(4800) {
		t.Fatalf("only %d cells, %d labelled, %d by the shortcut: the comparison proves little", cells, labelled, short)
	}
}
