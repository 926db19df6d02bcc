package extract

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// Provider slots: at most currentLimit() provider calls run at once, while
// more jobs than that may be leased and in flight (ReadAhead). The leased
// jobs beyond the slots wait here, their leases kept alive, so a slot that
// frees is refilled at once instead of after a claim transaction, and many
// jobs reach the store's group commit together.

// DefaultReadAhead is the read-ahead for a concurrency: as many jobs again,
// at least 32 so that a fast local provider (rules, replay) fills its
// claims and group commits, at most 64 so that one process does not lease
// far more of a shared queue than it is working.
func DefaultReadAhead(concurrency int) int {
	return min(max(concurrency, 32), 64)
}

// slotWaiter is a job waiting for a provider slot; ready is closed when
// the slot is granted, or when calls stopped (err set).
type slotWaiter struct {
	ready chan struct{}
	err   error
}

// errCallsStopped is what a job waiting for a slot gets when the run
// stops: it classifies as interrupted, so the job is given back.
var errCallsStopped = fmt.Errorf("run stopping: %w", context.Canceled)

// openCalls lets calls start (Work begins).
func (r *Runner) openCalls() {
	r.mu.Lock()
	r.callsStopped = false
	r.mu.Unlock()
}

// stopCalls lets no further call start and gives every job waiting for a
// slot errCallsStopped.
func (r *Runner) stopCalls() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.callsStopped = true
	for _, w := range r.waiting {
		w.err = errCallsStopped
		close(w.ready)
	}
	r.waiting = nil
}

// acquireSlot waits for a provider slot. It gives up with the context's
// error when run (the run's first interrupt, or the run stopping on an
// auth failure or an unreachable provider: the job is given back rather
// than started) or lease (the lease was lost) is done first.
func (r *Runner) acquireSlot(run, lease context.Context) error {
	if err := cmp.Or(run.Err(), lease.Err()); err != nil {
		return err
	}
	r.mu.Lock()
	if r.callsStopped {
		r.mu.Unlock()
		return errCallsStopped
	}
	if r.active < r.limit && len(r.waiting) == 0 {
		r.active++
		r.mu.Unlock()
		return nil
	}
	w := &slotWaiter{ready: make(chan struct{})}
	r.waiting = append(r.waiting, w)
	r.mu.Unlock()
	var err error
	select {
	case <-w.ready:
		return w.err
	case <-run.Done():
		err = run.Err()
	case <-lease.Done():
		err = lease.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.waiting, w); i >= 0 {
		r.waiting = slices.Delete(r.waiting, i, i+1)
		return err
	}
	if w.err != nil {
		return err // calls stopped meanwhile: no slot was granted
	}
	// Granted while giving up: hand the slot on.
	r.active--
	r.grantSlotsLocked()
	return err
}

// releaseSlot frees a slot taken by acquireSlot.
func (r *Runner) releaseSlot() {
	r.mu.Lock()
	r.active--
	r.grantSlotsLocked()
	r.mu.Unlock()
}

// grantSlotsLocked hands free slots to waiting jobs, oldest first; r.mu is
// held. It also runs when the limit grows again after a rate limit.
func (r *Runner) grantSlotsLocked() {
	for r.active < r.limit && len(r.waiting) > 0 {
		w := r.waiting[0]
		r.waiting = slices.Delete(r.waiting, 0, 1)
		r.active++
		close(w.ready)
	}
}
