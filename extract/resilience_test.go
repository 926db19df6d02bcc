package extract_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/postgres"
	"github.com/invx/invx/store/sqlite"
)

// driver opens a fresh, empty store of one kind for a test.
type driver struct {
	name string
	open func(t *testing.T) store.Store
}

// drivers are the stores the runner's resilience tests run on: SQLite
// always, PostgreSQL when INVX_TEST_POSTGRES names a server (CI always does).
func drivers(t *testing.T) []driver {
	t.Helper()
	ds := []driver{{"sqlite", func(t *testing.T) store.Store {
		t.Helper()
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "invx.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}}}
	admin := os.Getenv("INVX_TEST_POSTGRES")
	if admin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must set INVX_TEST_POSTGRES (see .ci/postgres.sh)")
		}
		t.Log("INVX_TEST_POSTGRES is not set: PostgreSQL cases skipped")
		return ds
	}
	return append(ds, driver{"postgres", func(t *testing.T) store.Store {
		t.Helper()
		// The runners move time themselves (one runs an hour ahead to take a
		// lease over), so times come from their clocks, not the database.
		st, err := postgres.Open(context.Background(), freshPostgres(t, admin), postgres.WithCallerClock())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}})
}

// freshPostgres creates a database for one test, dropped at its end.
func freshPostgres(t *testing.T, admin string) string {
	t.Helper()
	ctx := context.Background()
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "invx_extract_" + hex.EncodeToString(b[:])
	exec := func(q string) error {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, q)
		return err
	}
	if err := exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if err := exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("INVX_TEST_POSTGRES: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// storeRunner is a runner on any store with fast test settings.
func storeRunner(st store.Store, p extract.Provider, id string) *extract.Runner {
	return &extract.Runner{Store: st, Provider: p, Schema: extracttest.V1(), Tenant: "default", RunID: id,
		Owner: "test/" + id, Concurrency: 1, MaxAttempts: 5, Backoff: time.Millisecond,
		MaxBackoff: 10 * time.Millisecond, PollInterval: 2 * time.Millisecond}
}

// waitFor bounds a wait by the test's deadline (or a generous minute).
func waitFor(t *testing.T) time.Duration {
	t.Helper()
	if d, ok := t.Deadline(); ok {
		return time.Until(d) / 2
	}
	return time.Minute
}

// Issue 10 item 12: a worker that loses a lease during a provider call loses
// that job's attempt (stale_lease), never the worker. A's call blocks; B,
// whose clock is an hour ahead, finds A's lease expired, takes the job over
// and commits it; A's renewal then sees the lease gone and cancels the call
// (or, in the second case, the call answers anyway). A must record its
// attempt as stale_lease, count it, and go on to claim and commit the other
// queued jobs.
func TestLostLeaseCostsOneAttemptNotTheWorker(t *testing.T) {
	t.Parallel()
	for _, d := range drivers(t) {
		for _, answerAnyway := range []bool{false, true} {
			name := d.name + "/call_cancelled"
			if answerAnyway {
				name = d.name + "/call_answers_after_lease_lost"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				lostLease(t, d.open(t), answerAnyway)
			})
		}
	}
}

func lostLease(t *testing.T, st store.Store, answerAnyway bool) {
	ctx := context.Background()
	const others = 4
	started := make(chan context.Context, 1)
	release := make(chan struct{})
	first := true
	pa := &ctxProvider{fn: func(context.Context, *extract.Request) (*extract.Response, error) {
		return answer(extracttest.ValidAnswer), nil
	}}
	blocking := &ctxProvider{fn: func(callCtx context.Context, req *extract.Request) (*extract.Response, error) {
		if first {
			first = false
			started <- callCtx
			<-release
			if !answerAnyway {
				return nil, extract.TransportError(callCtx, callCtx.Err())
			}
		}
		return answer(extracttest.ValidAnswer), nil
	}}
	a := storeRunner(st, blocking, fmt.Sprintf("A-%p", t))
	// Renewed every 200ms: A notices the takeover soon after it happens.
	a.LeaseFor = 600 * time.Millisecond
	if err := a.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Enqueue(ctx, []extract.Found{extracttest.Doc("first.txt", extracttest.Invoice)}); err != nil {
		t.Fatal(err)
	}
	workErr := make(chan error, 1)
	go func() { workErr <- a.Work(ctx) }()
	deadline := time.After(waitFor(t))
	var callCtx context.Context
	select {
	case callCtx = <-started:
	case <-deadline:
		t.Fatal("A never called the provider")
	}

	// B's clock is an hour ahead: A's lease has expired for it.
	b := storeRunner(st, pa, fmt.Sprintf("B-%p", t))
	b.NowFunc = func() time.Time { return time.Now().Add(time.Hour) }
	if err := b.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Work(ctx); err != nil {
		t.Fatalf("B: %v", err)
	}
	bs, err := b.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	if bs.CommittedNow != 1 || bs.LeaseRecoveries != 1 {
		t.Fatalf("B committed %d with %d lease recoveries, want 1 and 1", bs.CommittedNow, bs.LeaseRecoveries)
	}

	// More work arrives while A is still in its call.
	var docs []extract.Found
	for i := range others {
		docs = append(docs, extracttest.Doc(fmt.Sprintf("other-%d.txt", i), fmt.Sprintf("%sRef %d\n", extracttest.Invoice, i)))
	}
	if err := a.Enqueue(ctx, docs); err != nil {
		t.Fatal(err)
	}
	// A's renewal finds the lease gone and cancels the call; the call
	// returns only then, with the cancellation or (a provider that ignores
	// its context) with an answer.
	select {
	case <-callCtx.Done():
	case <-deadline:
		t.Fatal("A's call was not cancelled after its lease was lost")
	}
	close(release)
	select {
	case err := <-workErr:
		if err != nil {
			t.Fatalf("A's Work: %v", err)
		}
	case <-deadline:
		t.Fatal("A's Work did not return")
	}
	as, err := a.Finish(ctx, time.Now(), extract.RunStatus(ctx, nil))
	if err != nil {
		t.Fatal(err)
	}
	if as.StaleLeases != 1 || as.CommittedNow != others || as.Final.Succeeded != others+1 || as.Status != "completed" {
		t.Fatalf("A's summary: stale %d committed %d succeeded %d status %s, want 1, %d, %d, completed",
			as.StaleLeases, as.CommittedNow, as.Final.Succeeded, as.Status, others, others+1)
	}

	// Durable state: every job committed once; the first job's attempts
	// are A's stale_lease and B's success.
	job, err := st.GetJob(ctx, &store.GetJobParams{Tenant: "default", Ref: "first.txt"})
	if err != nil {
		t.Fatal(err)
	}
	atts, err := st.ListAttempts(ctx, &store.ListAttemptsParams{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, at := range atts {
		got = append(got, at.RunID[:1]+":"+at.Outcome)
	}
	if want := "[A:stale_lease B:succeeded]"; fmt.Sprint(got) != want {
		t.Fatalf("first job's attempts = %v, want %s", got, want)
	}
	states, err := st.JobStates(ctx, &store.JobStatesParams{Tenant: "default", Keys: a.Keys()})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range a.Keys() {
		if s := states[k]; s.State != store.StateSucceeded || s.ResultID == 0 {
			t.Errorf("job %s: %+v, want succeeded with a result", k[:12], s)
		}
		if _, err := st.GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: k}); err != nil {
			t.Errorf("result of %s: %v", k[:12], err)
		}
	}
}

// ctxProvider is a fake that sees the call's context.
type ctxProvider struct {
	fn func(ctx context.Context, req *extract.Request) (*extract.Response, error)
}

func (p *ctxProvider) Name() string { return "fake" }

func (p *ctxProvider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	return p.fn(ctx, req)
}

// Issue 10 item 11, in the runner: MaxUnreachable connection-level failures
// in a row stop the run with ErrUnreachable and give the jobs back (none
// failed); an answer in between resets the count.
func TestUnreachableProviderStopsRun(t *testing.T) {
	t.Parallel()
	refused := func() error {
		_, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", closedPort(t)))
		if err == nil {
			t.Fatal("dial to a closed port succeeded")
		}
		return extract.TransportError(context.Background(), err)
	}()
	if !extract.Unreachable(refused) {
		t.Fatalf("a refused dial is not unreachable: %v", refused)
	}
	tests := []struct {
		name       string
		fail       func(n int64) bool // which calls fail to connect
		wantStop   bool
		wantFailed int
	}{
		{"every call refused", func(int64) bool { return true }, true, 0},
		{"an answer every third call", func(n int64) bool { return n%3 != 0 }, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			p := &fakeProvider{ExtractFunc: func(n int64, req *extract.Request) (*extract.Response, error) {
				if tt.fail(n) {
					return nil, refused
				}
				return answer(extracttest.ValidAnswer), nil
			}}
			r := e.Runner(p)
			r.MaxUnreachable, r.MaxAttempts, r.Concurrency = 3, 10, 1
			var docs []extract.Found
			for i := range 6 {
				docs = append(docs, extracttest.Doc(fmt.Sprintf("%d.txt", i), fmt.Sprintf("%sRef %d\n", extracttest.Invoice, i)))
			}
			s, err := e.Run(t, r, docs...)
			if got := errors.Is(err, extract.ErrUnreachable); got != tt.wantStop {
				t.Fatalf("Work err = %v, want ErrUnreachable: %v", err, tt.wantStop)
			}
			if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'failed'`); n != tt.wantFailed || s.FailedNow != 0 {
				t.Fatalf("failed jobs = %d (summary %d), want %d", n, s.FailedNow, tt.wantFailed)
			}
			if !tt.wantStop {
				if e.Results(t) != 6 {
					t.Fatalf("results = %d, want 6", e.Results(t))
				}
				return
			}
			if n := e.Count(t, `SELECT count(*) FROM attempts WHERE outcome = 'released' AND category = 'unreachable'`); n != 1 {
				t.Fatalf("released attempts = %d, want 1", n)
			}
			if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state IN ('queued', 'retry_wait')`); n != 6 {
				t.Fatalf("jobs given back = %d, want 6", n)
			}
			if n := p.calls.Load(); n != 3 {
				t.Fatalf("provider calls = %d, want 3 (the run stops at the third refusal)", n)
			}
		})
	}
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}
