package cmd_test

import (
	"testing"

	"github.com/invx/invx/cmd"
)

// An invx process samples the heap only when a heap profile was asked
// for: the sampling costs memory (stack buckets, the binary's function
// tables) that a run without a profile never reads. A rate chosen with
// GODEBUG stays the user's.
func TestHeapProfileRate(t *testing.T) {
	t.Parallel()
	const current = 512 << 10
	for _, tc := range []struct {
		name    string
		args    []string
		godebug string
		want    int
	}{
		{"run", []string{"run", "--db", "x.db", "dir"}, "", 0},
		{"version", []string{"version"}, "gctrace=1", 0},
		{"cpu profile only", []string{"run", "--cpuprofile", "cpu.pprof", "dir"}, "", 0},
		{"heap profile", []string{"run", "--memprofile", "mem.pprof", "dir"}, "", current},
		{"heap profile with =", []string{"work", "--memprofile=mem.pprof"}, "", current},
		{"peak heap profile", []string{"run", "--memprofile-peak", "peak.pprof", "dir"}, "", current},
		{"after --, a path", []string{"run", "--", "--memprofile"}, "", 0},
		{"GODEBUG", []string{"run", "dir"}, "gctrace=0, memprofilerate=4096", current},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := cmd.HeapProfileRate(tc.args, tc.godebug, current); got != tc.want {
				t.Errorf("HeapProfileRate(%q, %q) = %d, want %d", tc.args, tc.godebug, got, tc.want)
			}
		})
	}
}
