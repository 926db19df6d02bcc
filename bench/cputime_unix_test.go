//go:build unix

package bench_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system, GC
// included: on a shared machine a benchmark's ns/op is wall time and
// swings with the neighbours' load, its CPU time much less.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
