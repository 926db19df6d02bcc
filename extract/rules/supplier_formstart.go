package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// legalNamesMemo takes a legal-form match only where it starts a word:
// after a rune that is not a letter, a digit, '.', '-' or '@'. Most of a
// line's letters stand inside words, and reLegalForm's search asked its
// tables at each of them ("co" in "Invoice", "ag" in "Page") on every line
// the supplier search reads (a quarter of its work). A line where no match
// starts at a word start yields no name whatever its other matches are, so
// those lines are told apart first by trying the word starts alone.

// formBreak reports whether legalNamesMemo takes no match after the ASCII
// byte c: a letter, a digit, '.', '-' or '@'.
func formBreak(c byte) bool {
	return c|0x20-'a' < 26 || c-'0' < 10 || c == '.' || c == '-' || c == '@'
}

// formAtWordStart reports whether some reLegalForm match starts in s at a
// place whose rune before passes legalNamesMemo's test. When it is false,
// legalNamesMemo finds no name in s with any of s's matches.
//
// It reads eight bytes at a time and tries only the places where a letter,
// "&" or the first byte of a rune above 0x7f (every form opens with one of
// them) follows a byte that is not an ASCII letter: a line's word starts,
// where find tried every letter.
func formAtWordStart(s string) bool {
	x := reLegalForm.tables()
	amp := strings.IndexByte(s, '&') >= 0 // "&" lanes are looked for only then
	var after uint64                      // the high bit of lane 0 set: the byte before is an ASCII letter
	for i := 0; i < len(s); i += 8 {
		k, done := i, uint64(0)
		if k+8 > len(s) {
			// The last block ends the text, overlapping the one before:
			// its lanes below i were read there.
			if len(s) < 8 {
				break
			}
			k = len(s) - 8
			done = ^(^uint64(0) << (8 * (i - k)))
			after = 0
			if isASCIILetter(s[k-1]) {
				after = 0x80
			}
		}
		w := load8(s, k)
		l := letterLanes(w)
		// A letter, "&" or a rune's first byte (both high bits set),
		// after a byte that is not an ASCII letter.
		cand := l | w&(w<<1)&lanes80
		if amp {
			cand |= byteLanes(w, '&')
		}
		cand &^= l<<8 | after | done
		after = l >> 56
		for cand != 0 {
			j := k + firstLane(cand)
			cand &= cand - 1
			// formStartsAt's table tests, inline: most word starts end
			// here, and the call cost more than the tests.
			if c := s[j]; c < utf8.RuneSelf && (x.skip[c] || j > 0 && formBreak(s[j-1]) || x.deadPair(s, j, c)) {
				continue
			}
			if formStartsAt(x, s, j) {
				return true
			}
		}
	}
	if len(s) < 8 {
		for i := range len(s) {
			if formStartsAt(x, s, i) {
				return true
			}
		}
	}
	return false
}

// formStartsAt reports whether a match of x starts at s[i] where
// legalNamesMemo's boundary test takes it. Its table tests (skip, the
// rune before, deadPair) are also asked inline in formAtWordStart's loop;
// the match itself is longestFrom's, past them.
func formStartsAt(x *firstByteTables, s string, i int) bool {
	c := s[i]
	if c < utf8.RuneSelf && x.skip[c] {
		return false
	}
	if i > 0 {
		if p := s[i-1]; p < utf8.RuneSelf {
			if formBreak(p) {
				return false
			}
		} else if b := runeBefore(s, i); unicode.IsLetter(b) || unicode.IsDigit(b) {
			return false
		}
	}
	if c >= utf8.RuneSelf {
		_, ok := x.startsAt(s, i)
		return ok
	}
	if x.deadPair(s, i, c) {
		return false
	}
	_, ok := x.longestFrom(s, i, c)
	return ok
}

// legalFormsOf is reLegalForm.FindAllStringIndex(raw, -1) for scanCells,
// nil for a line where no match starts a word (formAtWordStart): what
// scanCells reads of the list, legalNamesMemo's names and whether a first
// cell that is a legal form alone ends a name wrapped from above, is the
// same either way, as the first cell opens the line after blanks only.
func legalFormsOf(raw string) [][]int {
	if !formAtWordStart(raw) {
		return nil
	}
	return reLegalForm.FindAllStringIndex(raw, -1)
}

// startsAt is the end of the longest match of x at s[i] (ok false: none):
// find's test of one offset, with its table tests first.
func (x *firstByteTables) startsAt(s string, i int) (int, bool) {
	c := s[i]
	if c < utf8.RuneSelf {
		if x.skip[c] || x.deadPair(s, i, c) {
			return 0, false
		}
	} else {
		r, _ := utf8.DecodeRuneInString(s[i:])
		k, ok := x.foldsTo[r]
		if !ok {
			return 0, false
		}
		c = k
	}
	return x.longestFrom(s, i, c)
}

// deadPair reports, for ASCII c = s[i] that skip lets through, whether the
// byte after it leaves no match at i (dead2, wideDead), as find asks.
func (x *firstByteTables) deadPair(s string, i int, c byte) bool {
	if i+1 >= len(s) {
		return false
	}
	if d := s[i+1]; d < utf8.RuneSelf {
		return x.dead2[c][d>>6]&(1<<(d&63)) != 0
	}
	return x.wideDead[c]
}

// longestFrom is what find asks at an offset its table tests let through,
// given c, s[i] or the ASCII letter the rune there folds to: the end of
// the longest match there, ok false for none. find and the word-start
// search (startsAt) share it.
func (x *firstByteTables) longestFrom(s string, i int, c byte) (int, bool) {
	lc := lowerByte(c)
	re := x.byFirst[lc]
	if re == nil || s[i] < utf8.RuneSelf && x.nfa[lc] == nil && !x.mayStartAt(s, i, lc) {
		return 0, false
	}
	if lits := x.lits[lc]; lits != nil && s[i] < utf8.RuneSelf {
		if end, ok := longestLit(lits, s, i); ok {
			return end, end > i
		}
	}
	if n := x.nfa[lc]; n != nil && s[i] < utf8.RuneSelf {
		if end, ok := n.longestAt(s[i:]); ok {
			return i + end, end >= 0
		}
	}
	if n := x.exact[lc](); n != nil {
		// byFirst is leftmost-longest and anchored: its match is the
		// longest that starts here.
		_, end := n.anchoredEnds(s[i:])
		return i + end, end >= 0
	}
	if m := re.FindStringIndex(s[i:]); m != nil {
		return i + m[1], true
	}
	return 0, false
}
