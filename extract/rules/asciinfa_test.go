package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestASCIINFAMatchesRegexp holds every per-letter program of reLegalForm
// to the anchored regexp it replaces, at every position of the corpus's
// lines and of random strings built from the legal forms' own pieces: the
// same end wherever the matcher answers, and an answer everywhere but
// where a byte above 0x7f is reached.
func TestASCIINFAMatchesRegexp(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, true, 5000)
	parts := []string{"s", "S", "a", "à", "À", "r", "l", "u", ".", ". ", " ", "  ", "\t", "/", "b", "B", "d", "n", "h",
		"gmbh", "& co", "co.,", "ltd", "pty", "kg", "kgaa", "ug", "(haftungsbeschr", "ä", "ae", "nkt)", "sp. z o.o.",
		"e.k", "c.v.", "SpA", "Sas", "SDN", "BHD", "pte", "\u212a", "\u017f", "é", "x"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range atLeast(40000) {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	x := reLegalForm.tables()
	programs, matched, answered, deferred := 0, 0, 0, 0
	for c, n := range x.nfa {
		if n == nil {
			continue
		}
		programs++
		re := x.byFirst[c]
		for _, ln := range lines {
			for i := 0; i < len(ln); i++ {
				if lowerByte(ln[i]) != byte(c) {
					continue
				}
				end, ok := n.longestAt(ln[i:])
				if !ok {
					deferred++
					continue
				}
				answered++
				want := -1
				if m := re.FindStringIndex(ln[i:]); m != nil {
					want = m[1]
					matched++
				}
				if end != want {
					t.Fatalf("%q at %d (%q): nfa says %d, regexp %d", ln, i, rune(c), end, want)
				}
			}
		}
	}
	// Every first letter of the legal forms has a program (none needs an
	// assertion or is too large), or the regexp is back in the loop.
	if programs != countNonNil(x.byFirst[:]) {
		t.Fatalf("%d programs for %d first bytes", programs, countNonNil(x.byFirst[:]))
	}
	if matched < atLeast(2000) || deferred == 0 || answered < atLeast(100000) {
		t.Fatalf("only %d matches, %d answers, %d deferred: the comparison proves little", matched, answered, deferred)
	}
}

func countNonNil[T any](xs []*T) int {
	n := 0
	for _, x := range xs {
		if x != nil {
			n++
		}
	}
	return n
}

// TestASCIINFADefers pins the hand-over: a byte above 0x7f that a live
// thread reaches goes to the regexp; one after the match has ended does not.
func TestASCIINFADefers(t *testing.T) {
	t.Parallel()
	n, ok := newASCIINFA(`(?i:ltd\.?|limited)`)
	if !ok {
		t.Fatal("no program")
	}
	for _, tc := range []struct {
		s      string
		end    int
		answer bool
	}{
		{"Ltd. x", 4, true},
		{"LTD.é", 4, true},
		{"LTDé", 0, false},
		{"Limitéd", 0, false},
		{"L\u212a", 0, false},
		{"lim", -1, true},
		{"", -1, true},
	} {
		end, ok := n.longestAt(tc.s)
		if ok != tc.answer || ok && end != tc.end {
			t.Errorf("%q: got %d %v, want %d %v", tc.s, end, ok, tc.end, tc.answer)
		}
	}
	if _, ok := newASCIINFA(`\bltd`); ok {
		t.Error("an assertion was accepted")
	}
}

// TestStartREFilterRejectsOnlyNonMatches holds each anchored regexp's
// assertion-free filter to the regexp on the folded corpus and its cells:
// where the filter finds nothing at the start, the regexp finds nothing,
// and where it finds only the empty match, so does the regexp.
func TestStartREFilterRejectsOnlyNonMatches(t *testing.T) {
	t.Parallel()
	texts := matchTexts(t)
	for _, ln := range texts[:len(texts):len(texts)] {
		for _, c := range splitCells(ln) {
			texts = append(texts, ln[c.start:c.end])
		}
	}
	filtered, rejected, matched, empty := 0, 0, 0, 0
	for i, x := range startREs {
		tb := x.get()
		if tb.filter == nil {
			continue
		}
		filtered++
		for _, text := range texts {
			end, ok := tb.filter.longestAt(text)
			m := tb.re.FindStringIndex(text)
			if m != nil {
				matched++
			}
			if ok && end < 0 {
				rejected++
				if m != nil {
					t.Fatalf("anchored regexp %d (%s) on %q: the filter rejects a match %v", i, tb.re, text, m)
				}
			}
			if ok && end == 0 && tb.emptyAt0 {
				empty++
				if m == nil || m[0] != 0 || m[1] != 0 {
					t.Fatalf("anchored regexp %d (%s) on %q: the filter allows only the empty match, the regexp finds %v", i, tb.re, text, m)
				}
			}
		}
	}
	if filtered < len(startREs)/2 || rejected < atLeast(100000) || matched < atLeast(1000) || empty < atLeast(5000) {
		t.Fatalf("%d of %d filtered, %d rejections, %d matches, %d empty: the comparison proves little", filtered, len(startREs), rejected, matched, empty)
	}
}
