package rules

import (
	"strings"
	"testing"
)

// TestTrimLeftMarksMatchesTrimLeft holds trimLeftMarks to strings.TrimLeft
// with the bullet in the cutset, for both cutsets it is called with, on
// every corpus line and its suffixes from each cell start, and on random
// texts of marks, bullets, cut bullets and other bytes.
func TestTrimLeftMarksMatchesTrimLeft(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, ln := range equivLines(t, true, 0) {
		texts = append(texts, ln)
		for _, c := range splitCells(ln) {
			texts = append(texts, ln[c.start:], foldString(ln[c.start:c.end]))
		}
	}
	parts := []string{" ", "*", "-", "•", ">", "#", "\t", "\n", "\f", "\r", "\xe2\x80", "\xe2", "–", "·", "a", "1", "◦", "\xa2"}
	texts = scannerTexts(texts, parts, 21, 50000)
	trimmed := 0
	for _, ascii := range []string{" *->#", " \t\n\f\r*#>-"} {
		for _, s := range texts {
			want := strings.TrimLeft(s, ascii+"•")
			if got := trimLeftMarks(s, ascii); got != want {
				t.Fatalf("trimLeftMarks(%q, %q) = %q, TrimLeft: %q", s, ascii, got, want)
			}
			if len(want) < len(s) {
				trimmed++
			}
		}
	}
	if trimmed < atLeast(10000) {
		t.Fatalf("only %d texts trimmed: the comparison proves little", trimmed)
	}
}
