package rules

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// splitCellsRef is splitCells as it was before its ASCII fast path: every
// rune classified by the switch.
func splitCellsRef(raw string) []cell {
	var cells []cell
	col := 0
	start, startCol := -1, 0
	lastNonSpace, lastNonSpaceCol := -1, 0
	spaces := 0
	flush := func() {
		if start >= 0 {
			cells = append(cells, cell{start: start, end: lastNonSpace, col: startCol, colEnd: lastNonSpaceCol})
		}
		start = -1
	}
	for i := 0; i < len(raw); {
		r, w := utf8.DecodeRuneInString(raw[i:])
		switch {
		case r == '\t':
			flush()
			spaces = 0
			col = (col/8 + 1) * 8
		case r == '|' || r == '¦' || r == '│':
			flush()
			spaces = 0
			col++
		case isSpaceRune(r):
			spaces++
			if spaces >= 2 {
				flush()
			}
			col++
		default:
			if start < 0 {
				start, startCol = i, col
			}
			spaces = 0
			col++
			lastNonSpace, lastNonSpaceCol = i+w, col
		}
		i += w
	}
	flush()
	return cells
}

// TestSplitCellsMatchesReference holds splitCells to its reference on the
// corpus lines and on random lines of separators, white space of every
// kind, control bytes and runes.
func TestSplitCellsMatchesReference(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 0)
	parts := []string{"a", "Z", "0", " ", "  ", "\t", "|", "¦", "│", "\u200b", "\u00a0", "\u0085", "\v", "\f", "\r", "\x00",
		"\x7f", "~", "!", "é", "€", "元", "\xff", "ab cd"}
	rng := rand.New(rand.NewPCG(31, 32))
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	cells := 0
	for _, ln := range lines {
		want, got := splitCellsRef(ln), splitCells(ln)
		if !slices.Equal(want, got) {
			t.Fatalf("%q: splitCells %v, reference %v", ln, got, want)
		}
		cells += len(want)
	}
	if cells < atLeast(60000) {
		t.Fatalf("only %d cells: the comparison proves little", cells)
	}
}
