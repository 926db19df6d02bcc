package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMayNumDateNeverHidesAMatch: wherever reDateNum matches (in a line, a
// folded line, or a suffix numDateMatches searches), mayNumDate says yes.
func TestMayNumDateNeverHidesAMatch(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 2000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	parts := []string{"1", "12", "2026", "19", ".", "/", "-", " ", "\t", "  ", "x", "12.50", "03-1234", "Date:", "\u00a0"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	// The widest spacing the pattern allows, and the narrowest.
	lines = append(lines, "Date: 05 / 03 / 2026", "1 . 12 . 19 x", "3 -12 - 2026", "1.2.26", "x 1/2/2026")
	matched, said := 0, 0
	for _, s := range lines {
		may := mayNumDate(s)
		if may {
			said++
		}
		for i := 0; i < len(s); i++ {
			if !reDateNum().MatchString(s[i:]) {
				continue
			}
			matched++
			if !may {
				t.Fatalf("reDateNum matches %q in %q, but mayNumDate says no", s[i:], s)
			}
			break
		}
	}
	if matched < 1000 || said == len(lines) {
		t.Fatalf("%d of %d texts match and the guard passes %d: the test proves little", matched, len(lines), said)
	}
}

// mayNumDateRef is mayNumDate as it was before it passed over eight bytes
// at a time.
func mayNumDateRef(f string) bool {
	last := -10
	for p := 1; p+1 < len(f); p++ {
		if c := f[p]; c != '.' && c != '/' && c != '-' {
			continue
		}
		if !(isDigitByte(f[p-1]) || p >= 2 && isRESpace(f[p-1]) && isDigitByte(f[p-2])) {
			continue
		}
		if !(isDigitByte(f[p+1]) || p+2 < len(f) && isRESpace(f[p+1]) && isDigitByte(f[p+2])) {
			continue
		}
		if p-last >= 2 && p-last <= 5 {
			return true
		}
		last = p
	}
	return false
}

// TestMayNumDateMatchesReference holds mayNumDate to the byte loop it
// replaced on every corpus line, folded or not, and on random texts of
// separators, digits and blanks long enough for several blocks.
func TestMayNumDateMatchesReference(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 2000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	parts := []string{"1", "12", "2026", ".", "/", "-", " ", "\t", "        ", "x", "12.50", "03-1234", "é", "05 / 03 / 2026"}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	yes := 0
	for _, s := range lines {
		want := mayNumDateRef(s)
		if got := mayNumDate(s); got != want {
			t.Fatalf("mayNumDate(%q) = %v, reference %v", s, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 1000 {
		t.Fatalf("only %d texts may hold a date: the test proves little", yes)
	}
}
