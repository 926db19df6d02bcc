package rules

import (
	"unicode"
	"unicode/utf8"
)

// usStateZIPAt is where the regexp usStateZIPPattern's leftmost match
// starts, -1 when none. The regexp was run on every line of five digits by
// the backtracker, whose start class \pL lets it skip nothing: it was most
// of localeCurrency's work. The scanner anchors on a state code after a
// blank and reads the rest of the pattern on either side of it.
func usStateZIPAt(s string) int {
	states := usStateTab()
	for p := 1; p+1 < len(s); p++ {
		c, d := s[p], s[p+1]
		if c < 'A' || c > 'Z' || d < 'A' || d > 'Z' || !states[c-'A'][d-'A'] || s[p-1] != ' ' && s[p-1] != '\t' {
			continue
		}
		// `\.?[ \t]+\d{5}`: a "." is taken when there, as no blank is one.
		j := p + 2
		if j < len(s) && s[j] == '.' {
			j++
		}
		if j = blanksAt(s, j); j < 0 || phoneDigitsAt(s, j, 5, '0') < 0 || !zipEnds(s, j+5) {
			continue
		}
		// `[\pL.],?[ \t]+` before the state: the blanks are the whole run
		// before it, as neither "," nor the letter is one.
		b := p - 1
		for b > 0 && (s[b-1] == ' ' || s[b-1] == '\t') {
			b--
		}
		if b > 0 && s[b-1] == ',' {
			b--
		}
		// A rune decoded backwards that is valid is the one the regexp
		// decodes forwards: its first byte is no continuation byte, so no
		// earlier rune covers it.
		if r, w := utf8.DecodeLastRuneInString(s[:b]); r == '.' || unicode.IsLetter(r) {
			// A later state's match starts after this state's first
			// capital, so the first state that matches gives the leftmost.
			return b - w
		}
	}
	return -1
}

// zipEnds reports whether the ZIP code ending at s[:i] ends its address:
// `(?:-\d{4})?(?:[ \t]*$|[ \t]*[^\pL \t]|[ \t]{2})` matches at i. The
// optional "-1234" never decides, as its "-" is itself no letter or blank.
func zipEnds(s string, i int) bool {
	k := i
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k == len(s) || k-i >= 2 {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[k:])
	return !unicode.IsLetter(r)
}
