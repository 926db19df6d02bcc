package rules

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// TestFirstByteFindIsFindAll holds find and lastMatch to the first and last
// of FindAllStringIndex's matches, over the corpus lines and random ones.
func TestFirstByteFindIsFindAll(t *testing.T) {
	t.Parallel()
	matched := 0
	for _, s := range equivLines(t, true, 3000) {
		all := reLegalForm.FindAllStringIndex(s, -1)
		a, b, ok := reLegalForm.find(s, 0)
		la, lb, lok := reLegalForm.lastMatch(s)
		if len(all) == 0 {
			if ok || lok {
				t.Fatalf("%q: find %v, lastMatch %v, FindAllStringIndex none", s, ok, lok)
			}
			continue
		}
		matched++
		if first := all[0]; !ok || a != first[0] || b != first[1] {
			t.Fatalf("%q: find = %d %d %v, want %v", s, a, b, ok, first)
		}
		if last := all[len(all)-1]; !lok || la != last[0] || lb != last[1] {
			t.Fatalf("%q: lastMatch = %d %d %v, want %v", s, la, lb, lok, last)
		}
	}
	if matched < 50 {
		t.Fatalf("only %d lines hold a legal form: the test would prove little", matched)
	}
}

// findRef is firstByteTables.find as it was before the skip and dead2
// tables: byFirst, lits and nfa looked up at every byte.
func (x *firstByteTables) findRef(s string, from int) (int, int, bool) {
	for i := from; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, _ := utf8.DecodeRuneInString(s[i:])
			k, ok := x.foldsTo[r]
			if !ok {
				continue
			}
			c = k
		}
		re := x.byFirst[lowerByte(c)]
		if re == nil || s[i] < utf8.RuneSelf && x.nfa[lowerByte(c)] == nil && !x.mayStartAt(s, i, lowerByte(c)) {
			continue
		}
		if lits := x.lits[lowerByte(c)]; lits != nil && s[i] < utf8.RuneSelf {
			if end, ok := longestLit(lits, s, i); ok {
				if end > i {
					return i, end, true
				}
				continue
			}
		}
		if n := x.nfa[lowerByte(c)]; n != nil && s[i] < utf8.RuneSelf {
			if end, ok := n.longestAt(s[i:]); ok {
				if end >= 0 {
					return i, i + end, true
				}
				continue
			}
		}
		if m := re.FindStringIndex(s[i:]); m != nil {
			return i, i + m[1], true
		}
	}
	return 0, 0, false
}

// TestFirstByteFindMatchesRef holds find to findRef (from every start
// offset on random lines of legal-form pieces, from the start on the
// corpus lines in three cases and folded), and FindAllStringIndex to the
// full regexp's on a quarter of them.
func TestFirstByteFindMatchesRef(t *testing.T) {
	t.Parallel()
	x := reLegalForm.tables()
	lines := equivLines(t, true, 5000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	parts := []string{" ", "  ", ".", "&", "(", ")", "Co", "co.", "KG", "kgaa", "GmbH", "gmbh", "Sdn", "SDN Bhd", "bhd", "S", "A",
		"s.a.", "SA", "Ltd", "LTD", "ltd.", "Inc", "inc.", "LLC", "Pte", "AG", "Oy", "BV", "SpA", "srl", "ſ", "K", "é", "x", "1"}
	corpus := len(lines)
	lines = scannerTexts(lines, parts, 29, 30000)
	found := 0
	for k, s := range lines {
		for from := 0; from <= len(s); from++ {
			a, b, ok := x.find(s, from)
			ra, rb, rok := x.findRef(s, from)
			if a != ra || b != rb || ok != rok {
				t.Fatalf("find(%q, %d) = %d %d %v, findRef %d %d %v", s, from, a, b, ok, ra, rb, rok)
			}
			if ok {
				found++
			}
			if k < corpus || len(s) > 200 {
				break // corpus lines and long texts from their start only
			}
		}
		if k%4 != 0 {
			continue // the regexp, slow to ask, on a quarter of the lines
		}
		if want, got := x.Regexp.FindAllStringIndex(s, -1), reLegalForm.FindAllStringIndex(s, -1); !slices.EqualFunc(want, got, slices.Equal) {
			t.Fatalf("FindAllStringIndex(%q) = %v, the regexp says %v", s, got, want)
		}
	}
	if found < atLeast(20000) {
		t.Fatalf("only %d matches: the comparison proves little", found)
	}
}
