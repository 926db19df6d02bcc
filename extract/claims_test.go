package extract_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/invx/invx/extract"
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
	docs := make([]extract.Found, n)
	for i := range docs {
		docs[i] = doc(fmt.Sprintf("inv-%02d.txt", i), sourceText+fmt.Sprintf("Ref %d\n", i))
	}
	s := runDocs(t, r, docs...)
	if s.CommittedNow != n || s.Final.Succeeded != n {
		t.Fatalf("committed %d, %d succeeded; want %d each", s.CommittedNow, s.Final.Succeeded, n)
	}
	// One may: a claim that leased exactly the last jobs cannot tell the
	// queue is empty, so the next one finds out.
	if got := cs.empty.Load(); got > 1 {
		t.Errorf("%d claims leased nothing (%d leased jobs), want at most 1", got, cs.claims.Load())
	}
}
