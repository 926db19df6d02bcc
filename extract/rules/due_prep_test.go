package rules

import "testing"

// TestEndsWithDuePrepMatchesRegexp holds the scanner to reDuePrep on the
// text before every date of the corpus lines, on every prefix of a sample
// of them, and on random texts of its words, spaces, colons and the bytes
// around a word boundary.
func TestEndsWithDuePrepMatchesRegexp(t *testing.T) {
	t.Parallel()
	var texts []string
	for i, ln := range equivLines(t, false, 0) {
		f := foldString(ln)
		for _, dh := range findDates(f, false) {
			texts = append(texts, f[:dh.start])
		}
		if i%50 == 0 {
			for k := range len(f) + 1 {
				texts = append(texts, f[:k])
			}
		}
	}
	parts := []string{"bis", "zum", "spatestens", "by", "before", "untii", "until", "avant", "ie", "le", "au", "pius",
		"tard", "antes", "de", "dei", "del", "hasta", "ei", "voor", "uiteriijk", "entro", "ii", "on", "or",
		" ", " ", "  ", "\t", "\n", ":", "::", "x", "_", "1", "é", "-", ".", "ABY", "B"}
	texts = scannerTexts(texts, parts, 11, 100000)
	re, matched := reDuePrep(), 0
	for _, s := range texts {
		want := re.MatchString(s)
		if got := endsWithDuePrep(s); got != want {
			t.Fatalf("endsWithDuePrep(%q) = %v, reDuePrep says %v", s, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < atLeast(1000) || len(texts) < atLeast(10000) {
		t.Fatalf("%d texts, %d ending with a preposition: the comparison proves little", len(texts), matched)
	}
	t.Logf("%d texts, %d ending with a preposition", len(texts), matched)
}
