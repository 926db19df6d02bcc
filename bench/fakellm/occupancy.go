package main

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// idleGap is how long the fake must hold no request before the next one
// starts a new segment: the rows of bench/run.sh are separate invx runs
// against one fake, with an invx start-up and finish between them.
const idleGap = 250 * time.Millisecond

// occupancy measures how many requests the fake held at once over time,
// so a benchmark row that falls short of concurrency / latency says where:
// a low mean over the busy span means the client kept too few calls in
// flight; a busy span much shorter than the row's wall time means start-up
// and the finish, not the calls.
type occupancy struct {
	mu       sync.Mutex
	since    time.Time // last change of inFlight
	inFlight int
	cur      *segment
	done     []segment
}

// segment is one stretch of traffic without an idle gap.
type segment struct {
	first, last time.Time // first arrival, last departure
	peak        int
	area        time.Duration // integral of inFlight over time
}

func (o *occupancy) move(now time.Time, d int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cur != nil && o.inFlight == 0 && d > 0 && now.Sub(o.since) > idleGap {
		o.done = append(o.done, *o.cur)
		o.cur = nil
	}
	if o.cur == nil {
		o.cur = &segment{first: now}
	} else {
		o.cur.area += time.Duration(o.inFlight) * now.Sub(o.since)
	}
	o.since = now
	o.inFlight += d
	o.cur.peak = max(o.cur.peak, o.inFlight)
	if d < 0 {
		o.cur.last = now
	}
}

// enter and leave bracket one request, from its body read to its answer.
func (o *occupancy) enter() { o.move(time.Now(), 1) }
func (o *occupancy) leave() { o.move(time.Now(), -1) }

// summary is one line for the fake's exit report, a clause per segment.
func (o *occupancy) summary() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	segs := o.done
	if o.cur != nil {
		segs = append(segs, *o.cur)
	}
	if len(segs) == 0 {
		return "in flight: no requests"
	}
	parts := make([]string, 0, len(segs))
	for _, s := range segs {
		span := s.last.Sub(s.first)
		mean := 0.0
		if span > 0 {
			mean = float64(s.area) / float64(span)
		}
		parts = append(parts, fmt.Sprintf("mean %.1f, peak %d over %.2f s", mean, s.peak, span.Seconds()))
	}
	return "in flight, per run (first request to last answer): " + strings.Join(parts, "; ")
}
