package cmd

import (
	"runtime"
	"testing"
)

// run and work sample the heap only when a heap profile was asked for: the
// sampling costs memory (stack buckets, the binary's function tables) that
// a run without a profile never reads. Not parallel: the rate is the
// process's, and the parallel tests of the package run only after this one.
func TestHeapProfilerOnlyWhenAsked(t *testing.T) {
	t.Setenv("GODEBUG", "")
	defer setMemProfileRate(defaultMemProfileRate)
	for _, tc := range []struct {
		name string
		o    profileOptions
		want int
	}{
		{"no profile", profileOptions{}, 0},
		{"cpu profile only", profileOptions{CPU: t.TempDir() + "/cpu.pprof"}, 0},
		{"heap profile", profileOptions{Mem: t.TempDir() + "/mem.pprof"}, defaultMemProfileRate},
		{"peak heap profile", profileOptions{MemPeak: t.TempDir() + "/peak.pprof"}, 64 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.MemProfileRate = 1 // neither value: the rate must be set
			got := -1
			if err := profiled(&tc.o, func() error { got = runtime.MemProfileRate; return nil }); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("runtime.MemProfileRate while the command runs = %d, want %d", got, tc.want)
			}
		})
	}
}

// A memprofilerate in GODEBUG is the user's choice and stays.
func TestGODEBUGMemProfileRateWins(t *testing.T) {
	t.Setenv("GODEBUG", "gctrace=0, memprofilerate=4096")
	defer func() { runtime.MemProfileRate = defaultMemProfileRate }()
	runtime.MemProfileRate = 4096
	got := -1
	if err := profiled(&profileOptions{}, func() error { got = runtime.MemProfileRate; return nil }); err != nil {
		t.Fatal(err)
	}
	if got != 4096 {
		t.Errorf("runtime.MemProfileRate = %d with GODEBUG memprofilerate=4096, want 4096", got)
	}
}
