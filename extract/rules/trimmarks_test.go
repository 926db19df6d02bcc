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

// TestTrimLeftBlanksMatchesTrimLeft holds trimLeftBlanks to strings.TrimLeft
// with its cutset, on every corpus line's suffixes from each cell start and
// on random texts of spaces, both no-break spaces, their cut bytes and
// other bytes.
func TestTrimLeftBlanksMatchesTrimLeft(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, ln := range equivLines(t, true, 0) {
		texts = append(texts, ln)
		for _, c := range splitCells(ln) {
			texts = append(texts, ln[c.start:], ln[c.end:])
		}
	}
	parts := []string{" ", "\u00a0", "\u202f", "\t", "\xc2", "\xe2\x80", "\xe2", "\u2009", "%", "a", "1", "\xa0", "\xaf"}
	texts = scannerTexts(texts, parts, 22, 50000)
	trimmed := 0
	for _, s := range texts {
		want := strings.TrimLeft(s, " \u00a0\u202f")
		if got := trimLeftBlanks(s); got != want {
			t.Fatalf("trimLeftBlanks(%q) = %q, TrimLeft: %q", s, got, want)
		}
		if len(want) < len(s) && want != strings.TrimLeft(s, " ") {
			trimmed++
		}
	}
	if trimmed < atLeast(5000) {
		t.Fatalf("only %d texts trimmed past a no-break space: the comparison proves little", trimmed)
	}
}
