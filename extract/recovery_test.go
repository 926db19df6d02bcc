package extract_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/store"
)

// crashLeases enqueues d for tenant and lets n workers in a row lease it and
// die (each lease expires unrenewed), as SIGKILLed workers would: the job's
// next lease is its n-th recovery. It returns the time after the last lease
// expired.
func crashLeases(t *testing.T, e *extracttest.Env, r *extract.Runner, d extract.Found, n int, start time.Time) time.Time {
	t.Helper()
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Enqueue(ctx, []extract.Found{d}); err != nil {
		t.Fatal(err)
	}
	now := start
	for i := range n {
		ls, err := e.Store.Claim(ctx, &store.ClaimParams{Tenant: r.Tenant, Owner: fmt.Sprintf("killed-%d", i), RunID: "killed",
			Limit: 1, LeaseFor: time.Minute, Now: now})
		if err != nil || len(ls) != 1 {
			t.Fatalf("crashed claim %d: %d leases, %v", i, len(ls), err)
		}
		now = now.Add(2 * time.Minute)
	}
	return now
}

func transientAlways() *fakeProvider {
	return &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) {
		return nil, &extract.ProviderError{Class: extract.ClassTransient, Status: 503, Msg: "overloaded"}
	}}
}

// Lease recoveries after crashes do not use up --max-attempts (issue 10,
// item 14): after four crashed holders the job still gets its full three
// provider attempts, and fails for them, not for the crashes.
func TestRecoveriesDoNotUseTheAttemptBudget(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := transientAlways()
	r := newRunner(e, p, "acme")
	// One worker: with a free slot the runner polls, and every poll moves
	// the fake clock on, past the lease of the call in flight.
	r.Concurrency, r.MaxAttempts, r.MaxRecoveries = 1, 3, 10
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clock := extracttest.NewFakeClock(crashLeases(t, e, r, doc("a.txt", sourceText), 4, start))
	clock.Use(r)
	if err := r.Work(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := p.calls.Load(); n != 3 {
		t.Fatalf("provider calls = %d, want 3 (--max-attempts)", n)
	}
	var got []string
	for _, a := range e.Attempts(t) {
		got = append(got, a.Outcome+"/"+a.Class)
	}
	want := []string{"lease_expired/", "lease_expired/", "lease_expired/", "lease_expired/",
		"retry/transient", "retry/transient", "failed/transient"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("attempts = %v, want %v", got, want)
	}
	if st := e.JobStates(t); fmt.Sprint(st) != "[failed]" {
		t.Fatalf("job states = %v", st)
	}
}

// A job whose lease keeps expiring fails with class lease_recoveries once
// it exceeds --max-recoveries, without a provider call.
func TestTooManyRecoveriesFailTheJob(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := alwaysValid()
	r := newRunner(e, p, "acme")
	r.Concurrency, r.MaxRecoveries = 1, 2
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	extracttest.NewFakeClock(crashLeases(t, e, r, doc("a.txt", sourceText), 3, start)).Use(r)
	if err := r.Work(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := r.Finish(context.Background(), start, "completed")
	if err != nil {
		t.Fatal(err)
	}
	if n := p.calls.Load(); n != 0 {
		t.Fatalf("provider calls = %d, want 0", n)
	}
	if s.FailedNow != 1 || s.Final.Failed != 1 {
		t.Fatalf("failed now %d, final failed %d; want 1 and 1", s.FailedNow, s.Final.Failed)
	}
	atts := e.Attempts(t)
	last := atts[len(atts)-1]
	if len(atts) != 4 || last.Outcome != store.OutcomeFailed || last.Class != extract.ClassLeaseRecoveries ||
		last.Message != "lease lost 3 times (--max-recoveries 2)" {
		t.Fatalf("attempts = %+v", atts)
	}
	if e.Results(t) != 0 {
		t.Fatal("a result was committed")
	}
}
