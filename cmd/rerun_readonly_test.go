package cmd_test

import (
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
)

// A no-op rerun, with the stat check or with --rehash, writes nothing but
// its own run row: every other table of the database file is as it was,
// row for row (a real SQLite file, read after the process is gone). Its
// JSON summary is byte for byte the summary of the rerun before it, apart
// from the run's id, time and trace.
func TestNoopRerunWritesOnlyItsRunRow(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	args := e.rerunScenario()
	// This rerun reads every file once more and records the stats the
	// first run could not (its files were too fresh).
	recording := blankedSummary(t, e.must(cmd.ExitNeedsReview, append(args, e.in)...).stdout)

	before, runs := dumpExceptRuns(t, e.sqlDB()), queryInt(t, e.sqlDB(), `SELECT count(*) FROM runs`)
	for _, extra := range [][]string{nil, {"--rehash"}} {
		got := blankedSummary(t, e.must(cmd.ExitNeedsReview, append(append(args, extra...), e.in)...).stdout)
		if got != recording {
			t.Errorf("rerun %v: summary\n%s\nwant the recording rerun's\n%s", extra, got, recording)
		}
		if diff := cmp.Diff(before, dumpExceptRuns(t, e.sqlDB())); diff != "" {
			t.Errorf("rerun %v changed the database (-before +after):\n%s", extra, diff)
		}
	}
	if n := queryInt(t, e.sqlDB(), `SELECT count(*) FROM runs`); n != runs+2 {
		t.Errorf("runs: %d rows, want %d (one per rerun)", n, runs+2)
	}
}

var runVaries = regexp.MustCompile(`"(run_id|trace_id|wall_ms)":("[^"]*"|[0-9]+)`)

// blankedSummary is a run's JSON summary with what differs between any two
// runs (id, trace, time) blanked, the rest byte for byte.
func blankedSummary(t *testing.T, stdout string) string {
	t.Helper()
	if !strings.Contains(stdout, `"run_id"`) {
		t.Fatalf("no run summary on stdout: %q", stdout)
	}
	return runVaries.ReplaceAllString(stdout, `"$1":-`)
}

// dumpExceptRuns is every row of every table but runs, one line per row,
// sorted within its table.
func dumpExceptRuns(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'runs' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	if len(tables) < 5 {
		t.Fatalf("only tables %v", tables)
	}
	var out []string
	for _, table := range tables {
		rows, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, table+": "+fmt.Sprintf("%q", vals))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		slices.Sort(lines)
		out = append(out, lines...)
	}
	return out
}
