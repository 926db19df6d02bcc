package rules

import (
	"testing"
	"unicode"
)

// roleOfInRef is roleOfIn as on 2bbf73e, frozen: the column lexicons in a
// slice literal and every cell's letters counted by rune.
func roleOfInRef(ln *line, off int, f string) colRole {
	best, bestLen := colOther, 0
	for _, c := range []struct {
		role colRole
		re   *lexicon
	}{
		{colAmount, reColAmount}, {colUnitPrice, reColUnit}, {colQty, reColQty}, {colTax, reColTax},
		{colDesc, reColDesc}, {colPos, reColPos}, {colUnitOf, reColUnitOf},
	} {
		if ln != nil && ln.cellMatches(c.re, off, f, func(s, e int) {
			if e-s > bestLen {
				best, bestLen = c.role, e-s
			}
		}) {
			continue
		}
		for _, m := range c.re.FindAllStringIndex(f, -1) {
			if n := m[1] - m[0]; n > bestLen {
				best, bestLen = c.role, n
			}
		}
	}
	letters := 0
	for _, r := range f {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if bestLen == 0 || letters > 2*bestLen+6 {
		return colOther
	}
	return best
}

// TestRoleOfInMatchesReference holds roleOfIn (from the line's matches and
// from the cell's fold alone) to the frozen copy on every cell of fixtures,
// dev texts, synthetic invoices and /tmp/devset2 where present, and on
// every line of equivLines with its fold.
func TestRoleOfInMatchesReference(t *testing.T) {
	t.Parallel()
	cells, named := 0, 0
	check := func(ln *line, off int, f string) {
		t.Helper()
		got, want := roleOfIn(ln, off, f), roleOfInRef(ln, off, f)
		if got != want {
			t.Fatalf("roleOfIn(%q) = %v, frozen copy %v (line %v)", f, got, want, ln != nil)
		}
		if want != colOther {
			named++
		}
		cells++
	}
	for _, text := range selfCheckTexts(t) {
		d := newDocument(text)
		for _, ln := range d.lines {
			for _, c := range ln.cells {
				cf := ln.foldCell(c)
				if off, ok := ln.foldedAt(c, cf); ok {
					check(ln, off, cf)
				}
				check(nil, 0, cf)
			}
		}
		d.release()
	}
	for _, s := range equivLines(t, true, 3000) {
		check(nil, 0, s)
		check(nil, 0, foldString(s))
	}
	t.Logf("%d cells, %d named a column", cells, named)
	if cells < atLeast(20000) || named < atLeast(500) {
		t.Fatalf("only %d cells, %d named: the comparison proves little", cells, named)
	}
}
