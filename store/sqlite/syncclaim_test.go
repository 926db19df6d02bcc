package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/storetest"
)

// A claim commits without waiting for the disk (synchronous NORMAL): a
// power loss may undo a lease, which harms nothing. Every other write
// transaction (the enqueue, the commit of a result with its outbox, the
// give-back) syncs as before (FULL), and so does the writer after a claim.
func TestOnlyClaimsCommitUnsynced(t *testing.T) {
	t.Parallel()
	s := open(t)
	defer s.Close()
	levels := sqlite.RecordSyncLevels(s)
	ctx := context.Background()
	now := time.Unix(1e9, 0)
	docs := make([]store.Document, 3)
	for i := range docs {
		docs[i] = storetest.Doc("t1", fmt.Sprintf("inv-%d.txt", i), fmt.Sprintf("invoice %d", i))
	}
	if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: docs, Now: now}); err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	for i := range docs {
		ls, err := s.Claim(ctx, &store.ClaimParams{Owner: "w1", RunID: "run-1", Limit: 1, LeaseFor: time.Minute, Now: now})
		if err != nil || len(ls) != 1 {
			t.Fatalf("claim %d: %d leases, %v", i, len(ls), err)
		}
		l := ls[0]
		if i == 2 {
			if err := s.GiveBack(ctx, &store.GiveBackParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID, Now: now}); err != nil {
				t.Fatalf("give back: %v", err)
			}
			break
		}
		if _, err := s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey,
			Token: l.Token, AttemptID: l.AttemptID, RunID: "run-1", SchemaVersion: "invoice-summary-v1",
			Result:  []byte(`{"schema_version":"invoice-summary-v1"}`),
			Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: now}); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	var claims, synced int
	for i, l := range levels() {
		want := 2
		if l.LeaseOnly {
			want = 1
			claims++
		} else {
			synced++
		}
		if l.Level != want {
			t.Errorf("write %d (lease only %v) ran at synchronous %d, want %d", i, l.LeaseOnly, l.Level, want)
		}
	}
	if claims != 3 || synced < 4 {
		t.Errorf("%d claims and %d other writes seen, want 3 and at least 4 (enqueue, 2 commits, give-back)", claims, synced)
	}
	w, _ := sqlite.Pools(s)
	var level int
	if err := w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&level); err != nil || level != 2 {
		t.Errorf("writer after the claims: synchronous %d (%v), want 2 (FULL)", level, err)
	}
}
