package rules

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// nationalVATIDsRef is nationalVATIDs as it was before the four-aligned
// digit pre-test (mayHoldDigitRun7), frozen.
func nationalVATIDsRef(raw string) (ids []string, spans [][2]int) {
	run := longestDigitRunRef(raw)
	for _, x := range []struct {
		re     func() *regexp.Regexp
		prefix string
		digits int
		label  func(string) bool
	}{{reITVATNational, "IT", 11, mayITVATLabel}, {reESVATNational, "ES", 7, mayESVATLabel}} {
		if run < x.digits || !x.label(raw) {
			continue
		}
		for _, m := range x.re().FindAllStringSubmatchIndex(raw, -1) {
			ids = append(ids, x.prefix+alnumUpperASCII(raw[m[2]:m[3]]))
			spans = append(spans, [2]int{m[0], m[3]})
		}
	}
	return ids, spans
}

// TestNationalVATIDsMatchesReference holds nationalVATIDs to the frozen
// reference, and mayHoldDigitRun7 to never saying no where seven digits
// stand in a row, on every line of the fixtures, development texts,
// synthetic invoices, the local dev set where present, and random lines of
// digit runs at every offset.
func TestNationalVATIDsMatchesReference(t *testing.T) {
	t.Parallel()
	var lines []string
	for _, text := range selfCheckTexts(t) {
		lines = append(lines, strings.Split(text, "\n")...)
	}
	lines = append(lines, equivLines(t, true, 2000)...)
	parts := []string{"0", "7", "12", "123", "0123456", "01234567890", " ", "-", "IT", "a", "é", "/",
		"P.IVA ", "NIF: ", "B-1234567-A ", "12345678Z"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	long, found, skipped := 0, 0, 0
	for _, s := range lines {
		if longestDigitRunRef(s) >= 7 {
			long++
			if !mayHoldDigitRun7(s) {
				t.Fatalf("mayHoldDigitRun7(%q) = false: it holds seven digits in a row", s)
			}
		} else if !mayHoldDigitRun7(s) {
			skipped++
		}
		wantIDs, wantSpans := nationalVATIDsRef(s)
		gotIDs, gotSpans := nationalVATIDs(s)
		if !reflect.DeepEqual(gotIDs, wantIDs) || !reflect.DeepEqual(gotSpans, wantSpans) {
			t.Fatalf("nationalVATIDs(%q) = %q %v, want %q %v", s, gotIDs, gotSpans, wantIDs, wantSpans)
		}
		found += len(wantIDs)
	}
	t.Logf("%d lines, %d with seven digits in a row, %d skipped by the pre-test, %d ids", len(lines), long, skipped, found)
	if long < atLeast(1000) || found < atLeast(100) {
		t.Fatalf("only %d lines with seven digits, %d ids: the comparison proves little", long, found)
	}
}
