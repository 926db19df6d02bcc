package rules

import (
	"unicode"
	"unicode/utf8"
)

// fieldsOver reports whether s has more than n fields (fieldCount(s) > n),
// reading s only up to its (n+1)th field: the party and header searches
// ask it of whole heading lines, most of which are long.
func fieldsOver(s string, n int) bool {
	count := 0
	inField := false
	for i := 0; i < len(s); {
		c := s[i]
		var space bool
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += w
		}
		if !space && !inField {
			if count++; count > n {
				return true
			}
		}
		inField = !space
	}
	return false
}

// asciiSpace marks the ASCII bytes strings.Fields splits at.
var asciiSpace = [utf8.RuneSelf]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// appendFields appends the fields of s (strings.Fields's) to dst, at most
// limit of them (limit < 0: all): nameBefore cuts a name's words into a
// buffer on its stack, where strings.Fields allocated a slice per call.
func appendFields(dst []string, s string, limit int) []string {
	if limit == 0 {
		return dst
	}
	start := -1
	for i := 0; i < len(s); {
		c := s[i]
		w := 1
		var space bool
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
		} else {
			var r rune
			r, w = utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
		}
		switch {
		case space && start >= 0:
			dst = append(dst, s[start:i])
			start = -1
			if limit >= 0 && len(dst) >= limit {
				return dst
			}
		case !space && start < 0:
			start = i
		}
		i += w
	}
	if start >= 0 && (limit < 0 || len(dst) < limit) {
		dst = append(dst, s[start:])
	}
	return dst
}

// titleMarks marks the bytes titleOnly trims from a cell's ends.
var titleMarks = [256]bool{' ': true, '*': true, '-': true, ':': true, '#': true, '=': true, '.': true, '_': true}

// trimTitleMarks is strings.Trim(cf, " *-:#=._") without building the
// cut set on every call (regions asks it of every cell): the marks are
// ASCII, so a byte of a longer rune is never one.
func trimTitleMarks(cf string) string {
	i, j := 0, len(cf)
	for i < j && titleMarks[cf[i]] {
		i++
	}
	for j > i && titleMarks[cf[j-1]] {
		j--
	}
	return cf[i:j]
}

// containsLowerASCII is strings.Contains(strings.ToLower(s), lit) for a
// lit of lower-case ASCII letters and punctuation, without the lowered
// copy. Outside ASCII only the Kelvin sign lowers to an ASCII letter
// ("k") and 'İ' to "i": lit holds neither letter (the caller's "www." and
// "http"), so an ASCII case-blind search of s is the same answer.
func containsLowerASCII(s, lit string) bool {
	for i := 0; i+len(lit) <= len(s); i++ {
		k := 0
		for k < len(lit) && lowerByte(s[i+k]) == lit[k] {
			k++
		}
		if k == len(lit) {
			return true
		}
	}
	return false
}
