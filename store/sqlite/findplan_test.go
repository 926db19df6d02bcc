package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/store/internal/jobs"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

// TestFindAtPathSearchesBothIndexes: `invx jobs --path` looks a path up
// through (tenant, source_path) and (tenant, display_path), never by
// walking every job of the tenant, with or without a state filter.
func TestFindAtPathSearchesBothIndexes(t *testing.T) {
	t.Parallel()
	db := planDB(t)
	for _, tc := range []struct {
		states string
		args   []any
	}{
		{"", []any{"t", "a.txt", "t", "a.txt", 10}},
		{" AND state IN (?)", []any{"t", "a.txt", "committed", "t", "a.txt", "committed", 10}},
	} {
		all := queryPlan(t, db, jobs.FindAtPathQuery(tc.states), tc.args...)
		for _, want := range []string{"jobs_path (tenant=? AND source_path=?)", "jobs_display_path (tenant=? AND display_path=?)"} {
			if !strings.Contains(all, want) {
				t.Errorf("states %q: plan does not search %s:\n%s", tc.states, want, all)
			}
		}
	}
}

// TestRunStartAndFinishReadsUseTheirIndexes: what every run reads at its
// finish (its open review reasons, in job key order) and at the start of
// its work (the owners of running outbox leases) comes from the partial
// indexes of migration 019, not a probe of the table per open reason or a
// pass over every pending event (at 100k documents, 30k open reasons and
// 100k undelivered events: a tenth of a no-op rerun's CPU).
func TestRunStartAndFinishReadsUseTheirIndexes(t *testing.T) {
	t.Parallel()
	db := planDB(t)
	for _, tc := range []struct {
		name, query string
		args        []any
		want        string
	}{
		{"open review reasons", jobs.OpenReviewQuery, []any{"t"}, "USING COVERING INDEX review_reasons_open (tenant=?)"},
		{"outbox lease owners", jobs.LeasedOutboxQuery, []any{int64(5)}, "USING INDEX outbox_leased (state=? AND lease_owner>?)"},
	} {
		plan := queryPlan(t, db, tc.query, tc.args...)
		if !strings.Contains(plan, tc.want) {
			t.Errorf("%s: plan does not read %s:\n%s", tc.name, tc.want, plan)
		}
		if strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s: plan sorts in a temporary tree:\n%s", tc.name, plan)
		}
	}
}

// planDB is a new, empty store's database, migrated and read-only.
func planDB(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return sqlitetest.ReadOnly(t, path)
}

// queryPlan is EXPLAIN QUERY PLAN's details of q, a line each.
func queryPlan(t *testing.T, db *sql.DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
