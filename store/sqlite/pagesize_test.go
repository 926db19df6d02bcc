package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

// TestPageSize: a database invx creates has its page size and WAL; one
// that exists keeps the page size it has.
func TestPageSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	pragma := func(path, name string) string {
		t.Helper()
		var v string
		if err := sqlitetest.ReadOnly(t, path).QueryRow("PRAGMA " + name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}

	fresh := filepath.Join(dir, "fresh.db")
	s, err := sqlite.Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := pragma(fresh, "page_size"); got != "8192" {
		t.Fatalf("new database page_size = %s, want 8192", got)
	}
	if got := pragma(fresh, "journal_mode"); got != "wal" {
		t.Fatalf("new database journal_mode = %s, want wal", got)
	}

	old := filepath.Join(dir, "old.db")
	oldDatabase(t, old, 13).Close()
	s, err = sqlite.Open(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := pragma(old, "page_size"); got != "4096" {
		t.Fatalf("existing database page_size = %s, want its 4096", got)
	}
}

// TestOpenFreshFileFromManyProcesses: processes started together on a
// database that does not exist yet all open it. Each sees an empty file and
// initialises it; SQLite refuses the loser of two simultaneous switches to
// WAL with SQLITE_BUSY without waiting (its deadlock guard), which failed
// `invx run` in one of four processes now and then. Goroutines stand in
// for the processes: SQLite locks between connections of one process as it
// does between processes.
func TestOpenFreshFileFromManyProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	for round := 0; round < 40; round++ {
		path := filepath.Join(dir, fmt.Sprintf("r%d.db", round))
		const n = 8
		errs := make(chan error, n)
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			go func() {
				<-start
				s, err := sqlite.Open(ctx, path)
				if err == nil {
					err = s.Close()
				}
				errs <- err
			}()
		}
		close(start)
		var failed []error
		for i := 0; i < n; i++ {
			if err := <-errs; err != nil {
				failed = append(failed, err)
			}
		}
		if len(failed) > 0 {
			t.Fatalf("round %d: %d of %d opens failed, first: %v", round, len(failed), n, failed[0])
		}
		var mode string
		if err := sqlitetest.ReadOnly(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if mode != "wal" {
			t.Fatalf("round %d: journal_mode %q, want wal", round, mode)
		}
	}
}
