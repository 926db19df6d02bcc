package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// giveBack undoes l's lease.
func giveBack(s store.Store, l *store.Lease, attemptID int64, now time.Time) error {
	return s.GiveBack(context.Background(), &store.GiveBackParams{JobID: l.JobID, Token: l.Token, AttemptID: attemptID, Now: now})
}

func attemptRows(t *testing.T, s store.Store, jobID int64) []*store.Attempt {
	t.Helper()
	atts, err := s.ListAttempts(context.Background(), &store.ListAttemptsParams{JobID: jobID})
	noErr(t, "list attempts", err)
	return atts
}

// A lease given back before its call queues the job again with its attempt
// budget refunded and the attempt closed as not_started; only the current
// holder of an open attempt can give it back.
func testGiveBack(t *testing.T, s store.Store) {
	d := Doc("t1", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	l := claim(t, s, "t1", "w", 1, t0)[0]
	wrong := *l
	wrong.Token++
	if err := giveBack(s, &wrong, l.AttemptID, t0); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("give back with another token: %v, want ErrStaleLease", err)
	}
	eq(t, "state after a fenced give back", state(t, s, "t1", d.JobKey).State, store.StateRunning)
	noErr(t, "give back", giveBack(s, l, l.AttemptID, t0))
	eq(t, "state", state(t, s, "t1", d.JobKey).State, store.StateQueued)
	atts := attemptRows(t, s, l.JobID)
	eq(t, "attempt rows", len(atts), 1)
	eq(t, "given back", atts[0].Outcome, store.OutcomeNotStarted)
	if err := giveBack(s, l, l.AttemptID, t0); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("second give back: %v, want ErrStaleLease", err)
	}

	l2 := claim(t, s, "t1", "w", 1, t0)[0]
	eq(t, "attempt no after a give back", l2.AttemptNo, 2)
	eq(t, "budget spent after a give back", l2.AttemptNo-l2.BudgetBase, 1)
	if l2.Token <= l.Token {
		t.Fatalf("token after a give back = %d, want > %d: a given-back lease must stay fenced", l2.Token, l.Token)
	}
	if _, err := commit(s, l, t0); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("commit under the given-back lease: %v, want ErrStaleLease", err)
	}
	// A repair attempt: the rejected first one stays, the open second one
	// is undone; the first one's id no longer gives anything back.
	next, err := s.NextAttempt(context.Background(), &store.NextAttemptParams{JobID: l2.JobID, Token: l2.Token,
		AttemptID: l2.AttemptID, RunID: "r", Owner: "w", Attempt: store.AttemptInfo{Outcome: store.OutcomeRejected,
			Category: "unknown_field"}, Now: t0})
	noErr(t, "next attempt", err)
	if err := giveBack(s, l2, l2.AttemptID, t0); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("give back of a closed attempt: %v, want ErrStaleLease", err)
	}
	noErr(t, "give back the repair", giveBack(s, l2, next.AttemptID, t0))
	atts = attemptRows(t, s, l2.JobID)
	eq(t, "attempt rows", len(atts), 3)
	eq(t, "outcomes", atts[1].Outcome+" "+atts[2].Outcome, store.OutcomeRejected+" "+store.OutcomeNotStarted)
	l3 := claim(t, s, "t1", "w", 1, t0)[0]
	eq(t, "budget spent after the repair was given back", l3.AttemptNo-l3.BudgetBase, 2)
	if _, err := commit(s, l3, t0); err != nil {
		t.Fatalf("commit after give backs: %v", err)
	}
	eq(t, "state", state(t, s, "t1", d.JobKey).State, store.StateSucceeded)
}
