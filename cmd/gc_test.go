package cmd

import (
	"runtime/debug"
	"testing"
)

// gcPercent is the GC percent in force.
func gcPercent(t *testing.T) int {
	t.Helper()
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// run and work lower the heap goal unless the user set GOGC, and undo it.
// Not parallel: the GC percent is the process's.
func TestTuneGC(t *testing.T) {
	before := gcPercent(t)
	tests := []struct {
		name string
		env  map[string]string
		want int
	}{
		{"GOGC unset", nil, runGCPercent},
		{"GOGC set wins", map[string]string{"GOGC": "200"}, before},
	}
	for _, tc := range tests {
		restore := tuneGC(func(k string) string { return tc.env[k] })
		if got := gcPercent(t); got != tc.want {
			t.Errorf("%s: GC percent %d, want %d", tc.name, got, tc.want)
		}
		restore()
		if got := gcPercent(t); got != before {
			t.Errorf("%s: GC percent %d after restore, want %d", tc.name, got, before)
		}
	}
}
