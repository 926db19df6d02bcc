package rules

// maxColumnRows bounds how far below a due-date column header a date is
// looked for.
const maxColumnRows = 5

// dueColumnDate reads a due-date column: the label ls..le (raw) is a header
// cell of a line with other cells ("Beschreibung   Fälligkeit   Teilzahlung"),
// and the rows below, up to a blank line, hold dates in its column while
// their text spills over other columns ("Bis zum 20.04.2026 ... Skonto" then
// "Bis zum 30.04.2026 ohne Abzug      30.04.2026"). It returns the one date
// printed in the column, or false when there is none or the rows disagree
// (several instalments: no single due date).
func (d *document) dueColumnDate(i, ls, le int) (*line, dateHit, bool) {
	ln := d.lines[i]
	k := ln.cellAt(ls)
	if len(ln.cells) < 2 || k < 0 || ln.cells[k].start != ls {
		return nil, dateHit{}, false
	}
	c0, c1 := ln.cells[k].col, ln.cells[k].colEnd
	var (
		found   bool
		foundLn *line
		foundDH dateHit
	)
	for j := i + 1; j < len(d.lines) && j <= i+maxColumnRows; j++ {
		vl := d.lines[j]
		if vl.blank {
			break
		}
		for _, dh := range vl.dateHits() {
			rs, re := vl.f.rawSpan(dh.start, dh.end)
			// The date must sit under the header: its columns overlap.
			if colOf(vl.raw, re) < c0-2 || colOf(vl.raw, rs) > c1+2 {
				continue
			}
			if found && foundDH.date != dh.date {
				return nil, dateHit{}, false
			}
			if !found {
				found, foundLn, foundDH = true, vl, dh
			}
		}
	}
	return foundLn, foundDH, found
}
