package rules

import (
	"strings"
	"testing"
)

// TestGroupLongestMatchesEveryRest holds a phrase group's search, which
// skips the rests whose first byte is not there, to running every rest,
// on every keyed group of every lexicon at each corpus line position that
// holds the group's literal.
func TestGroupLongestMatchesEveryRest(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, s := range equivLines(t, false, 5000) {
		texts = append(texts, foldString(s))
	}
	var pos, next [16]int
	tried, skipped, found := 0, 0, 0
	for _, lx := range lexicons {
		tb := lx.tables()
		if tb.byKey == nil {
			continue
		}
		for _, groups := range tb.byKey {
			for gi := range groups {
				g := &groups[gi]
				for _, s := range texts {
					for i := 0; i < len(s); i++ {
						k := strings.Index(s[i:], g.lit)
						if k < 0 {
							break
						}
						i += k
						want := -1
						for _, rest := range g.rests {
							want = max(want, rest.longestAfter(s[i:], len(g.lit), pos[:0], next[:0]))
						}
						if got := g.longest(s[i:], pos[:0], next[:0]); got != want {
							t.Fatalf("group %q of lexicon %d on %q at %d: %d, every rest %d", g.lit, tb.id, s, i, got, want)
						}
						tried++
						if want >= 0 {
							found++
						}
					}
				}
				for _, n := range g.needs {
					if n.skip != needNone {
						skipped++
					}
				}
			}
		}
	}
	if tried < atLeast(50000) || found < atLeast(10000) || skipped < 500 {
		t.Fatalf("only %d positions, %d matches, %d rests with a need: the comparison proves little", tried, found, skipped)
	}
}
