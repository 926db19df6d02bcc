package main

import (
	"bytes"
	"context"
	"runtime/trace"

	xtrace "golang.org/x/exp/trace"
	"testing"
	"time"
)

// Regions are paired on their goroutine, nested ones too, and summed by
// type, a nested one also under its path; a region the trace ends inside
// is left out.
func TestSumRegions(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 3 {
		outer := trace.StartRegion(ctx, "outer")
		inner := trace.StartRegion(ctx, "inner")
		time.Sleep(2 * time.Millisecond)
		inner.End()
		outer.End()
	}
	// A region that computes: its time is its goroutine's running.
	spin := trace.StartRegion(ctx, "spin")
	for end := time.Now().Add(3 * time.Millisecond); time.Now().Before(end); {
	}
	spin.End()
	done := make(chan struct{})
	go func() {
		defer close(done)
		trace.WithRegion(ctx, "inner", func() {})
	}()
	<-done
	open := trace.StartRegion(ctx, "unfinished")
	trace.Stop()
	open.End()

	sums, err := sumRegions(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]sum{}
	for _, s := range sums {
		got[s.Type] = s
	}
	if got["outer"].Count != 3 || got["inner"].Count != 4 || got["outer > inner"].Count != 3 {
		t.Fatalf("counts: outer %d, inner %d, outer > inner %d; want 3, 4 and 3 (%+v)", got["outer"].Count, got["inner"].Count,
			got["outer > inner"].Count, sums)
	}
	if _, ok := got["unfinished"]; ok {
		t.Errorf("a region the trace ended inside was counted: %+v", got["unfinished"])
	}
	if got["inner"].Total < 6*time.Millisecond || got["outer"].Total < got["inner"].Total-time.Millisecond {
		t.Errorf("totals: outer %v, inner %v; want inner >= 6ms, outer about as long", got["outer"].Total, got["inner"].Total)
	}
	// The sleeps are the inner regions' time, spent waiting; the spin's
	// is running.
	in, sp := got["inner"].States, got["spin"].States
	if in[xtrace.GoWaiting] < 5*time.Millisecond || in[xtrace.GoRunning] > in[xtrace.GoWaiting] {
		t.Errorf("inner: waiting %v, running %v; want the sleeps' 6ms as waiting", in[xtrace.GoWaiting], in[xtrace.GoRunning])
	}
	if sp[xtrace.GoRunning] < 2*time.Millisecond || sp[xtrace.GoWaiting] > time.Millisecond {
		t.Errorf("spin: running %v, waiting %v; want its 3ms as running", sp[xtrace.GoRunning], sp[xtrace.GoWaiting])
	}
	var split time.Duration
	for _, d := range got["outer"].States {
		split += d
	}
	if split != got["outer"].Total {
		t.Errorf("outer: states add up to %v, total %v", split, got["outer"].Total)
	}
	if sums[0].Type != "outer" && sums[0].Type != "inner" {
		t.Errorf("first row %q, want the largest total first", sums[0].Type)
	}
}
