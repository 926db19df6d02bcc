package storetest

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// One claim leases many jobs of every kind at once (issue 17): expired
// leases first (taken over, their open attempts closed as lease_expired),
// then retries that came due (with their earlier tokens), then new work;
// each lease with its own token, attempt number and attempt row.
func testClaimBatch(t *testing.T, s store.Store) {
	ctx := context.Background()
	var docs []store.Document
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		docs = append(docs, Doc("t1", name+".txt", "text "+name))
	}
	enqueue(t, s, "t1", store.OnChangeHold, docs...)
	crashed := claim(t, s, "t1", "crashed", 2, t0)
	eq(t, "crashed claim", len(crashed), 2)
	retried := claim(t, s, "t1", "w0", 1, t0)[0]
	noErr(t, "finish attempt", s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: retried.JobID, Token: retried.Token,
		AttemptID: retried.AttemptID, State: store.StateRetryWait, NextAttemptAt: t0.Add(time.Minute),
		Attempt: store.AttemptInfo{Outcome: store.OutcomeRetry, InputTokens: 7, OutputTokens: 3}, Now: t0}))

	later := t0.Add(2 * time.Minute) // past the crashed leases and the retry time
	ls := claim(t, s, "t1", "w", 10, later)
	eq(t, "batch claim", len(ls), 5)
	keys := func(ls []*store.Lease) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = l.JobKey
		}
		sort.Strings(out)
		return out
	}
	eqSlice(t, "expired leases first", keys(ls[:2]), keys(crashed))
	eq(t, "then the retry", ls[2].JobKey, retried.JobKey)
	type lease struct {
		token             int64
		attemptNo, prev   int
		prevTokens        int64
		recovered         bool
		recoveries        int
		expiresAt         time.Time
		text, tenant, ver string
	}
	seen := map[int64]bool{}
	for i, l := range ls {
		want := lease{token: 1, attemptNo: 1, expiresAt: later.Add(time.Minute).UTC(), tenant: "t1", ver: "invoice-summary-v1"}
		switch i {
		case 0, 1:
			want.token, want.attemptNo, want.prev, want.recovered, want.recoveries = 2, 2, 1, true, 1
		case 2:
			want.token, want.attemptNo, want.prev, want.prevTokens = 2, 2, 1, 10
		}
		want.text = "text " + l.SourcePath[:1]
		got := lease{l.Token, l.AttemptNo, l.PrevAttempts, l.PrevTokens, l.Recovered, l.Recoveries, l.ExpiresAt.UTC(), l.Text, l.Tenant, l.SchemaVersion}
		eq(t, fmt.Sprintf("lease %d (%s)", i, l.SourcePath), got, want)
		if l.AttemptID <= 0 || seen[l.AttemptID] {
			t.Fatalf("lease %d: attempt id %d is not new", i, l.AttemptID)
		}
		seen[l.AttemptID] = true
		as, err := s.ListAttempts(ctx, &store.ListAttemptsParams{JobID: l.JobID})
		noErr(t, "list attempts", err)
		eq(t, fmt.Sprintf("lease %d attempts", i), len(as), l.AttemptNo)
		last := as[len(as)-1]
		eq(t, fmt.Sprintf("lease %d attempt row", i), fmt.Sprint(last.ID, last.AttemptNo, last.Owner, last.LeaseToken, last.Outcome),
			fmt.Sprint(l.AttemptID, l.AttemptNo, "w", l.Token, ""))
		if l.Recovered {
			eq(t, fmt.Sprintf("lease %d earlier attempt", i), as[0].Outcome, store.OutcomeLeaseExpired)
		}
	}
	eq(t, "nothing left", len(claim(t, s, "t1", "w2", 10, later)), 0)
	// The crashed holders are fenced out.
	if _, err := commit(s, crashed[0], later); err == nil {
		t.Fatal("a crashed holder committed over the new lease")
	}
}
