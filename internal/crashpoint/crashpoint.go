// Package crashpoint lets crash tests kill invx at a named point of its
// write path, deterministically, where a kill at a random moment would land
// there too rarely to prove anything: inside a batched claim transaction,
// inside a group commit before COMMIT, between a batch submission and its
// record.
//
// INVX_TEST_CRASHPOINT=NAME[:N] kills the process with SIGKILL the Nth time (1st
// by default) it reaches Hit(NAME). Unset, Hit is one load of a cached value.
// The variable is read once, at the first Hit.
package crashpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Env is the variable that arms a crash point.
const Env = "INVX_TEST_CRASHPOINT"

type armed struct {
	name string
	nth  int64
	hits atomic.Int64
}

var target = sync.OnceValue(func() *armed {
	v := os.Getenv(Env)
	if v == "" {
		return nil
	}
	a := &armed{name: v, nth: 1}
	if name, n, ok := strings.Cut(v, ":"); ok {
		k, err := strconv.ParseInt(n, 10, 64)
		if err != nil || k < 1 {
			// A typo must not silently disarm a crash test.
			panic("crashpoint: " + Env + "=" + strconv.Quote(v) + ": want NAME or NAME:N with N >= 1")
		}
		a.name, a.nth = name, k
	}
	return a
})

// Hit kills the process if name is the armed point and this is its Nth hit.
// It never returns then: the kill is synchronous for SIGKILL on Unix, and
// the goroutine blocks in case delivery lags.
func Hit(name string) {
	a := target()
	if a == nil || a.name != name {
		return
	}
	if a.hits.Add(1) != a.nth {
		return
	}
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		_ = p.Kill()
	}
	select {}
}
