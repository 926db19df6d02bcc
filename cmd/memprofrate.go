package cmd

import (
	"strings"
)

// HeapProfileRate is the heap profiler's sampling interval
// (runtime.MemProfileRate) for an invx process started with args: the
// rate it has (current) when the command writes a heap profile
// (--memprofile, --memprofile-peak) or GODEBUG sets one (memprofilerate=N,
// applied before main), otherwise 0, off. The binary links runtime/pprof,
// so the runtime would otherwise sample every 512 KiB allocated for a
// profile nobody reads: each sample unwinds the stack (touching the
// binary's function tables) and keeps a bucket per distinct stack. Off, a
// 10k rules run peaks 1.5 MiB lower (bench/README.md, "Memory").
//
// main sets it once, before the command starts: the rate is the process's,
// and tests run several commands at once in one process.
func HeapProfileRate(args []string, godebug string, current int) int {
	if godebugSetsMemProfileRate(godebug) {
		return current
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		if name == "--memprofile" || name == "--memprofile-peak" {
			return current
		}
	}
	return 0
}

// godebugSetsMemProfileRate reports whether GODEBUG (a comma-separated
// list of name=value) has a memprofilerate setting.
func godebugSetsMemProfileRate(godebug string) bool {
	for _, kv := range strings.Split(godebug, ",") {
		if strings.HasPrefix(strings.TrimSpace(kv), "memprofilerate=") {
			return true
		}
	}
	return false
}
