package extract_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// Issue 12: runner paths that a deliberate breakage did not make any test
// fail. Each test names the production line it guards.

// testVersion is a schema version this binary does not release: the name
// is all Begin, Enqueue and the job key use, so a runner configured with it
// keys and enqueues like a runner of a future version (invoice-v2) would.
// It cannot validate or hash a prompt: a job must never be worked under it
// unless it was keyed with it.
var testVersion = &schema.Version{Name: "invoice-test-v0"}

// The job key of one text under two schema versions: pinned, computed
// outside Go (sha256 of "default\0invoice-summary\0<version>\0<digest>"),
// so a key derivation that drops or fixes the version fails here.
func TestJobKeyIncludesSchemaVersion(t *testing.T) {
	t.Parallel()
	const digest = "496183b1acf7c67fa0360bebf9fde85de1399b3a06ae7cbb6c70f46872ca7e5a" // "Invoice 1\n"
	if got := extract.Digest("Invoice 1\n"); got != digest {
		t.Fatalf("digest = %s, want %s", got, digest)
	}
	tests := []struct{ version, want string }{
		{"invoice-summary-v1", "cbb7973a480ed8d749be34e0481c00db0d2e5694e480e52acd276152b473e231"},
		{"invoice-v2", "72ab4e623437661b403f275b2865742907c1f2a14823e5c7f67d3ca6758275c9"},
	}
	for _, tt := range tests {
		got, err := extract.JobKey("default", extract.Transformation, tt.version, digest)
		if err != nil {
			t.Fatalf("job key under %s: %v", tt.version, err)
		}
		if got != tt.want {
			t.Errorf("job key under %s = %s, want %s", tt.version, got, tt.want)
		}
	}
}

// A runner keys and enqueues under its own schema version: the same text
// enqueued by a v1 runner and by a runner of another version is two jobs,
// each carrying its version.
func TestEnqueueKeysUnderTheRunnersSchema(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	d := doc("a.txt", sourceText)
	for _, v := range []*schema.Version{extracttest.V1(), testVersion} {
		r := newRunner(e, alwaysValid(), "default")
		r.Schema = v
		if err := r.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if err := r.Enqueue(ctx, []extract.Found{d}); err != nil {
			t.Fatal(err)
		}
		want, err := extract.JobKey("default", extract.Transformation, v.Name, d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Keys(); len(got) != 1 || got[0] != want {
			t.Fatalf("%s runner enqueued keys %v, want [%s]", v.Name, got, want)
		}
		if n := e.Count(t, `SELECT count(*) FROM jobs WHERE lower(hex(job_key)) = ? AND schema_version = ?`, want, v.Name); n != 1 {
			t.Fatalf("jobs keyed %s under %s = %d, want 1", want[:12], v.Name, n)
		}
	}
	if n := e.Count(t, `SELECT count(*) FROM jobs`); n != 2 {
		t.Fatalf("jobs = %d, want 2 (one per schema version)", n)
	}
}

// A leased job is worked under the version it was keyed with (the lease
// carries it), never under the runner's: a v1 job left in the queue is
// still a v1 job for an invoice-v2 runner, and a job keyed by a version
// this binary lacks fails instead of being answered as another version.
func TestLeasedJobWorkedUnderItsOwnSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		keyedWith, worker  *schema.Version
		wantCalls          int64
		wantState, wantMsg string
	}{
		{"v1 job, runner on another version", extracttest.V1(), testVersion, 1, store.StateSucceeded, ""},
		{"job of a version this binary lacks, v1 runner", testVersion, extracttest.V1(), 0, store.StateFailed,
			"unknown schema version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			ctx := context.Background()
			var mu sync.Mutex
			var asked []string
			p := &fakeProvider{ExtractFunc: func(_ int64, req *extract.Request) (*extract.Response, error) {
				mu.Lock()
				asked = append(asked, req.Schema.Name)
				mu.Unlock()
				return answer(validAnswer), nil
			}}
			keyer := newRunner(e, p, "default")
			keyer.Schema = tt.keyedWith
			if err := keyer.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if err := keyer.Enqueue(ctx, []extract.Found{doc("a.txt", sourceText)}); err != nil {
				t.Fatal(err)
			}
			w := newRunner(e, p, "default")
			w.Schema = tt.worker
			if err := w.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if err := w.Work(ctx); err != nil {
				t.Fatalf("work: %v", err)
			}
			if p.calls.Load() != tt.wantCalls {
				t.Fatalf("provider calls = %d, want %d", p.calls.Load(), tt.wantCalls)
			}
			for _, name := range asked {
				if name != tt.keyedWith.Name {
					t.Errorf("provider asked for %s, want %s (the job's version)", name, tt.keyedWith.Name)
				}
			}
			if st := e.JobStates(t); fmt.Sprint(st) != "["+tt.wantState+"]" {
				t.Fatalf("job states = %v, want [%s]", st, tt.wantState)
			}
			if tt.wantState == store.StateSucceeded {
				if n := e.Count(t, `SELECT count(*) FROM results WHERE schema_version = ?`, tt.keyedWith.Name); n != 1 {
					t.Fatalf("results under %s = %d, want 1", tt.keyedWith.Name, n)
				}
				return
			}
			atts := e.Attempts(t)
			if len(atts) != 1 || atts[0].Class != string(extract.ClassPermanent) || !strings.Contains(atts[0].Message, tt.wantMsg) {
				t.Fatalf("attempts = %+v, want one permanent failure saying %q", atts, tt.wantMsg)
			}
			if e.Results(t) != 0 {
				t.Fatal("a result was committed under another version")
			}
		})
	}
}

// An interrupted provider call (Ctrl-C reached the call: a command
// provider's child got the same SIGINT) gives the job back, queued with an
// attempt released/interrupted, instead of scheduling a retry; Work reports
// no error, and Finish records the run as interrupted although ctx is
// cancelled.
func TestInterruptedCallReleasesTheJob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
	}{
		{"context canceled", context.Canceled},
		{"provider error", &extract.ProviderError{Class: extract.ClassInterrupted, Msg: "interrupted", Err: context.Canceled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := &fakeProvider{ExtractFunc: func(n int64, _ *extract.Request) (*extract.Response, error) {
				if n == 1 {
					cancel()
					return nil, tt.err
				}
				return answer(validAnswer), nil
			}}
			r := newRunner(e, p, "default")
			r.Concurrency = 1
			d := doc("a.txt", sourceText)
			if err := r.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if err := r.Enqueue(ctx, []extract.Found{d}); err != nil {
				t.Fatal(err)
			}
			started := time.Now()
			werr := r.Work(ctx)
			if werr != nil {
				t.Fatalf("work after an interrupted call: %v, want nil", werr)
			}
			status := extract.RunStatus(ctx, werr)
			if status != "interrupted" {
				t.Fatalf("run status = %q, want interrupted", status)
			}
			// ctx is cancelled: Finish must still read the jobs and write
			// the run.
			s, err := r.Finish(ctx, started, status)
			if err != nil {
				t.Fatalf("finish with a cancelled context: %v", err)
			}
			if s.Status != "interrupted" || s.Retried != 0 || s.Final.Unfinished != 1 {
				t.Fatalf("summary: status %q retried %d unfinished %d, want interrupted, 0, 1", s.Status, s.Retried, s.Final.Unfinished)
			}
			if n := e.Count(t, `SELECT count(*) FROM runs WHERE id = ? AND status = 'interrupted' AND finished_at IS NOT NULL
				AND summary IS NOT NULL`, r.RunID); n != 1 {
				t.Fatalf("interrupted run rows = %d, want 1", n)
			}
			if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'queued' AND next_attempt_at IS NULL
				AND lease_owner IS NULL`); n != 1 {
				t.Fatalf("jobs given back = %d, want 1 (queued, no retry time, no lease); states %v", n, e.JobStates(t))
			}
			atts := e.Attempts(t)
			if len(atts) != 1 || atts[0].Outcome != store.OutcomeReleased || atts[0].Class != string(extract.ClassInterrupted) {
				t.Fatalf("attempts = %+v, want one released/interrupted", atts)
			}
			// A rerun carries on: one more call, one result.
			runDocs(t, newRunner(e, p, "default"), d)
			if e.Results(t) != 1 || p.calls.Load() != 2 {
				t.Fatalf("after rerun: results %d calls %d, want 1 and 2", e.Results(t), p.calls.Load())
			}
		})
	}
}

// spend gives key's job k provider attempts that ended in a transient
// failure, as an earlier run with a larger --max-attempts would have, and
// returns when its retry is due.
func spend(t *testing.T, e *extracttest.Env, k int, now time.Time) time.Time {
	t.Helper()
	ctx := context.Background()
	for i := range k {
		ls, err := e.Store.Claim(ctx, &store.ClaimParams{Tenant: "default", Owner: "earlier", RunID: "earlier",
			Limit: 1, LeaseFor: time.Minute, Now: now})
		if err != nil || len(ls) != 1 {
			t.Fatalf("claim %d: %d leases, %v", i, len(ls), err)
		}
		l := ls[0]
		if err := e.Store.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
			State: store.StateRetryWait, NextAttemptAt: now.Add(time.Second),
			Attempt: store.AttemptInfo{Outcome: store.OutcomeRetry, ErrorClass: string(extract.ClassTransient)}, Now: now}); err != nil {
			t.Fatalf("finish attempt %d: %v", i, err)
		}
		now = now.Add(time.Minute)
	}
	return now
}

// --max-attempts N means exactly N provider attempts of a job, not N-1 or
// N+1, counting the attempts earlier runs made: the transient retry guard
// (failed), the repair guard and the loop's own guard for a job whose
// budget was spent before this run.
func TestMaxAttemptsIsExact(t *testing.T) {
	t.Parallel()
	const n = 3
	transient := func() *fakeProvider { return transientAlways() }
	invalid := func() *fakeProvider {
		return &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) {
			return answer(`{"schema_version":"invoice-summary-v1","Title":"x"}`), nil
		}}
	}
	tests := []struct {
		name      string
		provider  func() *fakeProvider
		repair    int
		spent     int // attempts made by an earlier run
		wantCalls int64
		want      []string // every attempt, outcome/class
		wantState string
	}{
		{"transient", transient, 0, 0, n,
			[]string{"retry/transient", "retry/transient", "failed/transient"}, store.StateFailed},
		{"transient, one attempt spent before", transient, 0, 1, n - 1,
			[]string{"retry/transient", "retry/transient", "failed/transient"}, store.StateFailed},
		{"transient, all but one spent before", transient, 0, n - 1, 1,
			[]string{"retry/transient", "retry/transient", "failed/transient"}, store.StateFailed},
		{"transient, budget spent before", transient, 0, n, 0,
			[]string{"retry/transient", "retry/transient", "retry/transient", "failed/max_attempts"}, store.StateFailed},
		{"invalid answers, repairs to spare", invalid, 10, 0, n,
			[]string{"rejected/rejected", "rejected/rejected", "rejected/rejected"}, store.StateRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			p := tt.provider()
			r := newRunner(e, p, "default")
			r.Concurrency, r.MaxAttempts, r.Repair = 1, n, tt.repair
			ctx := context.Background()
			if err := r.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if err := r.Enqueue(ctx, []extract.Found{doc("a.txt", sourceText)}); err != nil {
				t.Fatal(err)
			}
			start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
			extracttest.NewFakeClock(spend(t, e, tt.spent, start)).Use(r)
			if err := r.Work(ctx); err != nil {
				t.Fatal(err)
			}
			if got := p.calls.Load(); got != tt.wantCalls {
				t.Errorf("provider calls = %d, want %d", got, tt.wantCalls)
			}
			var got []string
			for _, a := range e.Attempts(t) {
				got = append(got, a.Outcome+"/"+a.Class)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("attempts = %v, want %v", got, tt.want)
			}
			if st := e.JobStates(t); fmt.Sprint(st) != "["+tt.wantState+"]" {
				t.Errorf("job states = %v, want [%s]", st, tt.wantState)
			}
		})
	}
}

// The transient backoff grows with the attempt number, up to MaxBackoff:
// exponential with full jitter, each delay in (0, Backoff*2^(n-1)]. The
// delays are read back from the attempt rows (next_delay_ms). Jitter makes
// one job's delays unordered, so growth is asserted over many jobs.
func TestBackoffGrowsToItsCap(t *testing.T) {
	t.Parallel()
	const (
		jobs    = 30
		retries = 5
	)
	e := setup(t)
	p := transientAlways()
	r := newRunner(e, p, "default")
	r.Concurrency, r.MaxAttempts = 4, retries+1
	r.Backoff, r.MaxBackoff = 100*time.Millisecond, 800*time.Millisecond
	// Idle polls longer than any wait: each one jumps the fake clock
	// straight to the next retry time instead of creeping up on it.
	r.PollInterval = time.Second
	extracttest.NewFakeClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)).Use(r)
	var docs []extract.Found
	for i := range jobs {
		docs = append(docs, doc(fmt.Sprintf("%d.txt", i), fmt.Sprintf("%s%d\n", sourceText, i)))
	}
	runDocs(t, r, docs...)

	ms := time.Millisecond
	ceiling := []time.Duration{0, 100 * ms, 200 * ms, 400 * ms, 800 * ms, 800 * ms}
	largest := make([]time.Duration, retries+1)
	count := make([]int, retries+1)
	for _, a := range e.Attempts(t) {
		if a.Outcome != store.OutcomeRetry {
			continue
		}
		d := time.Duration(a.NextDelayMS) * time.Millisecond
		if a.No > retries || d > ceiling[a.No] {
			t.Fatalf("attempt %d waits %v, want at most %v", a.No, d, ceiling[a.No])
		}
		largest[a.No] = max(largest[a.No], d)
		count[a.No]++
	}
	for no := 1; no <= retries; no++ {
		if count[no] != jobs {
			t.Fatalf("retries after attempt %d = %d, want %d", no, count[no], jobs)
		}
	}
	// Growth: some job waited longer after attempt n than any job could
	// after attempt n-1. Each job draws from the upper half of its range
	// with probability 1/2, so all of them missing it is a 2^-jobs chance.
	for no := 2; no <= 4; no++ {
		if largest[no] <= ceiling[no-1] {
			t.Errorf("largest wait after attempt %d = %v, not above attempt %d's ceiling %v: the backoff does not grow",
				no, largest[no], no-1, ceiling[no-1])
		}
	}
}

// faultyStore is a real store whose chosen writes fail on demand, once
// each, as a database that errors mid-run would.
type faultyStore struct {
	store.Store
	mu   sync.Mutex
	fail map[string]error // method -> the error its next call returns
	// lost: method -> the error its next call returns after it landed (a
	// reply lost on the way back).
	lost map[string]error
}

var errInjected = errors.New("disk I/O error (injected)")

func (f *faultyStore) take(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.fail[method]
	delete(f.fail, method)
	return err
}

func (f *faultyStore) Commit(ctx context.Context, p *store.CommitParams) (*store.CommitResult, error) {
	if err := f.take("Commit"); err != nil {
		return nil, err
	}
	cr, err := f.Store.Commit(ctx, p)
	f.mu.Lock()
	defer f.mu.Unlock()
	if lost := f.lost["Commit"]; lost != nil && err == nil {
		delete(f.lost, "Commit")
		return nil, lost
	}
	return cr, err
}

func (f *faultyStore) Claim(ctx context.Context, p *store.ClaimParams) ([]*store.Lease, error) {
	if err := f.take("Claim"); err != nil {
		return nil, err
	}
	return f.Store.Claim(ctx, p)
}

func (f *faultyStore) Pending(ctx context.Context, p *store.PendingParams) (*store.PendingInfo, error) {
	if err := f.take("Pending"); err != nil {
		return nil, err
	}
	return f.Store.Pending(ctx, p)
}

func (f *faultyStore) JobStates(ctx context.Context, p *store.JobStatesParams) (map[string]store.JobState, error) {
	if err := f.take("JobStates"); err != nil {
		return nil, err
	}
	return f.Store.JobStates(ctx, p)
}

func (f *faultyStore) FinishAttempt(ctx context.Context, p *store.FinishAttemptParams) error {
	if err := f.take("FinishAttempt"); err != nil {
		return err
	}
	return f.Store.FinishAttempt(ctx, p)
}

func (f *faultyStore) NextAttempt(ctx context.Context, p *store.NextAttemptParams) (*store.NextAttemptResult, error) {
	if err := f.take("NextAttempt"); err != nil {
		return nil, err
	}
	return f.Store.NextAttempt(ctx, p)
}

// A store write that fails while a job is finished (commit, finish attempt,
// next attempt) stops the run with that error, naming the job, and leaves
// the job to its lease: nothing half-written, and a later worker recovers
// it once the lease has expired and commits it once.
func TestStoreFailureStopsTheRunAndLeavesTheJobToItsLease(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method string
		first  func() (*extract.Response, error) // the first call's answer
	}{
		{"Commit", func() (*extract.Response, error) { return answer(validAnswer), nil }},
		{"FinishAttempt", func() (*extract.Response, error) {
			return nil, &extract.ProviderError{Class: extract.ClassPermanent, Status: 400, Msg: "bad request"}
		}},
		{"NextAttempt", func() (*extract.Response, error) {
			return answer(`{"schema_version":"invoice-summary-v1","Title":"x"}`), nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			fs := &faultyStore{Store: e.Store, fail: map[string]error{tt.method: errInjected}}
			p := &fakeProvider{ExtractFunc: func(n int64, _ *extract.Request) (*extract.Response, error) {
				if n == 1 {
					return tt.first()
				}
				return answer(validAnswer), nil
			}}
			r := newRunner(e, p, "default")
			r.Store, r.Concurrency, r.Repair = fs, 1, 1
			// Waits move a fake clock: a runner that swallowed the error
			// would poll until the job's lease expired, then take it again
			// and return, failing below instead of hanging for a minute.
			extracttest.NewFakeClock(time.Now()).Use(r)
			ctx := context.Background()
			if err := r.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if err := r.Enqueue(ctx, []extract.Found{doc("a.txt", sourceText)}); err != nil {
				t.Fatal(err)
			}
			key := r.Keys()[0]
			err := r.Work(ctx)
			if !errors.Is(err, errInjected) || !strings.Contains(err.Error(), key) {
				t.Fatalf("work err = %v, want the injected error naming job %s", err, key)
			}
			if st := extract.RunStatus(ctx, err); st != "aborted" {
				t.Fatalf("run status = %q, want aborted", st)
			}
			if p.calls.Load() != 1 {
				t.Fatalf("provider calls = %d, want 1 (the run stops)", p.calls.Load())
			}
			if st := e.JobStates(t); fmt.Sprint(st) != "[running]" || e.Results(t) != 0 {
				t.Fatalf("job states %v, results %d: want the job left running, nothing committed", st, e.Results(t))
			}
			// A worker an hour later finds the lease expired and finishes
			// the job.
			later := newRunner(e, p, "default")
			later.NowFunc = func() time.Time { return time.Now().Add(time.Hour) }
			s := runDocs(t, later, doc("a.txt", sourceText))
			if s.LeaseRecoveries != 1 || s.CommittedNow != 1 || e.Results(t) != 1 {
				t.Fatalf("recovery: %d recoveries, %d committed, %d results; want 1, 1, 1",
					s.LeaseRecoveries, s.CommittedNow, e.Results(t))
			}
		})
	}
}

// --token-budget stops a job once its attempts, over all leases, used the
// budget: a transient failure is not retried but fails with class
// token_budget, and an invalid answer is not repaired.
func TestTokenBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		answer    func() (*extract.Response, error)
		repair    int
		wantCalls int64
		want      []string
		wantState string
	}{
		{"transient failures", func() (*extract.Response, error) {
			return &extract.Response{Model: "fake-1", InputTokens: 50, OutputTokens: 10},
				&extract.ProviderError{Class: extract.ClassTransient, Status: 503, Msg: "overloaded"}
		}, 0, 2, []string{"retry/transient", "failed/token_budget"}, store.StateFailed},
		{"invalid answer over budget", func() (*extract.Response, error) {
			r := answer(`{"schema_version":"invoice-summary-v1","Title":"x"}`)
			r.InputTokens, r.OutputTokens = 90, 30
			return r, nil
		}, 3, 1, []string{"rejected/rejected"}, store.StateRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			p := &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) { return tt.answer() }}
			r := newRunner(e, p, "default")
			r.Concurrency, r.MaxAttempts, r.Repair, r.TokenBudget = 1, 10, tt.repair, 100
			r.Backoff, r.MaxBackoff = time.Millisecond, 2*time.Millisecond
			s := runDocs(t, r, doc("a.txt", sourceText))
			if p.calls.Load() != tt.wantCalls {
				t.Errorf("provider calls = %d, want %d", p.calls.Load(), tt.wantCalls)
			}
			var got []string
			for _, a := range e.Attempts(t) {
				got = append(got, a.Outcome+"/"+a.Class)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("attempts = %v, want %v", got, tt.want)
			}
			if st := e.JobStates(t); fmt.Sprint(st) != "["+tt.wantState+"]" {
				t.Errorf("job states = %v, want [%s]", st, tt.wantState)
			}
			if tt.wantState == store.StateFailed {
				last := e.Attempts(t)[len(tt.want)-1]
				if !strings.Contains(last.Message, "token budget 100 reached") || s.FailedNow != 1 {
					t.Errorf("last attempt message %q, failed now %d; want the budget named and 1", last.Message, s.FailedNow)
				}
			}
		})
	}
}
