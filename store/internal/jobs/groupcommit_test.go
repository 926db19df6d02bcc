package jobs

import (
	"testing"
	"time"
)

// gatherWith runs gather on a committer whose reqs channel is fed by a
// sender of send commits, one after another (each send waits for its
// receive, as the committer's unbuffered hand-over does), the first after
// delay, and returns the group size. Linger is a minute: a group that
// stops early did so because it was full, not lingering, or closed, never
// because a timer ran out under load.
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
	n := len(g.gather([]*commitReq{{}}, linger))
	<-sent
	return n
}

// A group that follows a crowded one waits for commits still arriving, up
// to MaxGroup; one that follows a lone commit is written at once.
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
		{"no linger after a lone commit", 4, 1, 300 * time.Millisecond, false, false, 1},
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
