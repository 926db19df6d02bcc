package extract_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/store"
)

// waitOrFail fails the test if ch is not ready in a long while: a hang, not a
// timing assertion.
func waitOrFail(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s never happened", what)
	}
}

// pendingSeen signals the first time Work reads the queue's size.
type pendingSeen struct {
	store.Store
	once sync.Once
	seen chan struct{}
}

func (p *pendingSeen) Pending(ctx context.Context, q *store.PendingParams) (*store.PendingInfo, error) {
	info, err := p.Store.Pending(ctx, q)
	p.once.Do(func() { close(p.seen) })
	return info, err
}

// With an enqueue running beside it (Feed), Work does not end on an empty
// queue: it waits for the enqueue's batches, calls the provider for each
// as it comes, and ends once the enqueue has ended, every document
// committed once.
func TestWorkWhileFeeding(t *testing.T) {
	t.Parallel()
	e := extracttest.New(t)
	st := &pendingSeen{Store: e.Store, seen: make(chan struct{})}
	firstCall := make(chan struct{})
	p := &peakCalls{onCall: func(n int) {
		if n == 1 {
			close(firstCall)
		}
	}}
	r := e.Runner(p)
	r.Store = st
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	docs := docsN(30)
	done := r.Feed()
	worked := make(chan error, 1)
	go func() { worked <- r.Work(ctx) }()
	// Work has found the queue empty: only the feed keeps it waiting.
	waitOrFail(t, "Work reading the empty queue", st.seen)
	if err := r.Enqueue(ctx, docs[:10]); err != nil {
		t.Fatal(err)
	}
	waitOrFail(t, "a call before the second batch", firstCall)
	if err := r.Enqueue(ctx, docs[10:]); err != nil {
		t.Fatal(err)
	}
	done(nil)
	if err := <-worked; err != nil {
		t.Fatalf("work: %v", err)
	}
	if n := e.Results(t); n != 30 {
		t.Fatalf("results = %d, want 30: Work ended before the enqueue did", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM attempts`); n != 30 {
		t.Fatalf("attempts = %d, want 30", n)
	}
}

// An enqueue that fails stops Work as an interrupt does: the calls under
// way finish and commit, jobs leased ahead go back uncalled, nothing stays
// running.
func TestFeedFailureStopsWork(t *testing.T) {
	t.Parallel()
	e := extracttest.New(t)
	inCall, release := make(chan struct{}), make(chan struct{})
	p := &peakCalls{onCall: func(n int) {
		if n == 1 {
			close(inCall)
			<-release
		}
	}}
	r := e.Runner(p)
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	done := r.Feed()
	worked := make(chan error, 1)
	go func() { worked <- r.Work(ctx) }()
	if err := r.Enqueue(ctx, docsN(10)); err != nil {
		t.Fatal(err)
	}
	waitOrFail(t, "the first call", inCall)
	done(errors.New("walk failed"))
	close(release)
	if err := <-worked; err != nil {
		t.Fatalf("work after a failed enqueue: %v, want nil (the caller reports the walk's error)", err)
	}
	if p.calls != 1 {
		t.Errorf("provider calls = %d, want 1: no call may start after the enqueue failed", p.calls)
	}
	if n := e.Results(t); n != 1 {
		t.Errorf("results = %d, want the one call under way committed", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'running'`); n != 0 {
		t.Errorf("running jobs = %d", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'queued' AND attempts - budget_base = 0`); n != 9 {
		t.Errorf("queued with budget whole = %d, want 9", n)
	}
}
