package extract_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/store"
)

// With --db-retry the runner rides out a database that fails transiently
// at any step (claim, pending, commit, finish attempt, the run's final
// read) and commits every document exactly once; a commit whose reply was
// lost after it landed is recognised as this attempt's, not counted stale.
func TestDBRetryRidesOutTransientStoreErrors(t *testing.T) {
	t.Parallel()
	transient := fmt.Errorf("connection reset by peer (injected): %w", store.ErrTransient)
	tests := []struct {
		name       string
		fail, lost map[string]error
		first      func() (*extract.Response, error)
		// rejected adds a document the provider answers badly: its job
		// ends rejected, a state the finish reads again (a document this
		// run committed is counted unread).
		rejected bool
	}{
		{"claim", map[string]error{"Claim": transient}, nil, nil, false},
		{"commit", map[string]error{"Commit": transient}, nil, nil, false},
		{"commit reply lost", nil, map[string]error{"Commit": transient}, nil, false},
		{"finish attempt", map[string]error{"FinishAttempt": transient}, nil, func() (*extract.Response, error) {
			return nil, &extract.ProviderError{Class: extract.ClassTransient, Status: 503, Msg: "overloaded"}
		}, false},
		{"pending and final states", map[string]error{"Pending": transient, "JobStates": transient}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			fs := &faultyStore{Store: e.Store, fail: tt.fail, lost: tt.lost}
			p := &fakeProvider{ExtractFunc: func(n int64, req *extract.Request) (*extract.Response, error) {
				if n == 1 && tt.first != nil {
					return tt.first()
				}
				if strings.Contains(req.Text, "REJECT") {
					return answer(`{"title":`), nil
				}
				return answer(validAnswer), nil
			}}
			r := newRunner(e, p, "default")
			r.Store, r.Concurrency, r.DBRetry = fs, 1, time.Hour
			extracttest.NewFakeClock(time.Now()).Use(r)
			var docs []extract.Found
			for i := range 3 {
				docs = append(docs, doc(fmt.Sprintf("%d.txt", i), fmt.Sprintf("%s%d\n", sourceText, i)))
			}
			wantRejected := 0
			if tt.rejected {
				docs, wantRejected = append(docs, doc("bad.txt", sourceText+"REJECT\n")), 1
			}
			s := runDocs(t, r, docs...)
			if e.Results(t) != 3 || s.Final.Succeeded != 3 || s.Final.Rejected != wantRejected || s.StaleLeases != 0 {
				t.Fatalf("results %d, final succeeded %d, rejected %d, stale %d; want 3, 3, %d, 0",
					e.Results(t), s.Final.Succeeded, s.Final.Rejected, s.StaleLeases, wantRejected)
			}
			if n := e.Count(t, `SELECT count(*) FROM attempts WHERE outcome = 'succeeded'`); n != 3 {
				t.Fatalf("succeeded attempts = %d, want 3", n)
			}
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if len(fs.fail)+len(fs.lost) != 0 {
				t.Fatalf("injected faults never hit: %v %v", fs.fail, fs.lost)
			}
		})
	}
}

// A worker whose owner is gone (its process exited) has its leases reaped
// at once by the next runner, which recovers and commits the job without
// waiting for the lease to run out.
func TestDeadOwnersLeasesAreReaped(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := newRunner(e, alwaysValid(), "default")
	r.AliveFunc = func(owner string) bool { return owner != "gone" }
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Enqueue(ctx, []extract.Found{doc("a.txt", sourceText)}); err != nil {
		t.Fatal(err)
	}
	if ls, err := e.Store.Claim(ctx, &store.ClaimParams{Tenant: "default", Owner: "gone", RunID: "gone", Limit: 1,
		LeaseFor: time.Hour, Now: time.Now()}); err != nil || len(ls) != 1 {
		t.Fatalf("claim by the gone worker: %d leases, %v", len(ls), err)
	}
	if err := r.Work(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := r.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	if s.LeaseRecoveries != 1 || s.CommittedNow != 1 || e.Results(t) != 1 {
		t.Fatalf("recoveries %d, committed %d, results %d; want 1, 1, 1", s.LeaseRecoveries, s.CommittedNow, e.Results(t))
	}
}

// timeoutErr is a net.Error that timed out.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TransportError classifies what can go wrong before an HTTP answer: the
// class decides retry or release, the category whether the provider was
// reached at all.
func TestTransportErrorClasses(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	tests := []struct {
		name      string
		ctx       context.Context
		err       error
		class     extract.Class
		category  string
		reachable bool
	}{
		{"interrupted", cancelled, context.Canceled, extract.ClassInterrupted, "", true},
		{"dns", live, &net.DNSError{Err: "no such host", Name: "api.invalid", IsNotFound: true}, extract.ClassTransient,
			extract.CategoryUnreachable, false},
		{"refused", live, &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)},
			extract.ClassTransient, extract.CategoryUnreachable, false},
		{"deadline", live, context.DeadlineExceeded, extract.ClassTransient, "timeout", true},
		{"net timeout", live, &net.OpError{Op: "read", Err: timeoutErr{}}, extract.ClassTransient, "timeout", true},
		{"truncated", live, io.ErrUnexpectedEOF, extract.ClassTransient, "truncated_body", true},
		{"reset", live, &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)},
			extract.ClassTransient, extract.CategoryConnection, false},
		{"other", live, errors.New("tls: bad certificate"), extract.ClassTransient, "transport", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pe := extract.TransportError(tt.ctx, tt.err)
			if pe.Class != tt.class || pe.Category != tt.category {
				t.Fatalf("class/category = %s/%s, want %s/%s", pe.Class, pe.Category, tt.class, tt.category)
			}
			if !errors.Is(pe, tt.err) {
				t.Fatalf("%v does not unwrap to %v", pe, tt.err)
			}
			if got := extract.Unreachable(pe); got == tt.reachable {
				t.Fatalf("Unreachable = %v, want %v", got, !tt.reachable)
			}
		})
	}
}
