package rules

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestTablesBuild builds every table declared with onFirstUse, from several
// goroutines at once: since nothing is compiled at init any more, a bad
// pattern would otherwise only panic when a document first needs it.
func TestTablesBuild(t *testing.T) {
	t.Parallel()
	if len(tables) == 0 {
		t.Fatal("no table registered with onFirstUse")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, build := range tables {
				build()
			}
		}()
	}
	wg.Wait()
}

// TestOnceValueBuildsOnce holds onceValue (onFirstUse's) to sync.OnceValue's contract:
// goroutines asking at once all get the one value, built once (the build
// waits until every goroutine has asked, so a second build would be seen),
// and a build that panics panics again on every call.
func TestOnceValueBuildsOnce(t *testing.T) {
	t.Parallel()
	const n = 8
	var asked, builds atomic.Int32
	get := onceValue(func() *int {
		builds.Add(1)
		for asked.Load() < n {
			runtime.Gosched()
		}
		v := 42
		return &v
	})
	got := make([]*int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			asked.Add(1)
			for range 100 {
				got[i] = get()
			}
		})
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Fatalf("built %d times, want once", builds.Load())
	}
	for i, p := range got {
		if p != got[0] || *p != 42 {
			t.Fatalf("goroutine %d got %p (%d), goroutine 0 %p", i, p, *p, got[0])
		}
	}

	bad := onceValue(func() int { panic("bad table") })
	for i := range 2 {
		func() {
			defer func() {
				if r := recover(); r != "bad table" {
					t.Fatalf("call %d: recovered %v, want the build's panic", i, r)
				}
			}()
			bad()
		}()
	}
}
