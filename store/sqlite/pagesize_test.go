package sqlite_test

import (
	"context"
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
