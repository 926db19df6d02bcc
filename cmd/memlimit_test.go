package cmd

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// memoryLimit is the soft memory limit in force.
func memoryLimit(t *testing.T) int64 {
	t.Helper()
	return debug.SetMemoryLimit(-1)
}

// run and work set the soft memory limit unless the user set GOMEMLIMIT,
// and give the previous one back. Not parallel: the limit is the
// process's.
func TestTuneMemory(t *testing.T) {
	before := memoryLimit(t)
	tests := []struct {
		name string
		env  map[string]string
		want int64
	}{
		{"GOMEMLIMIT unset", nil, runMemoryLimit},
		{"GOMEMLIMIT set wins", map[string]string{"GOMEMLIMIT": "1GiB"}, before},
	}
	for _, tc := range tests {
		restore := tuneMemory(func(k string) string { return tc.env[k] })
		// The test binary's own live heap may be large: the limit
		// follows it, never below runMemoryLimit.
		got := memoryLimit(t)
		if tc.want == runMemoryLimit && (got < runMemoryLimit || got == math.MaxInt64) {
			t.Errorf("%s: memory limit %d, want at least %d", tc.name, got, runMemoryLimit)
		}
		if tc.want != runMemoryLimit && got != tc.want {
			t.Errorf("%s: memory limit %d, want %d", tc.name, got, tc.want)
		}
		restore()
		restore() // a second call is a no-op
		if got := memoryLimit(t); got != before {
			t.Errorf("%s: memory limit %d after restore, want %d", tc.name, got, before)
		}
	}
}

// Two commands at once in one process (tests do it): the limit stays until
// the last one ends.
func TestTuneMemoryNested(t *testing.T) {
	before := memoryLimit(t)
	env := func(string) string { return "" }
	r1 := tuneMemory(env)
	r2 := tuneMemory(env)
	r1()
	if got := memoryLimit(t); got == before || got < runMemoryLimit {
		t.Errorf("memory limit %d after the first of two ended, want the tuned one (>= %d)", got, runMemoryLimit)
	}
	r2()
	if got := memoryLimit(t); got != before {
		t.Errorf("memory limit %d after both ended, want %d", got, before)
	}
}

// After a collection the limit follows the live heap: a heap that grew
// past what runMemoryLimit leaves room for gets limitFor's.
func TestTuneMemoryFollowsLive(t *testing.T) {
	before := memoryLimit(t)
	restore := tuneMemory(func(string) string { return "" })
	defer restore()
	big := make([]byte, 64<<20) // live: the limit must rise above 1.5 x this
	for i := range big {
		big[i] = 1 // touch it, so it is not a lazily zeroed mapping alone
	}
	for range 3 { // the finalizer runs after the collection that freed its object
		runtime.GC()
		runtime.Gosched()
	}
	want := int64(len(big)) + int64(len(big)/2) + limitSlack
	// The callback runs on the finalizer goroutine: give it a moment.
	for i := 0; i < 100 && memoryLimit(t) < want; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if got := memoryLimit(t); got < want {
		t.Errorf("memory limit %d with %d bytes live, want at least %d", got, len(big), want)
	}
	runtime.KeepAlive(big)
	restore()
	if got := memoryLimit(t); got != before {
		t.Errorf("memory limit %d after restore, want %d", got, before)
	}
}

func TestLimitFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		live uint64
		want int64
	}{
		{0, runMemoryLimit},
		{12 << 20, runMemoryLimit}, // a rules run: 18 + 16 MiB
		{40 << 20, 60<<20 + limitSlack},
	}
	for _, tc := range tests {
		if got := limitFor(tc.live); got != tc.want {
			t.Errorf("limitFor(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}
