package extract

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/invx/invx/store"
)

// leaseKeeper renews the leases of the jobs in flight from one goroutine,
// rather than one goroutine and one ticker per job: at --concurrency 256
// that was 320 goroutines (and their stacks) that, with calls far shorter
// than a lease, never renewed anything. The goroutine runs while any lease
// is held and ends when none is.
type leaseKeeper struct {
	mu      sync.Mutex
	held    map[*heldLease]struct{}
	running bool
}

// heldLease is one job's lease while the job is being worked.
type heldLease struct {
	ctx    context.Context // the job's lease context: renewals stop with it
	cancel context.CancelFunc
	l      *store.Lease
	log    *slog.Logger
	// renewed is when the lease was granted or last renewed (keeper's
	// goroutine only after add).
	renewed time.Time
}

// keepLease renews the lease while the job is worked, until the returned
// function is called. If the lease is lost the job's context is cancelled
// (cancel): its answer could not be committed anyway.
func (r *Runner) keepLease(ctx context.Context, cancel context.CancelFunc, l *store.Lease, log *slog.Logger) func() {
	h := &heldLease{ctx: ctx, cancel: cancel, l: l, log: log, renewed: time.Now()}
	k := &r.leases
	k.mu.Lock()
	if k.held == nil {
		k.held = map[*heldLease]struct{}{}
	}
	k.held[h] = struct{}{}
	start := !k.running
	k.running = true
	k.mu.Unlock()
	if start {
		go r.renewLeases()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			k.mu.Lock()
			delete(k.held, h)
			k.mu.Unlock()
		})
	}
}

// renewEvery is how often the keeper looks for leases to renew: a lease is
// renewed once a third of LeaseFor has passed since it was granted or last
// renewed, so at most half of LeaseFor passes between renewals.
func (r *Runner) renewEvery() time.Duration { return max(r.LeaseFor/6, time.Millisecond) }

// renewLeases is the keeper's goroutine.
func (r *Runner) renewLeases() {
	k := &r.leases
	t := time.NewTicker(r.renewEvery())
	defer t.Stop()
	var due []*heldLease
	for range t.C {
		k.mu.Lock()
		if len(k.held) == 0 {
			k.running = false
			k.mu.Unlock()
			return
		}
		now := time.Now()
		due = due[:0]
		for h := range k.held {
			if now.Sub(h.renewed) >= r.LeaseFor/3 {
				due = append(due, h)
			}
		}
		k.mu.Unlock()
		for _, h := range due {
			r.renew(h)
		}
	}
}

// renew renews one lease; a lost one cancels its job's call.
func (r *Runner) renew(h *heldLease) {
	if h.ctx.Err() != nil {
		return // the job is ending: its stop function removes it
	}
	start := time.Now()
	_, err := r.Store.Renew(h.ctx, &store.RenewParams{JobID: h.l.JobID, Token: h.l.Token, LeaseFor: r.LeaseFor, Now: r.leaseNow()})
	switch {
	case errors.Is(err, store.ErrStaleLease):
		h.log.Warn("lease lost", "stage", "renew", "outcome", "stale_lease")
		h.cancel()
	case err != nil:
		h.log.Warn("renew lease", "stage", "renew", "error", err)
	default:
		h.renewed = start
	}
}
