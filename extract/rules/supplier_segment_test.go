package rules

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// segmentStartRef is segmentStart before its ASCII pass (segmentMarks),
// frozen: every rune decoded and asked of the switch.
func segmentStartRef(raw string, fs int) int {
	s := fs
	for s > 0 {
		r, w := utf8.DecodeLastRuneInString(raw[:s])
		stop := false
		switch {
		case r == '\t' || r == '|' || r == '·' || r == '•' || r == '●' || r == '▪' || r == ';' || r == ':' || r == '/' ||
			r == '"' || r == '“' || r == '”' || r == '©' || r == '*' || r == '>' || r == '[' || r == ']' || r == '=':
			stop = true
		case r == ',':
			if strings.TrimSpace(raw[s:fs]) != "" {
				stop = true
			}
		case isSpaceRune(r):
			if s-w > 0 {
				r2, _ := utf8.DecodeLastRuneInString(raw[:s-w])
				if isSpaceRune(r2) {
					stop = true
				}
			}
		case r == '-' || r == '–' || r == '—':
			if s-w > 0 && isSpaceRune(runeBefore(raw, s-w)) && isSpaceRune(runeAt(raw, s)) {
				stop = true
			}
		}
		if stop {
			break
		}
		s -= w
	}
	return s
}

// TestSegmentStartMatchesReference holds segmentStart to its frozen copy
// at every offset of the corpus lines and of random lines of names, every
// mark the switch knows, blanks, dashes and control bytes.
func TestSegmentStartMatchesReference(t *testing.T) {
	t.Parallel()
	parts := []string{"Acme", " ", "  ", "\t", "\u00a0", "\u200b", "\r", "\x01", "\x7f", "|", "·", "•", "●", "▪", ";", ":", "/",
		"\"", "“", "”", "©", "*", ">", "[", "]", "=", ",", "-", "–", "—", " - ", ".", "S.L.", "é", "GmbH", "1", "&", "(", "'", "~"}
	lines := scannerTexts(equivLines(t, false, 0), parts, 53, 20000)
	cut := 0
	for _, s := range lines {
		for fs := 0; fs <= len(s); fs++ {
			got, want := segmentStart(s, fs), segmentStartRef(s, fs)
			if got != want {
				t.Fatalf("segmentStart(%q, %d) = %d, want %d", s, fs, got, want)
			}
			if want > 0 {
				cut++
			}
		}
	}
	if cut < atLeast(100000) {
		t.Fatalf("only %d offsets with a segment start past 0: the comparison proves little", cut)
	}
}
