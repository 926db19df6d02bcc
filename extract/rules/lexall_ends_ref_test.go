package rules

import (
	"math/bits"
	"strings"
	"testing"
)

// TestAllGroupEndsMatchesReference holds allGroup.ends, which picks a
// group's rests by looking the text's byte up in each need kind's bytes
// (needB) and splits the non-word run (bare literals, rests a dot step
// opens by the byte after it: notWord), to the frozen walk over every
// run's need (endsRef, frozen at fa9613d; ends was the same on main up to
// 66995ee): for every group of the index and every position of every
// corpus line (folded and raw, not only word beginnings) where the
// group's literal is, the same lexicons marked and the same longest end
// for each; and nothing marked where mayMatch says the group cannot
// match (findAllIn does not call ends there).
func TestAllGroupEndsMatchesReference(t *testing.T) {
	t.Parallel()
	x := lexAllIndex()
	var byFirst [256][]*allGroup
	nGroups := 0
	for _, gs := range x.groups {
		for gi := range gs {
			g := &gs[gi]
			if g.lit == "" {
				t.Fatalf("a group with no literal: %+v", *g)
			}
			byFirst[g.lit[0]] = append(byFirst[g.lit[0]], g)
			nGroups++
		}
	}
	var lines []string
	for _, text := range selfCheckTexts(t) {
		for _, ln := range strings.Split(text, "\n") {
			lines = append(lines, foldString(ln))
		}
	}
	for _, s := range equivLines(t, false, 3000) {
		lines = append(lines, s, foldString(s))
	}
	lines = append(lines, "total", "total ", "total\tdue", "total - / due", "total.", "total_due", "inv. no", "inv .no",
		"n' de", "tax:", "subtotal-", "vat no.", "total  amount   due", "totaldue", "net/ total")
	var sc allScratch
	var want [lexMaskWords * 64]int32
	var pos, next [16]int
	calls, marked, skipped := 0, 0, 0
	for _, f := range lines {
		for s := 0; s < len(f); s++ {
			for _, g := range byFirst[f[s]] {
				if !hasLitAt(f, s, g.lit) {
					continue
				}
				var gotAt, wantAt lexMask
				g.ends(f[s:], &sc, &gotAt)
				endsRef(g, f[s:], pos[:0], next[:0], &want, &wantAt)
				calls++
				if !g.mayMatch(f, s) && wantAt != (lexMask{}) {
					t.Fatalf("group %q at %d of %q: mayMatch false, the reference matches %v", g.lit, s, f, wantAt)
				}
				if !g.mayMatch(f, s) {
					skipped++
				}
				if gotAt != wantAt {
					t.Fatalf("group %q at %d of %q: lexicons %v, reference %v", g.lit, s, f, gotAt, wantAt)
				}
				// Only the marked lexicons may hold an end (the arrays are
				// zero between calls): those the two agree on.
				for w, m := range wantAt {
					for ; m != 0; m &= m - 1 {
						id := w*64 + bits.TrailingZeros64(m)
						if sc.ends[id] != want[id] {
							t.Fatalf("group %q at %d of %q, lexicon %d: end %d, reference %d", g.lit, s, f, id, sc.ends[id], want[id])
						}
						marked++
						sc.ends[id], want[id] = 0, 0
					}
				}
				if sc.ends != want {
					t.Fatalf("group %q at %d of %q: an end for an unmarked lexicon", g.lit, s, f)
				}
			}
		}
	}
	t.Logf("%d groups, %d lines, %d calls, %d lexicon ends, %d calls mayMatch skips", nGroups, len(lines), calls, marked, skipped)
	if calls < atLeast(50000) || marked < atLeast(20000) || skipped < atLeast(50000) {
		t.Fatalf("only %d calls and %d ends: the comparison proves little", calls, marked)
	}
}
