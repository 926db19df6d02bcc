package extract_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/store"
)

// claimCounter counts the claims that leased something, and those that
// leased nothing (empty): each is a write transaction spent to find an
// empty queue.
type claimCounter struct {
	store.Store
	claims, empty atomic.Int64
}

func (c *claimCounter) Claim(ctx context.Context, p *store.ClaimParams) ([]*store.Lease, error) {
	ls, err := c.Store.Claim(ctx, p)
	switch {
	case len(ls) > 0:
		c.claims.Add(1)
	case err == nil:
		c.empty.Add(1)
	}
	return ls, err
}

// peakCalls is a provider that answers validAnswer after a short call and
// records the most calls it saw at once.
type peakCalls struct {
	mu         sync.Mutex
	now, peak  int
	calls      int
	onCall     func(n int)
	callLength time.Duration
}

func (p *peakCalls) Name() string { return "fake" }

func (p *peakCalls) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	p.mu.Lock()
	p.now++
	p.calls++
	n := p.calls
	p.peak = max(p.peak, p.now)
	p.mu.Unlock()
	if p.onCall != nil {
		p.onCall(n)
	}
	time.Sleep(p.callLength)
	p.mu.Lock()
	p.now--
	p.mu.Unlock()
	return answer(validAnswer), nil
}

func docsN(n int) []extract.Found {
	docs := make([]extract.Found, n)
	for i := range docs {
		docs[i] = extracttest.Doc(fmt.Sprintf("%03d.txt", i), fmt.Sprintf("%s%d\n", sourceText, i))
	}
	return docs
}

// Jobs are leased ahead of the provider slots, so one claim transaction
// leases many jobs, while no more calls than --concurrency run at once.
func TestReadAheadLeasesManyPerClaim(t *testing.T) {
	t.Parallel()
	const n = 240
	e := extracttest.New(t)
	st := &claimCounter{Store: e.Store}
	p := &peakCalls{callLength: time.Millisecond}
	r := e.Runner(p)
	r.Store, r.Concurrency = st, 4
	s, err := e.Run(t, r, docsN(n)...)
	if err != nil {
		t.Fatal(err)
	}
	if s.CommittedNow != n || e.Results(t) != n {
		t.Fatalf("committed %d (results %d), want %d", s.CommittedNow, e.Results(t), n)
	}
	// Half the read-ahead (16) per claim, and the first claim takes 36.
	if c := st.claims.Load(); c > n/16+2 {
		t.Errorf("%d claims leased %d jobs: want about one per %d", c, n, extract.DefaultReadAhead(4)/2)
	}
	if p.peak != 4 {
		t.Errorf("at most %d calls ran at once, want exactly --concurrency 4", p.peak)
	}
	if c := e.Count(t, `SELECT count(*) FROM attempts`); c != n {
		t.Errorf("attempt rows = %d, want one per document (%d)", c, n)
	}
}

// When the run stops (here: interrupted), the jobs leased ahead and not
// yet called go back to the queue at once: not left running, not counted
// as attempts, and with their attempt budget whole.
func TestStoppedRunGivesBackJobsLeasedAhead(t *testing.T) {
	t.Parallel()
	const n = 40
	e := extracttest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	p := &peakCalls{onCall: func(n int) {
		if n == 3 {
			cancel()
		}
	}}
	r := e.Runner(p)
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	docs := docsN(n)
	if err := r.Enqueue(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := r.Work(ctx); err != nil {
		t.Fatalf("interrupted work: %v", err)
	}
	if c := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'running'`); c != 0 {
		t.Fatalf("running jobs after the interrupt = %d", c)
	}
	made := e.Count(t, `SELECT count(*) FROM attempts WHERE outcome <> 'not_started'`)
	if made != p.calls {
		t.Errorf("attempts recorded as made = %d, provider calls = %d", made, p.calls)
	}
	if c := e.Count(t, `SELECT count(*) FROM attempts WHERE outcome = 'not_started'`); c == 0 {
		t.Errorf("no job was given back: the test no longer covers read-ahead")
	}
	if c := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'queued' AND attempts - budget_base <> 0`); c != 0 {
		t.Errorf("%d queued jobs spent attempt budget without a call", c)
	}
	runDocs(t, e.Runner(p), docs...)
	if c := e.Results(t); c != n {
		t.Fatalf("results after the rerun = %d, want %d", c, n)
	}
	if c := e.Count(t, `SELECT count(*) FROM jobs WHERE attempts - budget_base <> 1`); c != 0 {
		t.Errorf("%d jobs used more than one attempt of their budget", c)
	}
}

// keyRecorder answers validAnswer and records the job keys in call order.
type keyRecorder struct {
	mu   sync.Mutex
	keys []string
}

func (p *keyRecorder) Name() string { return "fake" }

func (p *keyRecorder) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	p.mu.Lock()
	p.keys = append(p.keys, req.JobKey)
	p.mu.Unlock()
	return answer(validAnswer), nil
}

// With one provider slot, jobs leased ahead are still called one by one in
// the order they were queued, whichever worker reaches the slot first, and
// committed in that order (the slot is held until the commit is handed
// over), so result and event ids follow the queue.
func TestOneSlotCallsInQueueOrder(t *testing.T) {
	t.Parallel()
	e := extracttest.New(t)
	p := &keyRecorder{}
	r := e.Runner(p)
	if _, err := e.Run(t, r, docsN(120)...); err != nil {
		t.Fatal(err)
	}
	want := e.Strings(t, `SELECT lower(hex(job_key)) FROM jobs ORDER BY id`)
	if len(p.keys) != len(want) {
		t.Fatalf("%d calls, want %d", len(p.keys), len(want))
	}
	for i := range want {
		if p.keys[i] != want[i] {
			t.Fatalf("call %d was job %.8s, want %.8s: calls left queue order", i, p.keys[i], want[i])
		}
	}
	committed := e.Strings(t, `SELECT lower(hex(job_key)) FROM results ORDER BY id`)
	for i := range want {
		if committed[i] != want[i] {
			t.Fatalf("result %d is job %.8s, want %.8s: commits left queue order", i, committed[i], want[i])
		}
	}
}
