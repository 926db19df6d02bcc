package jobs

import (
	"testing"
	"time"
)

// gatherWith runs gather on a committer whose reqs channel is fed by a
// sender of send commits, one after another (each send waits for its
// receive, as the committer's unbuffered hand-over does), the first after
// delay, and returns the group size. Linger and the step between
// arrivals are a minute: a group that stops early did so because it was
// full, not lingering, or closed, never because a timer ran out under load.
func gatherWith(t *testing.T, maxGroup, send int, delay time.Duration, linger, closeAfter bool) int {
	t.Helper()
	g := &committer{cfg: CommitConfig{MaxGroup: maxGroup, Linger: time.Minute}, reqs: make(chan *commitReq), quit: make(chan struct{})}
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		time.Sleep(delay)
		for range send {
			select {
			case g.reqs <- &commitReq{}:
			case <-time.After(2 * time.Second):
				return // nobody took it: the group was written without it
			}
		}
		if closeAfter {
			close(g.quit)
		}
	}()
	step := time.Duration(0)
	if linger {
		step = time.Minute
	}
	n := len(g.gather([]*commitReq{{}}, time.Now(), step))
	<-sent
	return n
}

// A group that lingers waits for commits still arriving, up to MaxGroup;
// one that does not is written at once.
func TestGatherLingersAfterCrowdedGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		maxGroup, send int
		delay          time.Duration
		linger, close  bool
		want           int
	}{
		// Each send is received one at a time, the first well after the
		// group was started: only lingering collects them.
		{"lingers until full", 4, 3, 300 * time.Millisecond, true, false, 4},
		// A commit that arrives after the group started waits for the
		// next group.
		{"no linger: written at once", 4, 1, 300 * time.Millisecond, false, false, 1},
		// Closing ends the wait: the group in hand is written at once.
		{"close ends the wait", 8, 2, 0, true, true, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := gatherWith(t, tc.maxGroup, tc.send, tc.delay, tc.linger, tc.close); got != tc.want {
				t.Errorf("group of %d, want %d", got, tc.want)
			}
		})
	}
}

// A group waits for more commits only while they arrive close together:
// the step is lingerGaps mean gaps, and nothing when that exceeds Linger
// (one call at a time: a lone commit is not held back) or no gap is known.
func TestLingerStepFollowsArrivals(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name     string
		linger   time.Duration
		arrivals []time.Duration // offsets from a start
		want     time.Duration
	}{
		{"first commit: no gap known", 50 * ms, []time.Duration{0}, 0},
		{"steady stream", 50 * ms, []time.Duration{0, 3 * ms, 6 * ms, 9 * ms}, lingerGaps * 3 * ms},
		{"one call at a time", 50 * ms, []time.Duration{0, 200 * ms, 400 * ms}, 0},
		{"grouping off", -1, []time.Duration{0, ms, 2 * ms}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := &committer{cfg: CommitConfig{Linger: tc.linger}}
			t0 := time.Unix(1000, 0)
			for _, d := range tc.arrivals {
				g.arrived(t0.Add(d))
			}
			if got := g.step(); got != tc.want {
				t.Errorf("step %v, want %v", got, tc.want)
			}
		})
	}
}
