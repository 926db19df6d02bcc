package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/invx/invx/store"
)

// One batch that mixes documents the store already knows in every way (the
// batched lookup settles them) with documents it must write: each keeps the
// outcome it has when enqueued alone, and what the batch writes (a new
// reference, a released hold, a cleared skip) is written.
func testEnqueueMixedBatch(t *testing.T, s store.Store) {
	ctx := context.Background()
	committed, rejected := Doc("t1", "done.txt", "done"), Doc("t1", "bad.txt", "bad")
	oldText := Doc("t1", "moved.txt", "version 1")
	enqueue(t, s, "t1", store.OnChangeHold, committed, oldText)
	commitAll(t, s, "t1")
	enqueue(t, s, "t1", store.OnChangeHold, rejected)
	ls := claim(t, s, "t1", "w", 10, t0)
	eq(t, "rejected lease", len(ls), 1)
	if err := s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: ls[0].JobID, Token: ls[0].Token, AttemptID: ls[0].AttemptID,
		State: store.StateRejected, Now: t0, Attempt: store.AttemptInfo{Outcome: store.OutcomeRejected}}); err != nil {
		t.Fatalf("reject: %v", err)
	}
	pending := Doc("t1", "pending.txt", "pending")
	enqueue(t, s, "t1", store.OnChangeHold, pending)
	if err := s.RecordSkipped(ctx, &store.RecordSkippedParams{Tenant: "t1", SourceSystem: "fs:/test", Path: "done.txt",
		RunID: "run-0", Reason: "unreadable", Now: t0}); err != nil {
		t.Fatalf("record skipped: %v", err)
	}

	changed := Doc("t1", "moved.txt", "version 2")
	batch := []store.Document{
		committed,                            // settled: already committed
		Doc("t1", "copy/done.txt", "done"),   // same text, new path: duplicate, a new reference
		rejected,                             // settled: needs review
		pending,                              // settled: pending
		changed,                              // the path's text changed: held
		Doc("t1", "new.txt", "new"),          // new
		Doc("t1", "new-copy.txt", "new"),     // same text as the one before, in the same batch
		changed,                              // the held job again, now known
		Doc("t1", "other/new.txt", "brand"),  // new
		Doc("t1", "other/new2.txt", "brand"), // duplicate within the batch
	}
	got := outcomes(enqueue(t, s, "t1", store.OnChangeHold, batch...))
	eqSlice(t, "outcomes", got, []string{store.EnqueueAlreadyCommitted, store.EnqueueDuplicate, store.EnqueueNeedsReview,
		store.EnqueuePending, store.EnqueueHeld, store.EnqueueNew, store.EnqueueDuplicate, store.EnqueueHeld,
		store.EnqueueNew, store.EnqueueDuplicate})

	// Enqueued again as it is, the batch is all settled and keeps every
	// outcome (the first-seen path of a text is new no more).
	again := outcomes(enqueue(t, s, "t1", store.OnChangeHold, batch...))
	eqSlice(t, "outcomes again", again, []string{store.EnqueueAlreadyCommitted, store.EnqueueDuplicate, store.EnqueueNeedsReview,
		store.EnqueuePending, store.EnqueueHeld, store.EnqueuePending, store.EnqueueDuplicate, store.EnqueueHeld,
		store.EnqueuePending, store.EnqueueDuplicate})

	// The enqueue of a read path resolves its earlier skip, settled or not.
	sk, err := s.ListSkipped(ctx, &store.ListSkippedParams{Tenant: "t1"})
	if err != nil {
		t.Fatalf("list skipped: %v", err)
	}
	eq(t, "skipped left", len(sk), 0)

	// With --on-change=process the held job is released, once: its second
	// occurrence in the batch then finds it queued.
	got = outcomes(enqueue(t, s, "t1", store.OnChangeProcess, changed, changed))
	eqSlice(t, "released", got, []string{store.EnqueueNew, store.EnqueuePending})
	eq(t, "released state", state(t, s, "t1", changed.JobKey).State, store.StateQueued)

	// A path written by one document of a batch is not settled from the
	// lookup for a later one: here the committed text, seen again after a
	// processed change of the same path, points the path back at itself.
	one := Doc("t1", "p.txt", "one")
	enqueue(t, s, "t1", store.OnChangeHold, one)
	commitAll(t, s, "t1")
	// An engine may write a batch in job key order: the change is picked
	// to sort first, so it is written first on every engine.
	two := Doc("t1", "p.txt", "two")
	for i := 0; two.JobKey > one.JobKey; i++ {
		two = Doc("t1", "p.txt", fmt.Sprintf("two %d", i))
	}
	got = outcomes(enqueue(t, s, "t1", store.OnChangeProcess, two, one))
	eqSlice(t, "change and back", got, []string{store.EnqueueNew, store.EnqueueAlreadyCommitted})
	res := enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "p.txt", "three"))
	eq(t, "next change", res[0].Outcome, store.EnqueueHeld)
	eq(t, "held against", res[0].PrevJobKey, one.JobKey)
}
