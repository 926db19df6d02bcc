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
	fmt.Fprintln(w, "region\tcount\ttotal s\tmean ms\tmax ms\t")
	for _, s := range sums {
		fmt.Fprintf(w, "%s\t%d\t%.3f\t%.3f\t%.3f\t\n", s.Type, s.Count, s.Total.Seconds(),
			float64(s.Total.Microseconds())/float64(s.Count)/1000, float64(s.Max.Microseconds())/1000)
	}
	w.Flush()
}

// sum is what one region type added up to.
type sum struct {
	Type       string
	Count      int
	Total, Max time.Duration
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
	}
	stacks := map[trace.GoID][]open{}
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
		case trace.EventRegionBegin:
			g := ev.Goroutine()
			typ := ev.Region().Type
			path := typ
			if st := stacks[g]; len(st) > 0 {
				path = st[len(st)-1].path + " > " + typ
			}
			stacks[g] = append(stacks[g], open{typ, path, ev.Time()})
		case trace.EventRegionEnd:
			g := ev.Goroutine()
			st := stacks[g]
			if len(st) == 0 || st[len(st)-1].typ != ev.Region().Type {
				continue // begun before the trace started
			}
			o := st[len(st)-1]
			stacks[g] = st[:len(st)-1]
			d := ev.Time().Sub(o.at)
			keys := []string{o.typ}
			if o.path != o.typ {
				keys = append(keys, o.path)
			}
			for _, k := range keys {
				s := by[k]
				if s == nil {
					s = &sum{Type: k}
					by[k] = s
				}
				s.Count++
				s.Total += d
				s.Max = max(s.Max, d)
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
