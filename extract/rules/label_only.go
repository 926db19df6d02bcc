package rules

import (
	"strings"
	"unicode"
)

// labelOnly reports whether a folded line holds nothing but labels (from
// any lexicon) and punctuation.
//
// It walks reAnyLabel's matches one at a time and stops at the first gap
// holding a letter or digit, where most lines end on their first gap: the
// matches of the rest of the line are never searched and no string with the
// labels blanked out is built. Gaps are read on their own, as in the blanked
// string: a blank (ASCII) stands on both sides of each.
func labelOnly(f string) bool {
	if strings.TrimSpace(f) == "" {
		return false
	}
	lx := reAnyLabel.tables()
	if lx.full || !lx.mayMatch(f) {
		// The full expression, or no label at all: the blanked text as
		// ReplaceAllString builds it.
		return !hasLetterOrDigit(lx.ReplaceAllString(f, " "))
	}
	for pos := 0; ; {
		s, e, ok := lx.find(f, pos)
		if !ok {
			return !hasLetterOrDigit(f[pos:])
		}
		if hasLetterOrDigit(f[pos:s]) {
			return false
		}
		pos = e
	}
}

// hasLetterOrDigit reports whether s holds a Unicode letter or digit.
func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
