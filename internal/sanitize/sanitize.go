// Package sanitize makes text from outside (a server's error body, a
// provider's message) safe for one line of output, a log field or a
// database column.
package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Line returns s as one line: valid UTF-8, control characters (C0, DEL, C1)
// as spaces, runs of blanks collapsed, trimmed, and at most maxBytes bytes,
// cut at a rune boundary and marked with an ellipsis.
func Line(s string, maxBytes int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxBytes {
		return s
	}
	cut := max(maxBytes-len("…"), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}
