package cmd

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/pflag"
)

// profileOptions are the hidden --cpuprofile and --memprofile flags of run
// and work: a slowness report should come with a profile of the real
// command, not of a benchmark (bench/README.md, "Profiling").
type profileOptions struct {
	CPU string
	Mem string
	// MemPeak is a heap profile rewritten whenever the live heap reaches
	// a new high: what a run holds at its peak, not at its end.
	MemPeak string
}

func addProfileFlags(fl *pflag.FlagSet, o *profileOptions) {
	fl.StringVar(&o.CPU, "cpuprofile", "", "write a CPU profile of the command to FILE (go tool pprof)")
	fl.StringVar(&o.Mem, "memprofile", "", "write a heap profile to FILE when the command ends (go tool pprof)")
	fl.StringVar(&o.MemPeak, "memprofile-peak", "", "write a heap profile to FILE each time the live heap reaches a new high (go tool pprof)")
	_ = fl.MarkHidden("cpuprofile")
	_ = fl.MarkHidden("memprofile")
	_ = fl.MarkHidden("memprofile-peak")
}

// profiled runs fn under the profiles o asks for. A profile that cannot be
// written is a usage error before any work starts, or an error after it;
// fn's own error wins.
func profiled(o *profileOptions, fn func() error) (err error) {
	if o.CPU != "" {
		f, err := os.Create(o.CPU)
		if err != nil {
			return &usageError{err: fmt.Errorf("--cpuprofile: %w", err)}
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return &usageError{err: fmt.Errorf("--cpuprofile %s: %w", o.CPU, err)}
		}
		defer func() {
			pprof.StopCPUProfile()
			if cerr := f.Close(); cerr != nil {
				err = errors.Join(err, fmt.Errorf("--cpuprofile %s: %w", o.CPU, cerr))
			}
		}()
	}
	if o.Mem != "" {
		f, err := os.Create(o.Mem)
		if err != nil {
			return &usageError{err: fmt.Errorf("--memprofile: %w", err)}
		}
		defer func() {
			runtime.GC() // the heap profile shows live data as of the last GC
			werr := pprof.WriteHeapProfile(f)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				err = errors.Join(err, fmt.Errorf("--memprofile %s: %w", o.Mem, werr))
			}
		}()
	}
	if o.MemPeak != "" {
		stop, err := watchPeak(o.MemPeak)
		if err != nil {
			return &usageError{err: fmt.Errorf("--memprofile-peak: %w", err)}
		}
		defer func() {
			if perr := stop(); perr != nil {
				err = errors.Join(err, fmt.Errorf("--memprofile-peak %s: %w", o.MemPeak, perr))
			}
		}()
	}
	return fn()
}
