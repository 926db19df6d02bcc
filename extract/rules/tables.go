package rules

import (
	"regexp"
	"sync"
	"sync/atomic"
)

// Nothing heavy runs at package init: every command links this package
// (invx version, --help, each shell TAB for completion), and building the
// lexicons, regular expressions and derived maps at init made each of them
// allocate about 31 MB. Tables are built once, on first use, instead.

// tables lists every table declared with onFirstUse, so a test can build
// them all (a bad pattern panics on first use, not at init).
var tables []func()

// onFirstUse returns a function that builds the value once, on its first
// call, and returns it from then on; safe for concurrent use.
func onFirstUse[T any](build func() T) func() T {
	get := onceValue(build)
	tables = append(tables, func() { get() })
	return get
}

// onceValue is sync.OnceValue read with one atomic load once built: the
// tables are asked for per line and per lexicon, and sync.OnceValue's call
// through Once.Do was 0.4 % of a document's instructions.
func onceValue[T any](build func() T) func() T {
	once := sync.OnceValue(build)
	var built atomic.Pointer[T]
	return func() T {
		if v := built.Load(); v != nil {
			return *v
		}
		v := once() // panics again, as sync.OnceValue does, if build did
		built.Store(&v)
		return v
	}
}

// mustRE is regexp.MustCompile on first use.
func mustRE(src string) func() *regexp.Regexp {
	return onFirstUse(func() *regexp.Regexp { return regexp.MustCompile(src) })
}
