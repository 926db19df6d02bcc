package rules

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDollarCodesMatchRegexp holds dollarCodes to the regexp it stands
// for, `\b(?:CAD|AUD|...)\b` over dollarCodeSet, on every line of the
// corpus (as printed, upper and lower case) with dollar codes put in
// among words, digits and other three-letter capitals.
func TestDollarCodesMatchRegexp(t *testing.T) {
	t.Parallel()
	var codes []string
	for c := range dollarCodeSet {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	re := regexp.MustCompile(`\b(?:` + strings.Join(codes, "|") + `)\b`)
	lines := equivLines(t, true, 20000)
	lines = append(lines, "CAD", "cad", "CADX", "XCAD", "_CAD", "CAD_", "1CAD", "CAD1", "CAD-AUD", "ÉCAD", "CADé",
		"USD 5 NZD", "Usd", "USd", "EUR GBP CHF", "TWD/HKD", "MXN.", "(SGD)")
	// dollarCodes reads whole documents: lines joined, so codes meet
	// line breaks and the eight-byte blocks cross them.
	for k, n := 0, len(lines); k+40 <= n; k += 40 {
		lines = append(lines, strings.Join(lines[k:k+40], "\n"))
	}
	found := 0
	for _, ln := range lines {
		want := re.FindAllString(ln, -1)
		if got := dollarCodes(ln); !slices.Equal(got, want) {
			t.Fatalf("dollarCodes(%q) = %q, want %q", ln, got, want)
		}
		found += len(want)
	}
	if found < atLeast(20) {
		t.Fatalf("only %d codes found: the comparison proves little", found)
	}
}
