package rules

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCellLabelIsBlockLabel holds the memo to blockLabel on every cell of
// the fixtures and dev texts, asked last cell first and twice, so an answer
// kept for the wrong cell shows.
func TestCellLabelIsBlockLabel(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pat := range []string{fixtureDir + "/*.txt", fixtureDir + "/*/*.txt", "testdata/dev/*.txt", "/tmp/devset2/*/*.txt"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatalf("glob %s: %v", pat, err)
		}
		files = append(files, m...)
	}
	cells, labels := 0, 0
	for _, f := range raceSample(files) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		d := newDocument(normalizeText(b))
		for _, ln := range d.lines {
			for round := range 2 {
				for k := len(ln.cells) - 1; k >= 0; k-- {
					c := ln.cells[k]
					wantKind, wantEnd := blockLabel(foldString(ln.raw[c.start:c.end]), ln.raw[c.start:c.end])
					kind, end := ln.cellLabel(k)
					if kind != wantKind || end != wantEnd {
						t.Fatalf("%s: cell %q (round %d): cellLabel %v %d, blockLabel %v %d", f, ln.raw[c.start:c.end], round, kind, end, wantKind, wantEnd)
					}
					if round == 0 {
						cells++
						if kind != regNone {
							labels++
						}
					}
				}
			}
		}
	}
	if cells < atLeast(5000) || labels < atLeast(100) {
		t.Fatalf("only %d cells, %d labels: the comparison proves little", cells, labels)
	}
}

// TestSharedCellsStayApart builds every line's cells in one buffer, as
// newDocument does, and checks each against its own splitCells afterwards:
// no line's cells may be overwritten by a later line's, nor grow into them.
func TestSharedCellsStayApart(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 2000)
	buf := make([]cell, 0, 16) // small: the buffer must grow on the way
	got := make([][]cell, len(lines))
	for i, ln := range lines {
		got[i], buf = appendCells(buf, ln)
	}
	cells := 0
	for i, ln := range lines {
		want := splitCells(ln)
		if !slices.Equal(got[i], want) || (got[i] == nil) != (want == nil) || cap(got[i]) != len(got[i]) {
			t.Fatalf("%q: shared %v (cap %d), own %v", ln, got[i], cap(got[i]), want)
		}
		cells += len(want)
	}
	if cells < atLeast(10000) {
		t.Fatalf("only %d cells: the comparison proves little", cells)
	}
}
