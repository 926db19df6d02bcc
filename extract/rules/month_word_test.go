package rules

import (
	"strings"
	"testing"
)

// hasMonthWordRef is hasMonthWord as it was before monthEnds: the map
// asked at every word end.
func hasMonthWordRef(f string) bool {
	byFold, lens := monthByFold(), monthLens()
	run := 0
	for i := 0; i <= len(f); i++ {
		if i < len(f) && f[i] >= 'a' && f[i] <= 'z' {
			run++
			continue
		}
		if run > 0 && (i == len(f) || !isREWordByte(f[i])) {
			for _, n := range lens {
				if n > run {
					break
				}
				if _, ok := byFold[f[i-n:i]]; ok {
					return true
				}
			}
		}
		run = 0
	}
	return false
}

// TestHasMonthWordMatchesReference holds hasMonthWord to the reference on
// every folded corpus line and on random lines of month names, their
// pieces, letters, digits and word bytes.
func TestHasMonthWordMatchesReference(t *testing.T) {
	t.Parallel()
	var lines []string
	for _, ln := range equivLines(t, false, 3000) {
		lines = append(lines, foldString(ln))
	}
	parts := []string{" ", "1", "05", "_", "A", "x", "e", "s", "é", ".", "-"}
	for s := range monthByFold() {
		parts = append(parts, s, s[:len(s)/2], s[len(s)/2:])
	}
	lines = scannerTexts(lines, parts, 37, 50000)
	found := 0
	for _, f := range lines {
		want := hasMonthWordRef(f)
		if got := hasMonthWord(f); got != want {
			t.Fatalf("hasMonthWord(%q) = %v, reference %v", f, got, want)
		}
		if want {
			found++
		}
	}
	if found < atLeast(10000) {
		t.Fatalf("only %d lines hold a month word: the comparison proves little", found)
	}
}

// TestByteInIsIndexByte holds byteIn to strings.IndexByte for every byte
// and the separator sets hasDigitsThenSep is asked with.
func TestByteInIsIndexByte(t *testing.T) {
	t.Parallel()
	for _, set := range []string{"-./", "/-", "", "\xe2"} {
		for c := range 256 {
			if got, want := byteIn(byte(c), set), strings.IndexByte(set, byte(c)) >= 0; got != want {
				t.Fatalf("byteIn(%q, %q) = %v, IndexByte says %v", byte(c), set, got, want)
			}
		}
	}
}
