package cmd

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// runMemoryLimit is the Go runtime's soft memory limit (debug.SetMemoryLimit)
// for run and work while their live heap is small. A rules run holds about
// 12 MB live (the compiled lexicons, the documents in flight, the batch
// being enqueued); Go's default heap goal, twice that, plus the free pages
// the runtime keeps mapped, were some 31 MiB of the run's anonymous memory.
// Under this limit the collector runs a little earlier and the scavenger
// gives free pages back, only when the process nears it: a replay run's
// smaller live heap never does, so it pays nothing, unlike a lower GOGC
// (0e2a86e). SQLite's memory (modernc.org/libc maps its own) is not
// counted by the runtime, so it is not in this figure. See bench/README.md,
// "Memory".
const runMemoryLimit = 34 << 20

// limitSlack is added to 1.5 x the live heap for the limit of a large live
// heap (limitFor): the runtime's own memory (stacks, GC metadata, some
// 6 MiB) and at least 10 MiB to allocate between two collections. Without
// it a live heap that grew near runMemoryLimit (a run of a million
// documents keeps 32 bytes of each) would have the collector run almost
// without pause.
const limitSlack = 16 << 20

// limitFor is the memory limit for a live heap of live bytes: never below
// runMemoryLimit, and from there 1.5 x live + limitSlack, about GOGC=50.
func limitFor(live uint64) int64 {
	return max(runMemoryLimit, int64(live)+int64(live/2)+limitSlack)
}

// memLimit is the process's one tuning, shared by commands that run at
// once in one process (tests call Main in parallel): the first sets the
// limit, the last gives the previous one back.
var memLimit struct {
	mu    sync.Mutex
	users int
	prev  int64
	// gen counts tunings: a GC callback of an earlier one stops.
	gen int
}

// tuneMemory sets the memory limit of run and work unless the environment
// has GOMEMLIMIT (the user's wins), and returns what undoes it. After every
// collection the limit follows the live heap (limitFor).
func tuneMemory(env func(string) string) (restore func()) {
	if env("GOMEMLIMIT") != "" {
		return func() {}
	}
	memLimit.mu.Lock()
	defer memLimit.mu.Unlock()
	memLimit.users++
	if memLimit.users == 1 {
		memLimit.gen++
		memLimit.prev = debug.SetMemoryLimit(limitFor(liveHeap()))
		followLive(memLimit.gen)
	}
	return sync.OnceFunc(func() {
		memLimit.mu.Lock()
		defer memLimit.mu.Unlock()
		memLimit.users--
		if memLimit.users == 0 {
			memLimit.gen++ // stops followLive's callbacks
			debug.SetMemoryLimit(memLimit.prev)
		}
	})
}

// followLive sets the limit for the live heap after each collection, as
// long as tuning gen is in force. A finalizer runs once after the
// collection that found its object unreachable; each one arms the next.
func followLive(gen int) {
	type sentinel struct{ _ [16]byte } // not tiny-allocated: freed on its own
	runtime.SetFinalizer(new(sentinel), func(*sentinel) {
		memLimit.mu.Lock()
		defer memLimit.mu.Unlock()
		if memLimit.gen != gen {
			return
		}
		if want := limitFor(liveHeap()); want != debug.SetMemoryLimit(-1) {
			debug.SetMemoryLimit(want)
		}
		followLive(gen)
	})
}

// liveHeap is the heap the last collection found live, in bytes.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
