package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

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
	// Trace is an execution trace (go tool trace): where goroutines wait,
	// which a CPU profile does not show. A run that uses fewer cores than
	// it has work for is waiting on something: the trace names it.
	Trace string
}

func addProfileFlags(fl *pflag.FlagSet, o *profileOptions) {
	fl.StringVar(&o.CPU, "cpuprofile", "", "write a CPU profile of the command to FILE (go tool pprof)")
	fl.StringVar(&o.Mem, "memprofile", "", "write a heap profile to FILE when the command ends (go tool pprof)")
	fl.StringVar(&o.MemPeak, "memprofile-peak", "", "write a heap profile to FILE each time the live heap reaches a new high (go tool pprof)")
	_ = fl.MarkHidden("cpuprofile")
	_ = fl.MarkHidden("memprofile")
	fl.StringVar(&o.Trace, "trace", "", "write an execution trace of the command to FILE (go tool trace)")
	_ = fl.MarkHidden("memprofile-peak")
	_ = fl.MarkHidden("trace")
}

// joinStop runs stop and adds its error to *err (fn's own error first).
func joinStop(err *error, stop func() error) {
	if serr := stop(); serr != nil {
		*err = errors.Join(*err, serr)
	}
}

// profiled runs fn under the profiles o asks for. A profile that cannot be
// written is a usage error before any work starts, or an error after it;
// fn's own error wins.
func profiled(o *profileOptions, fn func() error) (err error) {
	if o.CPU != "" {
		stop, rerr := record("--cpuprofile", o.CPU, pprof.StartCPUProfile, pprof.StopCPUProfile)
		if rerr != nil {
			return rerr
		}
		defer joinStop(&err, stop)
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
	if o.Trace != "" {
		stop, rerr := record("--trace", o.Trace, trace.Start, trace.Stop)
		if rerr != nil {
			return rerr
		}
		defer joinStop(&err, stop)
	}
	return fn()
}

// record starts a recording (a CPU profile, an execution trace) into a new
// file at path, named by flag in errors: a file that cannot be created or
// a recording that cannot start is a usage error. stop ends the recording
// and closes the file.
func record(flag, path string, start func(io.Writer) error, end func()) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, &usageError{err: fmt.Errorf("%s: %w", flag, err)}
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, &usageError{err: fmt.Errorf("%s %s: %w", flag, path, err)}
	}
	return func() error {
		end()
		if err := f.Close(); err != nil {
			return fmt.Errorf("%s %s: %w", flag, path, err)
		}
		return nil
	}, nil
}
