package rules

import (
	"math/rand"
	"strings"
	"testing"
)

// TestMayNotMatchesMayHave holds line.mayNot, the inlined no that has,
// index and appendLabels ask before mayHave, to mayHave as it was
// (mayHaveRef) for every lexicon on every line of the corpus and of
// generated invoices, read as newDocument reads them (keys gathered for
// the whole document): it says no exactly where a lexicon by key only is
// ruled out, so it is no mere hint, and never where the old test says yes.
// On a line whose keys are not gathered it must leave the answer to
// mayHave.
func TestMayNotMatchesMayHave(t *testing.T) {
	t.Parallel()
	var texts []string
	lines := equivLines(t, true, 5000)
	for len(lines) > 0 {
		n := min(len(lines), maxLines/2) // newDocument reads maxLines
		texts = append(texts, strings.Join(lines[:n], "\n"))
		lines = lines[n:]
	}
	r := rand.New(rand.NewSource(20261202))
	for range atLeast(40) {
		text, _ := synthInvoice(r)
		texts = append(texts, text)
	}
	nos, yes := 0, 0
	for _, text := range texts {
		d := newDocument(text)
		for _, ln := range d.lines {
			fresh := &line{raw: ln.raw, f: ln.f}
			for _, lx := range lexicons {
				tb := lx.tables()
				if fresh.mayNot(tb) {
					t.Fatalf("lexicon %d on %q: mayNot says no before the line's keys are gathered", tb.id, ln.f.s)
				}
				want := mayHaveRef(tb, &ln.lk)
				got := ln.mayNot(tb)
				if got && want {
					t.Fatalf("lexicon %d on %q: mayNot %v, mayHave as it was %v", tb.id, ln.f.s, got, want)
				}
				if !got && tb.byKeyOnly && !want {
					t.Fatalf("lexicon %d (by key only) on %q: mayNot leaves a no to mayHave", tb.id, ln.f.s)
				}
				if got {
					nos++
				} else if want {
					yes++
				}
			}
		}
		d.release()
	}
	if nos < atLeast(100000) || yes < atLeast(10000) {
		t.Fatalf("%d noes, %d yeses: the comparison proves little", nos, yes)
	}
}
