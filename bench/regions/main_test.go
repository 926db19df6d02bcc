package main

import (
	"bytes"
	"context"
	"runtime/trace"
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
	if sums[0].Type != "outer" && sums[0].Type != "inner" {
		t.Errorf("first row %q, want the largest total first", sums[0].Type)
	}
}
