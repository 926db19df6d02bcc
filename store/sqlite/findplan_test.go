package sqlite_test

import (
	"context"
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
	path := filepath.Join(t.TempDir(), "plan.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db := sqlitetest.ReadOnly(t, path)
	for _, tc := range []struct {
		states string
		args   []any
	}{
		{"", []any{"t", "a.txt", "t", "a.txt", 10}},
		{" AND state IN (?)", []any{"t", "a.txt", "committed", "t", "a.txt", "committed", 10}},
	} {
		rows, err := db.Query("EXPLAIN QUERY PLAN "+jobs.FindAtPathQuery(tc.states), tc.args...)
		if err != nil {
			t.Fatal(err)
		}
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
		all := strings.Join(plan, "\n")
		for _, want := range []string{"jobs_path (tenant=? AND source_path=?)", "jobs_display_path (tenant=? AND display_path=?)"} {
			if !strings.Contains(all, want) {
				t.Errorf("states %q: plan does not search %s:\n%s", tc.states, want, all)
			}
		}
	}
}
