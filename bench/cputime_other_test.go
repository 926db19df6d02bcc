//go:build !unix

package bench_test

import "time"

// processCPU is unknown here: the cpu-ns/op metrics read 0.
func processCPU() time.Duration { return 0 }
