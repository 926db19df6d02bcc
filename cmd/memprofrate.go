package cmd

import (
	"os"
	"runtime"
	"strings"
	"sync"
)

// defaultMemProfileRate is the runtime's own default sampling interval
// (runtime.MemProfileRate before anyone changes it).
const defaultMemProfileRate = 512 << 10

// memProfileMu orders every write of runtime.MemProfileRate this package
// makes: run and work set it per invocation, and tests run several at once.
var memProfileMu sync.Mutex

// setMemProfileRate sets the heap profiler's sampling interval (0: off)
// unless the user chose one with GODEBUG=memprofilerate, which wins.
func setMemProfileRate(rate int) {
	if godebugSetsMemProfileRate(os.Getenv("GODEBUG")) {
		return
	}
	memProfileMu.Lock()
	defer memProfileMu.Unlock()
	runtime.MemProfileRate = rate
}

// heapProfileRate is the sampling interval a run or work invocation needs:
// the runtime's default when it writes a heap profile, otherwise none. The
// binary links runtime/pprof, so the runtime would otherwise sample every
// 512 KiB allocated for a profile nobody reads: each sample unwinds the
// stack (touching the binary's function tables) and keeps a bucket per
// distinct stack. Off, a 10k rules run peaks 2.3 MiB lower (bench/README.md,
// "Memory"). --memprofile-peak raises the rate further itself (watchPeak).
func heapProfileRate(o *profileOptions) int {
	if o.Mem != "" || o.MemPeak != "" {
		return defaultMemProfileRate
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
