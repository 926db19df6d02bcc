package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/postgres"
	"github.com/invx/invx/store/storetest"
)

// Statements are prepared once per connection and then only executed: pgx's
// default statement cache (QueryExecModeCacheStatement) names each text and
// prepares it on first use. Over more cycles of the hot path the set of
// prepared statements on the server stays the same while their executions
// grow; a mode that parses every call (exec, simple_protocol, or the
// describe cache with unnamed statements) leaves none prepared.
func TestStatementsPreparedOncePerConnection(t *testing.T) {
	t.Parallel()
	s := open(t, freshDB(t))
	defer s.Close()
	ctx := context.Background()
	now := time.Unix(1e9, 0)
	cycle := func(i int) {
		t.Helper()
		d := storetest.Doc("t1", fmt.Sprintf("inv-%03d.txt", i), fmt.Sprintf("invoice %d", i))
		if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
			SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: []store.Document{d}, Now: now}); err != nil {
			t.Fatalf("enqueue %d: %v", i, err)
		}
		ls, err := s.Claim(ctx, &store.ClaimParams{Owner: "w1", RunID: "run-1", Limit: 1, LeaseFor: time.Minute, Now: now})
		if err != nil || len(ls) != 1 {
			t.Fatalf("claim %d: %d leases, %v", i, len(ls), err)
		}
		l := ls[0]
		if _, err := s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey,
			Token: l.Token, AttemptID: l.AttemptID, RunID: "run-1", SchemaVersion: "invoice-summary-v1",
			Result:  []byte(`{"schema_version":"invoice-summary-v1"}`),
			Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: now}); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		if p, err := s.Pending(ctx, &store.PendingParams{Tenant: "t1"}); err != nil || p.Total() != 0 {
			t.Fatalf("pending after commit %d: %+v, %v", i, p, err)
		}
	}
	cycle(0)
	cycle(1)
	texts, runs := prepared(t, s)
	if texts == 0 {
		t.Fatal("no statement is prepared on the server after two cycles: every call is parsed again")
	}
	const n = 30
	for i := 2; i < 2+n; i++ {
		cycle(i)
	}
	texts2, runs2 := prepared(t, s)
	t.Logf("%d cycles: %d distinct prepared statements (%d before), %d executions", n, texts2, texts, runs2-runs)
	if texts2 != texts {
		t.Errorf("distinct prepared statements grew from %d to %d over %d cycles, want the same set reused", texts, texts2, n)
	}
	// Each cycle runs several prepared statements (the claim's, the
	// commit's, the pending count); one per cycle is a floor that a store
	// parsing each call again could not reach.
	if runs2-runs < 3*n {
		t.Errorf("prepared statements ran %d times over %d cycles, want >= %d", runs2-runs, n, 3*n)
	}
}

// prepared is, over the pool's idle connections (every one, between
// calls), the number of distinct statement texts prepared on the server and
// how many times they have run. pg_prepared_statements shows a session only
// its own, so each connection is asked.
func prepared(t *testing.T, s *postgres.Store) (texts int, runs int64) {
	t.Helper()
	ctx := context.Background()
	conns := s.Pool().AcquireAllIdle(ctx)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	seen := map[string]bool{}
	for _, c := range conns {
		rows, err := c.Query(ctx, `SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements WHERE from_sql = false`)
		if err != nil {
			t.Fatalf("list prepared statements: %v", err)
		}
		for rows.Next() {
			var q string
			var n int64
			if err := rows.Scan(&q, &n); err != nil {
				t.Fatalf("scan prepared statement: %v", err)
			}
			seen[q] = true
			runs += n
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("list prepared statements: %v", err)
		}
	}
	return len(seen), runs
}
