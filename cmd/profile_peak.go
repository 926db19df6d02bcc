package cmd

import (
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// peakStep is how much the live heap must grow past the last profile
// written before --memprofile-peak writes another: each write costs a few
// milliseconds, and a heap that creeps up by bytes says nothing new.
const peakStep = 1.05

// peakPoll is how often the live heap is read. It changes only at the end
// of a GC cycle, which a busy run has several of per second.
const peakPoll = 20 * time.Millisecond

// watchPeak writes a heap profile to path each time the live heap (as of
// the last GC) reaches a new high by peakStep, until stop is called. The
// memory profile rate is
// raised for the rest of the process, so small holders show up: a
// debugging aid, not for production runs.
func watchPeak(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	runtime.MemProfileRate = 64 << 10
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
	var written uint64
	write := func() error {
		if _, err := f.Seek(0, 0); err != nil {
			return err
		}
		if err := f.Truncate(0); err != nil {
			return err
		}
		return pprof.Lookup("heap").WriteTo(f, 0)
	}
	quit, done := make(chan struct{}), make(chan error, 1)
	go func() {
		t := time.NewTicker(peakPoll)
		defer t.Stop()
		var werr error
		for {
			select {
			case <-quit:
				done <- werr
				return
			case <-t.C:
				if n := live(); float64(n) > float64(written)*peakStep && werr == nil {
					werr = write()
					written = n
				}
			}
		}
	}()
	return func() error {
		close(quit)
		werr := <-done
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return werr
	}, nil
}
