package rules

import (
	"unicode"
	"unicode/utf8"
)

// fieldCount is len(strings.Fields(s)) without the slice: the supplier and
// party searches ask it of every heading cell and name candidate.
func fieldCount(s string) int {
	n := 0
	inField := false
	for i := 0; i < len(s); {
		c := s[i]
		var space bool
		if c < utf8.RuneSelf {
			space = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
			i++
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += w
		}
		if !space && !inField {
			n++
		}
		inField = !space
	}
	return n
}
