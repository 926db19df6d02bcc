package main

import (
	"testing"
	"time"
)

func TestOccupancySegments(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var o occupancy
	// Run 1: two requests overlapping for half of a 200 ms span.
	o.move(at(0), 1)
	o.move(at(100), 1)
	o.move(at(150), -1)
	o.move(at(200), -1)
	// A gap of 100 ms is within one run (a slow claim, not a new run).
	o.move(at(300), 1)
	o.move(at(400), -1)
	// After an idle second, run 2: four requests at once for 100 ms.
	for range 4 {
		o.move(at(1400), 1)
	}
	for range 4 {
		o.move(at(1500), -1)
	}
	// Run 1: area 0-100 x1, 100-150 x2, 150-200 x1, 200-300 x0, 300-400 x1 =
	// 100+100+50+0+100 = 350 ms over 400 ms.
	want := "in flight, per run (first request to last answer): mean 0.9, peak 2 over 0.40 s; mean 4.0, peak 4 over 0.10 s"
	if got := o.summary(); got != want {
		t.Fatalf("summary:\n got %s\nwant %s", got, want)
	}
}
