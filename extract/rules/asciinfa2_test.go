package rules

import "testing"

// TestLongestAt2MatchesLongestAtN holds the two-word matcher (on every
// program of at most 128 instructions) and longestAt with its two-byte
// table and, on larger programs, its DFA (asciiDFA) to the general one, on reLegalForm's programs and the anchored
// regexps' filters, at every position of a fourth of the corpus lines,
// cased and random ones.
func TestLongestAt2MatchesLongestAtN(t *testing.T) {
	t.Parallel()
	var progs []*asciiNFA
	for _, n := range reLegalForm.tables().nfa {
		if n != nil {
			progs = append(progs, n)
		}
	}
	for _, x := range startREs {
		if f := x.get().filter; f != nil {
			progs = append(progs, f)
		}
	}
	small, dfas, answered := 0, 0, 0
	var lines []string
	for i, ln := range equivLines(t, true, 5000) {
		if i%4 == 0 { // every fourth: the programs run at every byte
			lines = append(lines, ln)
		}
	}
	for _, n := range progs {
		if n.words <= 2 {
			small++
		}
		if n.dfa != nil {
			dfas++
		}
		for _, ln := range lines {
			for i := 0; i < len(ln); i++ {
				eN, okN := n.longestAtN(ln[i:])
				if n.words <= 2 {
					if e2, ok2 := n.longestAt2(ln[i:]); e2 != eN || ok2 != okN {
						t.Fatalf("%q at %d: longestAt2 %d %v, longestAtN %d %v", ln, i, e2, ok2, eN, okN)
					}
				}
				if e, ok := n.longestAt(ln[i:]); e != eN || ok != okN {
					t.Fatalf("%q at %d: longestAt %d %v (its two-byte table), longestAtN %d %v", ln, i, e, ok, eN, okN)
				}
				if okN && eN >= 0 {
					answered++
				}
			}
		}
	}
	if small < 20 || dfas < 8 || answered < atLeast(10000) {
		t.Fatalf("only %d small programs, %d with a DFA and %d matches: the comparison proves little", small, dfas, answered)
	}
	t.Logf("%d of %d programs small, %d with a DFA, %d matches", small, len(progs), dfas, answered)
}
