package rules

import (
	"fmt"
	"strings"
	"testing"
)

// blockUnits are texts of many repeated buyer block labels ("Bill to:"
// fifty times once took v1 Extract 46 s).
var blockUnits = []string{"Bill to:\n", "Bill to:  Ship to:\n", "Bill to: ACME GmbH\n", "Bill to:\nACME Corp\n123 Main St\n"}

// TestRepeatedBlockLabelsScaleLinearly checks at two sizes that four times
// the text costs about four times the work, not sixteen, by allocations,
// which do not depend on the machine or its load. The time it takes is
// BenchmarkRepeatedBlockLabels' business, never a test's.
func TestRepeatedBlockLabelsScaleLinearly(t *testing.T) {
	// Not parallel: AllocsPerRun counts the whole process's allocations.
	for _, unit := range blockUnits {
		small, large := strings.Repeat(unit, 50), strings.Repeat(unit, 200)
		for _, v := range []struct {
			name string
			run  func(string)
		}{
			{"v1", func(s string) { Extract(s) }},
			{"v2", func(s string) { ExtractV2(s) }},
		} {
			as := testing.AllocsPerRun(2, func() { v.run(small) })
			al := testing.AllocsPerRun(2, func() { v.run(large) })
			if al > 10*as {
				t.Errorf("%s %q: %.0f allocations for 200 repeats, %.0f for 50: superlinear", v.name, unit, al, as)
			}
		}
	}
}

// BenchmarkRepeatedBlockLabels times the texts of the test above at 50 and
// 200 repeats: ns/op at 200 should be about four times that at 50.
//
//	go test -run '^$' -bench BenchmarkRepeatedBlockLabels ./extract/rules
func BenchmarkRepeatedBlockLabels(b *testing.B) {
	for i, unit := range blockUnits {
		for _, n := range []int{50, 200} {
			text := strings.Repeat(unit, n)
			b.Run(fmt.Sprintf("unit%d/v2/%d", i, n), func(b *testing.B) {
				for b.Loop() {
					ExtractV2(text)
				}
			})
		}
	}
}
