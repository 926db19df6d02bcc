package outbox_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/outbox"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// clock is a fake clock: sleeping moves it forward at once.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

func (c *clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

// setup opens a fresh SQLite store holding n committed jobs of tenant acme,
// each with two outbox events (an action item a1 and invoice.committed),
// and returns it with a Deliverer on a fake clock (no jitter).
func setup(t *testing.T, n int, sink outbox.Sink) (store.Store, *outbox.Deliverer, *clock) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "invx.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	seed(t, st, "acme", n)
	clk := &clock{now: t0.Add(time.Minute)}
	d := &outbox.Deliverer{Store: st, Sink: sink, Tenant: "acme", Owner: "test/1/run",
		NowFunc: clk.Now, SleepFunc: clk.Sleep, JitterFunc: func(max time.Duration) time.Duration { return max }}
	return st, d, clk
}

// seed commits n jobs of tenant with two outbox events each.
func seed(t *testing.T, st store.Store, tenant string, n int) {
	t.Helper()
	ctx := context.Background()
	docs := make([]store.Document, n)
	for i := range docs {
		text := fmt.Sprintf("%s invoice %d", tenant, i)
		sum := sha256.Sum256([]byte(text))
		key := sha256.Sum256([]byte(tenant + "\x00" + text))
		docs[i] = store.Document{SourceSystem: "fs:/test", Path: fmt.Sprintf("inv-%03d.txt", i),
			Digest: hex.EncodeToString(sum[:]), JobKey: hex.EncodeToString(key[:]), Text: text}
	}
	if _, err := st.Enqueue(ctx, &store.EnqueueParams{Tenant: tenant, RunID: "seed", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: docs, Now: t0}); err != nil {
		t.Fatal(err)
	}
	leases, err := st.Claim(ctx, &store.ClaimParams{Tenant: tenant, Owner: "seeder", RunID: "seed", Limit: n,
		LeaseFor: time.Minute, Now: t0})
	if err != nil || len(leases) != n {
		t.Fatalf("claim: %d leases, %v", len(leases), err)
	}
	slices.SortFunc(leases, func(a, b *store.Lease) int { return int(a.JobID - b.JobID) })
	for _, l := range leases {
		payload := fmt.Sprintf(`{"job_key":%q}`, l.JobKey)
		if _, err := st.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey, Token: l.Token,
			AttemptID: l.AttemptID, RunID: "seed", SchemaVersion: "invoice-summary-v1",
			Result: []byte(`{"schema_version":"invoice-summary-v1"}`),
			Outbox: []store.OutboxInput{{ActionID: "a1", Kind: "review_tax", Payload: []byte(payload)},
				{ActionID: "invoice.committed", Kind: "invoice.committed", Payload: []byte(payload)}},
			Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
}

func events(t *testing.T, st store.Store, tenant string) []*store.OutboxEvent {
	t.Helper()
	evs, err := st.ListOutbox(context.Background(), &store.ListOutboxParams{Tenant: tenant})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func deliver(t *testing.T, d *outbox.Deliverer) *outbox.Summary {
	t.Helper()
	sum, err := d.Deliver(context.Background())
	if err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	return sum
}

func keysOf(reqs []request) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.header.Get("Idempotency-Key")
	}
	return out
}

// Every event is sent once, oldest first, and recorded delivered; a rerun
// sends nothing.
func TestDeliverAll(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(200))
	st, d, _ := setup(t, 3, nil)
	d.Sink = &outbox.Webhook{URL: rc.srv.URL}
	sum := deliver(t, d)
	if diff := cmp.Diff(&outbox.Summary{Delivered: 6}, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	evs := events(t, st, "acme")
	var want []string
	for _, e := range evs {
		want = append(want, e.EventKey)
		if e.State != store.OutboxDelivered || e.Attempts != 1 || e.DeliveredAt.IsZero() || e.LastError != "" {
			t.Errorf("event %s: state %s attempts %d delivered at %v error %q", e.EventKey, e.State, e.Attempts,
				e.DeliveredAt, e.LastError)
		}
	}
	if diff := cmp.Diff(want, keysOf(rc.requests())); diff != "" {
		t.Errorf("Idempotency-Keys in order (-want +got):\n%s", diff)
	}
	if sum := deliver(t, d); sum.Delivered+sum.Retried+sum.Failed != 0 || len(rc.requests()) != 6 {
		t.Errorf("rerun: %+v, %d requests in all; want nothing sent again", sum, len(rc.requests()))
	}
}

// A 500 is retried after the backoff; the event is delivered once, with two
// attempts.
func TestDeliverRetries500(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 0 {
			w.WriteHeader(500)
			return
		}
		w.WriteHeader(200)
	})
	st, d, clk := setup(t, 1, nil)
	d.Sink = &outbox.Webhook{URL: rc.srv.URL}
	d.Concurrency = 1
	sum := deliver(t, d)
	if sum.Delivered != 2 || sum.Retried != 1 || sum.Failed != 0 || sum.Pending != 0 {
		t.Errorf("summary %+v, want 2 delivered, 1 retried", sum)
	}
	first := events(t, st, "acme")[0]
	if first.State != store.OutboxDelivered || first.Attempts != 2 {
		t.Errorf("event %s: state %s attempts %d, want delivered after 2", first.EventKey, first.State, first.Attempts)
	}
	keys := keysOf(rc.requests())
	if diff := cmp.Diff([]string{first.EventKey, events(t, st, "acme")[1].EventKey, first.EventKey}, keys); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	// Full jitter with the fake taking the ceiling: the first backoff is the
	// base, 1s; Deliver waited for it.
	if diff := cmp.Diff([]time.Duration{time.Second}, clk.Sleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

// A 429's Retry-After sets the next try and the wait; a 408 is retried.
func TestDeliverHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		first      func(w http.ResponseWriter)
		maxBackoff time.Duration
		wantSleep  time.Duration
	}{
		{"429 Retry-After 7", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
		}, 0, 7 * time.Second},
		{"429 Retry-After capped", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(429)
		}, 20 * time.Second, 20 * time.Second},
		{"408", func(w http.ResponseWriter) { w.WriteHeader(408) }, 0, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
				if n == 0 {
					tc.first(w)
					return
				}
				w.WriteHeader(200)
			})
			st, d, clk := setup(t, 1, nil)
			d.Sink = &outbox.Webhook{URL: rc.srv.URL, NowFunc: clk.Now}
			d.MaxBackoff = tc.maxBackoff
			var mu sync.Mutex
			var nextTry time.Time
			d.ReportFunc = func(r outbox.Report) {
				mu.Lock()
				defer mu.Unlock()
				if r.State == store.OutboxPending {
					nextTry = r.NextTryAt
				}
			}
			sum := deliver(t, d)
			if sum.Delivered != 2 || sum.Retried != 1 {
				t.Errorf("summary %+v", sum)
			}
			if diff := cmp.Diff([]time.Duration{tc.wantSleep}, clk.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if want := t0.Add(time.Minute + tc.wantSleep); !nextTry.Equal(want) {
				t.Errorf("next try at %v, want %v", nextTry, want)
			}
			if e := events(t, st, "acme")[0]; e.State != store.OutboxDelivered || e.Attempts != 2 {
				t.Errorf("event: state %s attempts %d", e.State, e.Attempts)
			}
		})
	}
}

// A 400 parks the event as failed with the status, at once; the others go
// on.
func TestDeliverParks400(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 0 {
			w.WriteHeader(400)
			w.Write([]byte("unknown kind"))
			return
		}
		w.WriteHeader(200)
	})
	st, d, clk := setup(t, 2, nil)
	d.Sink = &outbox.Webhook{URL: rc.srv.URL}
	sum := deliver(t, d)
	evs := events(t, st, "acme")
	want := &outbox.Summary{Delivered: 3, Failed: 1, FailedTotal: 1,
		Parked: []outbox.Parked{{EventKey: evs[0].EventKey, Kind: "review_tax", Attempts: 1, Error: "http 400: unknown kind"}}}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if e := evs[0]; e.State != store.OutboxFailed || e.Attempts != 1 || e.LastError != "http 400: unknown kind" {
		t.Errorf("parked event: state %s attempts %d error %q", e.State, e.Attempts, e.LastError)
	}
	if len(clk.Sleeps()) != 0 || len(rc.requests()) != 4 {
		t.Errorf("sleeps %v, requests %d; want no wait, 4 requests", clk.Sleeps(), len(rc.requests()))
	}
	// A parked event is not sent again.
	if sum := deliver(t, d); sum.Delivered+sum.Failed != 0 || sum.FailedTotal != 1 || len(rc.requests()) != 4 {
		t.Errorf("rerun: %+v, %d requests", sum, len(rc.requests()))
	}
}

// An event that keeps failing transiently is parked after MaxAttempts.
func TestDeliverGivesUp(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(503))
	st, d, clk := setup(t, 1, nil)
	d.Sink = &outbox.Webhook{URL: rc.srv.URL}
	d.MaxAttempts = 3
	sum := deliver(t, d)
	if sum.Failed != 2 || sum.Retried != 4 || sum.Delivered != 0 || sum.Pending != 0 {
		t.Errorf("summary %+v, want 2 failed after 4 retries", sum)
	}
	for _, e := range events(t, st, "acme") {
		if e.State != store.OutboxFailed || e.Attempts != 3 ||
			e.LastError != "gave up after 3 attempts: http 503 Service Unavailable" {
			t.Errorf("event %s: state %s attempts %d error %q", e.EventKey, e.State, e.Attempts, e.LastError)
		}
	}
	// Exponential: 1s then 2s (both events due together).
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, clk.Sleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

// Events whose retry time lies beyond Wait stay pending for the next run.
func TestDeliverWaitBound(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		if fail.Load() {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(503)
			return
		}
		w.WriteHeader(200)
	})
	st, d, clk := setup(t, 1, nil)
	d.Sink = &outbox.Webhook{URL: rc.srv.URL}
	d.Wait = time.Minute
	sum := deliver(t, d)
	if sum.Retried != 2 || sum.Pending != 2 || !sum.NextTryAt.Equal(clk.Now().Add(2*time.Minute)) || len(clk.Sleeps()) != 0 {
		t.Errorf("summary %+v, sleeps %v; want 2 pending, next try in 2m, no wait", sum, clk.Sleeps())
	}
	// Not due yet: a rerun sends nothing.
	if sum := deliver(t, d); sum.Retried+sum.Delivered != 0 || len(rc.requests()) != 2 {
		t.Errorf("early rerun: %+v, %d requests", sum, len(rc.requests()))
	}
	fail.Store(false)
	clk.Sleep(context.Background(), 2*time.Minute)
	if sum := deliver(t, d); sum.Delivered != 2 || sum.Pending != 0 {
		t.Errorf("rerun when due: %+v", sum)
	}
	for _, e := range events(t, st, "acme") {
		if e.State != store.OutboxDelivered || e.Attempts != 2 {
			t.Errorf("event %s: state %s attempts %d", e.EventKey, e.State, e.Attempts)
		}
	}
}

// Events leased by a deliverer that is gone are taken over at once.
func TestDeliverTakesOverDeadOwner(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(200))
	st, d, clk := setup(t, 2, nil)
	d.Sink = &outbox.Webhook{URL: rc.srv.URL}
	claimed, err := st.ClaimOutbox(context.Background(), &store.ClaimOutboxParams{Tenant: "acme", Owner: "host/1/dead",
		Limit: 2, LeaseFor: time.Hour, Now: clk.Now()})
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	d.AliveFunc = func(owner string) bool { return owner != "host/1/dead" }
	sum := deliver(t, d)
	if sum.Delivered != 4 {
		t.Errorf("summary %+v; want all 4 delivered", sum)
	}
	// A transport hiccup on a loaded machine may cost a backoff of a
	// second; what must not happen is waiting out the dead owner's hour.
	for _, s := range clk.Sleeps() {
		if s >= time.Minute {
			t.Errorf("slept %v: waited for the dead owner's lease (sleeps %v)", s, clk.Sleeps())
		}
	}
	for _, e := range events(t, st, "acme") {
		if e.State != store.OutboxDelivered {
			t.Errorf("event %s: %s", e.EventKey, e.State)
		}
	}
}

// Another tenant's events are left alone.
func TestDeliverOneTenant(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(200))
	st, d, _ := setup(t, 1, nil)
	seed(t, st, "globex", 2)
	d.Sink = &outbox.Webhook{URL: rc.srv.URL}
	if sum := deliver(t, d); sum.Delivered != 2 {
		t.Errorf("summary %+v", sum)
	}
	for _, e := range events(t, st, "globex") {
		if e.State != store.OutboxPending || e.Attempts != 0 {
			t.Errorf("globex event %s: state %s attempts %d", e.EventKey, e.State, e.Attempts)
		}
	}
	d.Tenant = ""
	if sum := deliver(t, d); sum.Delivered != 4 {
		t.Errorf("all tenants: %+v", sum)
	}
}

// With concurrency, every event is still sent exactly once.
func TestDeliverConcurrent(t *testing.T) {
	t.Parallel()
	var inFlight, peak atomic.Int64
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		if n%7 == 3 {
			w.WriteHeader(502)
			return
		}
		w.WriteHeader(200)
	})
	st, d, _ := setup(t, 20, nil)
	d.Sink = &outbox.Webhook{URL: rc.srv.URL}
	d.Concurrency = 4
	sum := deliver(t, d)
	if sum.Delivered != 40 || sum.Failed != 0 || sum.Pending != 0 {
		t.Errorf("summary %+v", sum)
	}
	delivered := map[string]int{}
	for _, r := range rc.requests() {
		delivered[r.header.Get("Idempotency-Key")]++
	}
	if len(delivered) != 40 {
		t.Errorf("%d distinct keys, want 40", len(delivered))
	}
	for _, e := range events(t, st, "acme") {
		if e.State != store.OutboxDelivered || e.Attempts != delivered[e.EventKey] {
			t.Errorf("event %s: state %s attempts %d, requests %d", e.EventKey, e.State, e.Attempts, delivered[e.EventKey])
		}
	}
	if peak.Load() < 2 || peak.Load() > 4 {
		t.Errorf("peak concurrency %d, want 2..4", peak.Load())
	}
}

// An interrupt stops claiming; the attempt in flight finishes and is
// recorded.
func TestDeliverInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	sink := outbox.SinkFunc(func(sendCtx context.Context, ev *store.OutboxEvent) outbox.Result {
		cancel()
		if sendCtx.Err() != nil {
			return outbox.Result{Outcome: outbox.Retry, Err: "cancelled"}
		}
		return outbox.Result{Outcome: outbox.Delivered}
	})
	st, d, _ := setup(t, 2, sink)
	sum, err := d.Deliver(ctx)
	if err != context.Canceled || sum.Delivered != 1 || sum.Pending != 3 {
		t.Errorf("Deliver = %+v, %v; want 1 delivered, 3 pending, context.Canceled", sum, err)
	}
	if e := events(t, st, "acme")[0]; e.State != store.OutboxDelivered {
		t.Errorf("in-flight event: %s", e.State)
	}
}
