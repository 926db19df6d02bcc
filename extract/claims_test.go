package extract_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/store"
)

// Once a claim leased fewer jobs than it asked for, the queue is empty:
// the jobs still in flight finishing one by one must not each start a
// claim that finds nothing (at the tail of a c256 run, hundreds of write
// transactions). The poll timer is an hour, so only a finished job could
// start such a claim here.
func TestFinishedJobsDoNotClaimAnEmptyQueue(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cs := &claimCounter{Store: e.Store}
	r := newRunner(e, alwaysValid(), "default")
	r.Store, r.Concurrency, r.ReadAhead, r.PollInterval = cs, 4, 4, time.Hour
	const n = 40
	runAllCommitted(t, r, n)
	// One may: a claim that leased exactly the last jobs cannot tell the
	// queue is empty, so the next one finds out.
	if got := cs.empty.Load(); got > 1 {
		t.Errorf("%d claims leased nothing (%d leased jobs), want at most 1", got, cs.claims.Load())
	}
}

// While every provider slot has a job, the runner claims again only once
// the whole read-ahead has been taken up: each claim is a write
// transaction and an fsync whatever it leases, so a fast provider must not
// turn the read-ahead into a claim per few finished jobs. Every claim then
// leases at least ReadAhead jobs (the first ReadAhead+1), so n documents
// take at most n/ReadAhead claims that lease something.
func TestClaimsLeaseTheWholeReadAhead(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cs := &claimCounter{Store: e.Store}
	r := newRunner(e, alwaysValid(), "default")
	const n, readAhead = 64, 8
	r.Store, r.Concurrency, r.ReadAhead, r.PollInterval = cs, 1, readAhead, time.Hour
	runAllCommitted(t, r, n)
	if got := cs.claims.Load(); got > n/readAhead {
		t.Errorf("%d claims leased jobs for %d documents, want at most %d (a claim per %d leased ahead)",
			got, n, n/readAhead, readAhead)
	}
}

// commitHolder hands each commit over and then holds it, as a long group
// transaction would, until want commits are held at once (or the wait
// times out); then it lets them all through to the real store.
type commitHolder struct {
	store.Store
	want     int
	mu       sync.Mutex
	held     int
	peak     int
	released bool
	release  chan struct{}
}

func (c *commitHolder) Commit(ctx context.Context, p *store.CommitParams) (*store.CommitResult, error) {
	if p.HandedOver != nil {
		p.HandedOver()
	}
	c.mu.Lock()
	c.held++
	c.peak = max(c.peak, c.held)
	if c.held == c.want && !c.released {
		// Once: commits arriving after the release may bring the count
		// back to want while the first ones are still leaving.
		c.released = true
		close(c.release)
	}
	c.mu.Unlock()
	select {
	case <-c.release:
	case <-time.After(5 * time.Second):
	}
	c.mu.Lock()
	c.held--
	c.mu.Unlock()
	return c.Store.Commit(ctx, p)
}

// A job whose commit is handed to the group commit no longer holds its
// place in flight: while commits wait for their group's transaction, the
// runner claims and calls the next jobs, so a group can gather more
// commits than Concurrency + ReadAhead. Were the places held until the
// commit returned, one provider slot and nothing leased ahead would let
// one commit wait at a time.
func TestHandedOverCommitsFreeTheirPlace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	const n, want = 12, 8
	ch := &commitHolder{Store: e.Store, want: want, release: make(chan struct{})}
	r := newRunner(e, alwaysValid(), "default")
	r.Store, r.Concurrency, r.ReadAhead = ch, 1, -1
	runAllCommitted(t, r, n)
	if got := e.Results(t); got != n {
		t.Fatalf("%d results, want %d", got, n)
	}
	if ch.peak < want {
		t.Errorf("at most %d commits waited at once, want %d: a job waiting for its commit kept its place", ch.peak, want)
	}
}

// runAllCommitted runs n distinct documents through r and fails unless
// each was committed and succeeded.
func runAllCommitted(t *testing.T, r *extract.Runner, n int) {
	t.Helper()
	docs := make([]extract.Found, n)
	for i := range docs {
		docs[i] = doc(fmt.Sprintf("inv-%03d.txt", i), sourceText+fmt.Sprintf("Ref %d\n", i))
	}
	s := runDocs(t, r, docs...)
	if s.CommittedNow != n || s.Final.Succeeded != n {
		t.Fatalf("committed %d, %d succeeded; want %d each", s.CommittedNow, s.Final.Succeeded, n)
	}
}
