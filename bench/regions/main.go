// Command regions sums the user regions of a Go execution trace: how many
// of each region type, their total, mean and longest duration. invx names
// its store's write transactions as regions (invx.store.*, and
// invx.sqlite.write_lock_held for the time SQLite's one write lock was
// held), so
//
//	invx run --trace run.trace DIR
//	go run ./bench/regions run.trace
//
// says where a run bound by its store spent the writer. A region begun
// inside another on its goroutine is counted under both names, as
// "outer > inner": "invx.store.claim > invx.sqlite.write_lock_held" is the
// time claims held the lock, and the claims' total less that is the time
// they waited for it.
//
// Each region's time is also split by what its goroutine was doing:
// running on a CPU, in a system call, runnable (waiting for a CPU) or
// waiting (blocked: a channel, a lock, a sleep). For the lock region that
// says whether the writer was computing, writing to the disk, or held the
// lock while the scheduler ran something else.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"
	"time"

	"golang.org/x/exp/trace"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: regions TRACE")
		os.Exit(2)
	}
	sums, err := sumFile(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "regions: %v\n", err)
		os.Exit(1)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "region\tcount\ttotal s\tmean ms\tmax ms\trunning s\tsyscall s\trunnable s\twaiting s\t")
	for _, s := range sums {
		fmt.Fprintf(w, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", s.Type, s.Count, s.Total.Seconds(),
			float64(s.Total.Microseconds())/float64(s.Count)/1000, float64(s.Max.Microseconds())/1000,
			s.States[trace.GoRunning].Seconds(), s.States[trace.GoSyscall].Seconds(), s.States[trace.GoRunnable].Seconds(),
			s.States[trace.GoWaiting].Seconds())
	}
	w.Flush()
}

// sum is what one region type added up to.
type sum struct {
	Type       string
	Count      int
	Total, Max time.Duration
	// States splits Total by the state of the region's goroutine.
	States map[trace.GoState]time.Duration
}

func sumFile(path string) ([]sum, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sumRegions(f)
}

// sumRegions pairs each region's begin with its end (regions nest on
// their goroutine) and sums the durations by type, and a nested region's
// also by its path ("outer > inner"), largest total first. A region still
// open when the trace ends is not counted.
func sumRegions(r io.Reader) ([]sum, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	type open struct {
		typ, path string
		at        trace.Time
		states    map[trace.GoState]time.Duration
	}
	// g is a goroutine's state since when, and the regions open on it.
	type g struct {
		state trace.GoState
		since trace.Time
		open  []*open
	}
	gs := map[trace.GoID]*g{}
	// at returns goroutine id's record with the time since its last
	// change charged to each region open on it. One first seen emitting a
	// region event is running.
	at := func(id trace.GoID, t trace.Time) *g {
		x := gs[id]
		if x == nil {
			x = &g{state: trace.GoRunning, since: t}
			gs[id] = x
		}
		for _, o := range x.open {
			o.states[x.state] += t.Sub(x.since)
		}
		x.since = t
		return x
	}
	by := map[string]*sum{}
	for {
		ev, err := tr.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read trace: %w", err)
		}
		switch ev.Kind() {
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			_, to := st.Goroutine()
			at(st.Resource.Goroutine(), ev.Time()).state = to
		case trace.EventRegionBegin:
			x := at(ev.Goroutine(), ev.Time())
			typ := ev.Region().Type
			path := typ
			if len(x.open) > 0 {
				path = x.open[len(x.open)-1].path + " > " + typ
			}
			x.open = append(x.open, &open{typ, path, ev.Time(), map[trace.GoState]time.Duration{}})
		case trace.EventRegionEnd:
			x := at(ev.Goroutine(), ev.Time())
			if len(x.open) == 0 || x.open[len(x.open)-1].typ != ev.Region().Type {
				continue // begun before the trace started
			}
			o := x.open[len(x.open)-1]
			x.open = x.open[:len(x.open)-1]
			d := ev.Time().Sub(o.at)
			keys := []string{o.typ}
			if o.path != o.typ {
				keys = append(keys, o.path)
			}
			for _, k := range keys {
				s := by[k]
				if s == nil {
					s = &sum{Type: k, States: map[trace.GoState]time.Duration{}}
					by[k] = s
				}
				s.Count++
				s.Total += d
				s.Max = max(s.Max, d)
				for st, sd := range o.states {
					s.States[st] += sd
				}
			}
		}
	}
	out := make([]sum, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Total != out[j].Total {
			return out[i].Total > out[j].Total
		}
		return out[i].Type < out[j].Type
	})
	return out, nil
}
