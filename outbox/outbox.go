// Package outbox delivers the events that commits wrote to the outbox (one
// per action item and one invoice.committed per result) to a sink: a webhook
// or a command. An event is marked delivered only when the sink accepted it;
// transient failures are retried with exponential backoff and full jitter;
// refusals, and events that used up their attempts, are parked as failed.
//
// Delivery is at least once: a deliverer that dies after the sink accepted
// an event but before the store recorded it sends that event again on the
// next run, with the same Idempotency-Key (the event key, store.EventKey),
// so the receiver can apply it exactly once. Events are claimed with a
// fenced lease (store.ClaimOutbox), so two deliverers never send the same
// event at the same time, and an event whose deliverer died is taken over.
package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/invx/invx/internal/backoff"
	"github.com/invx/invx/store"
)

// Outcome classifies one delivery attempt.
type Outcome int

// Outcomes of an attempt.
const (
	// Delivered: the sink accepted the event (HTTP 2xx, exit status 0).
	Delivered Outcome = iota
	// Retry: a transient failure (HTTP 408, 429, 5xx, a transport error or
	// a timeout, exit status 75); the event is tried again later.
	Retry
	// Failed: the sink refused the event (another HTTP 4xx or 3xx, another
	// exit status); the event is parked as failed at once.
	Failed
)

func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Retry:
		return "retry"
	default:
		return "failed"
	}
}

// Result is what a sink reports for one attempt. Err is for people: it never
// holds the payload or a header value.
type Result struct {
	Outcome Outcome
	// Status is the HTTP status or the command's exit status (0 when there
	// was none).
	Status int
	// RetryAfter is the wait the receiver asked for (HTTP Retry-After).
	RetryAfter time.Duration
	Err        string
}

// Sink sends one event. It must honour ctx, which carries the attempt's
// timeout, and classify the outcome; it never touches the store.
type Sink interface {
	Send(ctx context.Context, ev *store.OutboxEvent) Result
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(ctx context.Context, ev *store.OutboxEvent) Result

// Send implements Sink.
func (f SinkFunc) Send(ctx context.Context, ev *store.OutboxEvent) Result { return f(ctx, ev) }

// Defaults of a Deliverer.
const (
	DefaultMaxAttempts = 10
	DefaultTimeout     = 30 * time.Second
	DefaultBackoff     = time.Second
	DefaultMaxBackoff  = 5 * time.Minute
	DefaultWait        = time.Minute
)

// Deliverer sends a tenant's pending outbox events to a sink until none is
// due. The zero value of every optional field has a sensible default.
type Deliverer struct {
	Store store.Store
	Sink  Sink
	// Tenant whose events are delivered; empty: every tenant.
	Tenant string
	// Owner identifies this deliverer in event leases ("host/pid/run", see
	// extract.LocalOwner), so a later deliverer can tell it is gone.
	Owner string
	// MaxAttempts bounds the attempts of one event, over all runs; an event
	// still failing transiently after that many is parked as failed.
	MaxAttempts int
	// Concurrency is how many events are sent at once. With 1 (the default)
	// events are sent one at a time, oldest first.
	Concurrency int
	// Timeout bounds one attempt.
	Timeout time.Duration
	// Backoff is the base of the exponential backoff; MaxBackoff caps it and
	// a receiver's Retry-After.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// Wait is how long Deliver waits for events that are not due yet (their
	// retry time has not come, or another deliverer holds them) once nothing
	// else is left; events due later stay pending for the next run. Zero:
	// DefaultWait; negative: no waiting.
	Wait time.Duration
	// PollInterval is how often Deliver looks again for events another
	// deliverer holds.
	PollInterval time.Duration

	// AliveFunc reports whether a lease owner still exists; leases of owners
	// it says are gone are reaped at the start, so their events are taken
	// over at once. Nil: leases only expire with time.
	AliveFunc func(owner string) bool
	// NowFunc is the clock (time.Now by default).
	NowFunc func() time.Time
	// SleepFunc waits for d or until ctx is done (a timer by default); tests
	// inject one that moves a fake clock.
	SleepFunc func(ctx context.Context, d time.Duration) error
	// JitterFunc picks the backoff wait in (0, max] (nil:
	// backoff.FullJitter); tests pin it.
	JitterFunc func(max time.Duration) time.Duration
	// ReportFunc, if set, is called after every attempt, from the goroutine
	// that made it.
	ReportFunc func(Report)
	Logger     *slog.Logger
}

// Report describes one finished attempt.
type Report struct {
	Event   *store.OutboxEvent
	Attempt int
	Result  Result
	// State is what the store now records: delivered, pending or failed;
	// empty when the lease was lost and nothing was recorded.
	State     string
	NextTryAt time.Time
	Duration  time.Duration
}

// Parked is an event parked as failed.
type Parked struct {
	EventKey string `json:"event_key"`
	Kind     string `json:"kind"`
	Attempts int    `json:"attempts"`
	Error    string `json:"error"`
}

// Summary is what one Deliver call did, and what is left.
type Summary struct {
	// Delivered, Retried and Failed count this call's attempts by what they
	// recorded: delivered, pending again, parked as failed.
	Delivered int `json:"delivered"`
	Retried   int `json:"retried"`
	Failed    int `json:"failed"`
	// LostLeases counts attempts whose lease had passed to another
	// deliverer before they were recorded.
	LostLeases int `json:"lost_leases,omitempty"`
	// Parked lists the events this call parked.
	Parked []Parked `json:"parked,omitempty"`
	// Pending and FailedTotal describe the outbox afterwards: events still
	// pending (due after the wait bound, or held by another deliverer) and
	// every event parked as failed, this call's included.
	Pending     int       `json:"pending"`
	NextTryAt   time.Time `json:"next_try_at,omitzero"`
	FailedTotal int       `json:"failed_total"`
}

func (d *Deliverer) defaults() {
	if d.MaxAttempts <= 0 {
		d.MaxAttempts = DefaultMaxAttempts
	}
	if d.Concurrency <= 0 {
		d.Concurrency = 1
	}
	if d.Timeout <= 0 {
		d.Timeout = DefaultTimeout
	}
	if d.Backoff <= 0 {
		d.Backoff = DefaultBackoff
	}
	if d.MaxBackoff <= 0 {
		d.MaxBackoff = DefaultMaxBackoff
	}
	if d.PollInterval <= 0 {
		d.PollInterval = 500 * time.Millisecond
	}
	if d.NowFunc == nil {
		d.NowFunc = time.Now
	}
	if d.SleepFunc == nil {
		d.SleepFunc = sleep
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// waitBound is Wait with its default; defaults leaves Wait as it is, so a
// negative Wait stays "no waiting" however often Deliver runs.
func (d *Deliverer) waitBound() time.Duration {
	switch {
	case d.Wait == 0:
		return DefaultWait
	case d.Wait < 0:
		return 0
	}
	return d.Wait
}

// leaseFor is how long a claimed batch is ours: every event of a batch is
// sent at once, each within Timeout, then recorded.
func (d *Deliverer) leaseFor() time.Duration { return d.Timeout + 30*time.Second }

// Deliver sends pending events until none is due, waiting (up to Wait) for
// events whose retry time is near. It returns a summary, also when it fails
// or is interrupted. A store error stops it; so does ctx: events already
// being sent then finish and are recorded, and the error is ctx's.
func (d *Deliverer) Deliver(ctx context.Context) (*Summary, error) {
	if d.Store == nil || d.Sink == nil {
		return nil, errors.New("deliver outbox: no store or no sink")
	}
	d.defaults()
	sum := &Summary{}
	if d.AliveFunc != nil {
		if _, err := d.Store.ReapLeases(ctx, &store.ReapLeasesParams{Alive: d.AliveFunc, Now: d.NowFunc()}); err != nil {
			return sum, fmt.Errorf("reap leases of stopped deliverers: %w", err)
		}
	}
	err := d.loop(ctx, sum)
	if terr := d.tally(context.WithoutCancel(ctx), sum); err == nil {
		err = terr
	}
	return sum, err
}

func (d *Deliverer) loop(ctx context.Context, sum *Summary) error {
	// idle sums the waits since the last attempt: it bounds the waiting by
	// Wait even on a clock that does not move.
	var idle time.Duration
	for ctx.Err() == nil {
		evs, err := d.Store.ClaimOutbox(ctx, &store.ClaimOutboxParams{Tenant: d.Tenant, Owner: d.Owner,
			Limit: d.Concurrency, LeaseFor: d.leaseFor(), Now: d.NowFunc()})
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return fmt.Errorf("claim outbox events: %w", err)
		}
		if len(evs) > 0 {
			if err := d.sendAll(ctx, evs, sum); err != nil {
				return err
			}
			idle = 0
			continue
		}
		wake, ok, err := d.nextWake(ctx)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return err
		}
		if !ok {
			return nil
		}
		// An event due now that could not be claimed is held by another
		// deliverer: look again after PollInterval.
		wait := max(wake.Sub(d.NowFunc()), d.PollInterval)
		if idle+wait > d.waitBound() {
			// Not due soon enough: leave it to the next run.
			return nil
		}
		d.Logger.Debug("outbox: waiting for the next retry", "wait_ms", wait.Milliseconds())
		if err := d.SleepFunc(ctx, wait); err != nil {
			break
		}
		idle += wait
	}
	return ctx.Err()
}

// nextWake is the earliest time a pending event may become due: its retry
// time, or now when it is due but held by another deliverer. ok is false
// when nothing is pending.
func (d *Deliverer) nextWake(ctx context.Context) (wake time.Time, ok bool, err error) {
	evs, err := d.Store.ListOutbox(ctx, &store.ListOutboxParams{Tenant: d.Tenant, Pending: true})
	if err != nil {
		return time.Time{}, false, fmt.Errorf("list pending outbox events: %w", err)
	}
	for _, ev := range evs {
		if ev.State != store.OutboxPending {
			continue
		}
		if !ok || ev.NextTryAt.Before(wake) {
			wake, ok = ev.NextTryAt, true
		}
	}
	return wake, ok, nil
}

// tally fills in what is left in the outbox.
func (d *Deliverer) tally(ctx context.Context, sum *Summary) error {
	evs, err := d.Store.ListOutbox(ctx, &store.ListOutboxParams{Tenant: d.Tenant, Pending: true})
	if err != nil {
		return fmt.Errorf("list pending outbox events: %w", err)
	}
	sum.Pending, sum.FailedTotal, sum.NextTryAt = 0, 0, time.Time{}
	for _, ev := range evs {
		switch ev.State {
		case store.OutboxPending:
			sum.Pending++
			if sum.NextTryAt.IsZero() || ev.NextTryAt.Before(sum.NextTryAt) {
				sum.NextTryAt = ev.NextTryAt
			}
		case store.OutboxFailed:
			sum.FailedTotal++
		}
	}
	return nil
}

// sendAll sends a claimed batch at once and records every attempt.
func (d *Deliverer) sendAll(ctx context.Context, evs []*store.OutboxEvent, sum *Summary) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs = make([]error, len(evs))
	)
	for i, ev := range evs {
		wg.Go(func() {
			rep, err := d.sendOne(ctx, ev)
			errs[i] = err
			if err != nil {
				return
			}
			mu.Lock()
			switch rep.State {
			case store.OutboxDelivered:
				sum.Delivered++
			case store.OutboxPending:
				sum.Retried++
			case store.OutboxFailed:
				sum.Failed++
				sum.Parked = append(sum.Parked, Parked{EventKey: ev.EventKey, Kind: ev.Kind, Attempts: rep.Attempt,
					Error: rep.Result.Err})
			default:
				sum.LostLeases++
			}
			mu.Unlock()
			if d.ReportFunc != nil {
				d.ReportFunc(rep)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sendOne makes one attempt and records it. A lost lease is not an error:
// another deliverer owns the event now.
func (d *Deliverer) sendOne(ctx context.Context, ev *store.OutboxEvent) (Report, error) {
	// ClaimOutbox counts the attempt when it grants the lease, so that an
	// attempt cut short by a crash still counts against MaxAttempts.
	attempt := max(ev.Attempts, 1)
	// An interrupt stops claiming, not the attempt in flight: it finishes
	// within its timeout and is recorded.
	sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.Timeout)
	start := d.NowFunc()
	res := d.Sink.Send(sendCtx, ev)
	cancel()
	now := d.NowFunc()
	rep := Report{Event: ev, Attempt: attempt, Result: res, Duration: now.Sub(start)}

	p := &store.FinishOutboxParams{ID: ev.ID, Token: ev.Token, Error: res.Err, Now: now}
	switch res.Outcome {
	case Delivered:
		p.State, p.Error = store.OutboxDelivered, ""
	case Retry:
		if attempt >= d.MaxAttempts {
			p.State = store.OutboxFailed
			p.Error = fmt.Sprintf("gave up after %d attempts: %s", attempt, res.Err)
			rep.Result.Err = p.Error
		} else {
			p.State = store.OutboxPending
			p.NextTryAt = now.Add(d.delay(attempt, res.RetryAfter))
		}
	default:
		p.State = store.OutboxFailed
	}
	log := d.Logger.With("tenant", ev.Tenant, "event_key", ev.EventKey, "kind", ev.Kind, "attempt", attempt,
		"stage", "outbox", "status", res.Status, "duration_ms", rep.Duration.Milliseconds())
	err := d.Store.FinishOutbox(context.WithoutCancel(ctx), p)
	switch {
	case errors.Is(err, store.ErrStaleLease):
		log.Warn("outbox: lease lost before the attempt was recorded", "outcome", res.Outcome.String())
		return rep, nil
	case err != nil:
		return rep, fmt.Errorf("record delivery of %s: %w", ev.EventKey, err)
	}
	rep.State, rep.NextTryAt = p.State, p.NextTryAt
	if p.State == store.OutboxDelivered {
		log.Info("outbox: delivered", "stage", "outbox_delivered", "outcome", p.State)
	} else {
		// An outcome, not a fault: the summary reports it. The receiver's
		// answer is stored on the event, never logged: it may echo the
		// payload, which holds invoice data.
		log.Info("outbox: not delivered", "stage", "outbox_delivered", "outcome", p.State)
	}
	return rep, nil
}

// delay is the wait before attempt+1: the receiver's Retry-After when it
// gave one, else full jitter over an exponential ceiling, both capped by
// MaxBackoff.
func (d *Deliverer) delay(attempt int, retryAfter time.Duration) time.Duration {
	return backoff.Policy{Base: d.Backoff, Max: d.MaxBackoff, JitterFunc: d.JitterFunc}.Delay(attempt, retryAfter)
}
