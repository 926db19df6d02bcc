package rules

import (
	"strings"
	"testing"
	"time"
)

// TestRepeatedBlockLabelsScaleLinearly feeds texts of many repeated buyer
// block labels ("Bill to:" fifty times once took v1 Extract 46 s) at two
// sizes and checks that four times the text costs about four times the
// work, not sixteen: by allocations, which do not depend on the
// machine, and by the fastest of a few timings, with a wide margin.
func TestRepeatedBlockLabelsScaleLinearly(t *testing.T) {
	// Not parallel: AllocsPerRun counts the whole process's allocations.
	for _, unit := range []string{"Bill to:\n", "Bill to:  Ship to:\n", "Bill to: ACME GmbH\n", "Bill to:\nACME Corp\n123 Main St\n"} {
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
			ts, tl := fastest(func() { v.run(small) }), fastest(func() { v.run(large) })
			if !raceOn && tl > 16*ts && tl > 50*time.Millisecond {
				t.Errorf("%s %q: %v for 200 repeats, %v for 50: superlinear", v.name, unit, tl, ts)
			}
		}
	}
}

// fastest is the shortest of three timings of f.
func fastest(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}
