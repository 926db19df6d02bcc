package rules

import (
	"strings"
	"unicode/utf8"
)

// isBlank is strings.TrimSpace(s) == "", without trimming: the ASCII white
// space before the first other byte is read by a table (asciiSpace, the
// set TrimSpace's own fast path uses), and only a rest that opens with a
// rune is handed to TrimSpace. newDocument asks it of every line two or
// three times, and most lines open with a letter, a digit or a run of
// spaces.
func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.TrimSpace(s[i:]) == ""
		}
		if !asciiSpace[c] {
			return false
		}
	}
	return true
}
