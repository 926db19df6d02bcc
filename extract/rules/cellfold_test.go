package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCellFoldMatchesFoldString holds cellFold to folding the cell's raw
// text alone, on every cell of the corpus lines and of random lines built
// from separators, the runes fold reads with their neighbours ("0", "1",
// "r", "n", "l") and letter-spaced words.
func TestCellFoldMatchesFoldString(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, true, 5000)
	parts := []string{"a", "B", "0", "1", "r", "R", "n", "N", "l", "I", "ł", "é", "ß", "x", "9", ".", "-", ":", "€",
		" ", "  ", "\t", "|", "¦", "│", "\u200b", "\u00a0", "\u00ad", "\u0301", "T O T A L", " A B ", "rn", "10.00", "Invo1ce", "T0TAL"}
	rng := rand.New(rand.NewPCG(21, 22))
	var random []string
	for range 40000 {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		random = append(random, b.String())
	}
	lines = append(lines, raceSample(random)...) // equivLines samples its own
	cut := 0
	for _, raw := range lines {
		ln := &line{raw: raw, f: fold(raw), cells: splitCells(raw)}
		for _, c := range ln.cells {
			want := foldString(raw[c.start:c.end])
			if got := ln.cellFold(c); got != want {
				t.Fatalf("cell %q of %q: cellFold %q, foldString %q", raw[c.start:c.end], raw, got, want)
			}
			if got := ln.foldCell(c); got != want {
				t.Fatalf("cell %q of %q: foldCell %q, foldString %q", raw[c.start:c.end], raw, got, want)
			}
			if !ln.f.spaced && raw[c.start] < 0x80 {
				cut++
			}
		}
	}
	if cut < atLeast(50000) {
		t.Fatalf("only %d cells cut from their line's fold: the comparison proves little", cut)
	}
}

// TestFoldCellMemo holds foldCell's look-up of the line's cell: a cell of
// the line is folded once, into its memo, and a span that shares a cell's
// start but not its end (or lies between cells) is folded on its own,
// leaving the memos as they were.
func TestFoldCellMemo(t *testing.T) {
	t.Parallel()
	memoed, alone := 0, 0
	for _, raw := range equivLines(t, false, 2000) {
		ln := &line{raw: raw, f: fold(raw), cells: splitCells(raw)}
		for k, c := range ln.cells {
			if c.end-c.start > 1 {
				sub := cell{start: c.start, end: c.end - 1, col: c.col, colEnd: c.colEnd - 1}
				if got, want := ln.foldCell(sub), foldString(raw[sub.start:sub.end]); got != want {
					t.Fatalf("span %q of %q: foldCell %q, foldString %q", raw[sub.start:sub.end], raw, got, want)
				}
				if ln.cellMemos()[k].f != "" {
					t.Fatalf("span %q of %q: filled the memo of cell %q", raw[sub.start:sub.end], raw, raw[c.start:c.end])
				}
				alone++
			}
			want := foldString(raw[c.start:c.end])
			if got := ln.foldCell(c); got != want {
				t.Fatalf("cell %q of %q: foldCell %q, foldString %q", raw[c.start:c.end], raw, got, want)
			}
			if want != "" && ln.cellMemos()[k].f != want {
				t.Fatalf("cell %q of %q: memo %q after foldCell, want %q", raw[c.start:c.end], raw, ln.cellMemos()[k].f, want)
			}
			memoed++
		}
	}
	if memoed < atLeast(7200) || alone < atLeast(7200) {
		t.Fatalf("%d cells, %d spans: the comparison proves little", memoed, alone)
	}
}
