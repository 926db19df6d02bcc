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
//
// A job's first call takes its slot in the order the job was claimed (its
// ticket), whichever worker goroutine reaches the gate first: with
// --concurrency 1 documents are still called one by one in queue order, as
// they were before jobs were leased ahead. Repairs (a job's later calls)
// take the next free slot without a ticket.

// DefaultReadAhead is the read-ahead for a concurrency: as many jobs again,
// at least 32 so that a fast local provider (rules, replay) fills its
// claims and group commits, at most 64 so that one process does not lease
// far more of a shared queue than it is working.
func DefaultReadAhead(concurrency int) int {
	return min(max(concurrency, 32), 64)
}

// slotWaiter is a job waiting for a provider slot; ready is closed when
// the slot is granted, or when calls stopped (err set). ticket is 0 for a
// repair.
type slotWaiter struct {
	ticket int64
	ready  chan struct{}
	err    error
}

// errCallsStopped is what a job waiting for a slot gets when the run
// stops: it classifies as interrupted, so the job is given back.
var errCallsStopped = fmt.Errorf("run stopping: %w", context.Canceled)

// slotGate is the state of the provider slots, under Runner.mu.
type slotGate struct {
	active  int
	waiting []*slotWaiter
	// stopped: the run is stopping (auth failure, quota, unreachable
	// provider, a store error, a failed enqueue); jobs not yet called
	// are given back.
	stopped bool
	// issued is the last ticket handed out; serving the next one that may
	// take a slot; passed the tickets above serving whose jobs will not
	// call (refused before the call, given up while waiting).
	issued, serving int64
	passed          map[int64]bool
}

// openCalls lets calls start (Work begins): tickets start again at 1.
func (r *Runner) openCalls() {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := &r.gate
	g.stopped, g.issued, g.serving, g.passed = false, 0, 1, map[int64]bool{}
}

// ticket hands out the next ticket, in claim order.
func (r *Runner) ticket() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gate.issued++
	return r.gate.issued
}

// stopCalls lets no further call start and gives every job waiting for a
// slot errCallsStopped.
func (r *Runner) stopCalls() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gate.stopped = true
	for _, w := range r.gate.waiting {
		w.err = errCallsStopped
		close(w.ready)
	}
	r.gate.waiting = nil
}

// acquireSlot waits for a provider slot, in the order of *ticket when it
// is not 0 (the ticket is used up: set to 0). It gives up with the
// context's error when run (the run's first interrupt) or lease (the lease
// was lost) is done first, and with errCallsStopped when the run stops.
func (r *Runner) acquireSlot(run, lease context.Context, ticket *int64) error {
	t := *ticket
	*ticket = 0
	if err := cmp.Or(run.Err(), lease.Err()); err != nil {
		r.passTicket(t)
		return err
	}
	r.mu.Lock()
	g := &r.gate
	if g.stopped {
		r.mu.Unlock()
		return errCallsStopped
	}
	w := &slotWaiter{ticket: t, ready: make(chan struct{})}
	g.waiting = append(g.waiting, w)
	r.grantSlotsLocked()
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
	if i := slices.Index(g.waiting, w); i >= 0 {
		g.waiting = slices.Delete(g.waiting, i, i+1)
		r.passLocked(t)
		r.grantSlotsLocked()
		return err
	}
	if w.err != nil {
		return err // calls stopped meanwhile: no slot was granted
	}
	// Granted while giving up: hand the slot on.
	g.active--
	r.grantSlotsLocked()
	return err
}

// releaseSlot frees a slot taken by acquireSlot.
func (r *Runner) releaseSlot() {
	r.mu.Lock()
	r.gate.active--
	r.grantSlotsLocked()
	r.mu.Unlock()
}

// passTicket records that the job holding ticket t will not call (0: no
// ticket), so the jobs claimed after it are not kept waiting for it.
func (r *Runner) passTicket(t int64) {
	if t == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.passLocked(t)
	r.grantSlotsLocked()
}

func (r *Runner) passLocked(t int64) {
	g := &r.gate
	switch {
	case t == 0 || t < g.serving:
	case t == g.serving:
		g.serving++
		for g.passed[g.serving] {
			delete(g.passed, g.serving)
			g.serving++
		}
	default:
		g.passed[t] = true
	}
}

// grantSlotsLocked hands free slots to waiting jobs: repairs first, then
// the job whose ticket is being served. It also runs when the limit grows
// again after a rate limit. r.mu is held.
func (r *Runner) grantSlotsLocked() {
	g := &r.gate
	for g.active < r.limit {
		i := slices.IndexFunc(g.waiting, func(w *slotWaiter) bool { return w.ticket == 0 })
		if i < 0 {
			i = slices.IndexFunc(g.waiting, func(w *slotWaiter) bool { return w.ticket == g.serving })
		}
		if i < 0 {
			return
		}
		w := g.waiting[i]
		g.waiting = slices.Delete(g.waiting, i, i+1)
		g.active++
		r.passLocked(w.ticket)
		close(w.ready)
	}
}
