package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/storetest"
)

func open(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "invx.db"))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Exercise(t, func(t *testing.T) store.Store { return open(t) })
}

// Every pooled connection, not just the first, must carry the settings that
// make several processes safe: they are applied by the driver per
// connection, and this reads them back from fresh connections of both pools.
func TestPragmasOnFreshConnections(t *testing.T) {
	t.Parallel()
	s := open(t)
	defer s.Close()
	ctx := context.Background()
	want := map[string]string{"busy_timeout": "30000", "journal_mode": "wal", "synchronous": "2", "foreign_keys": "1"}
	for _, db := range []struct {
		name  string
		pool  *sql.DB
		conns int
	}{{"writer", s.WriterDB(), 1}, {"reader", s.ReaderDB(), 4}} {
		// Hold several connections at once so the pool must open new ones.
		var conns []*sql.Conn
		for range db.conns {
			c, err := db.pool.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for i, c := range conns {
			for p, v := range want {
				var got string
				if err := c.QueryRowContext(ctx, "PRAGMA "+p).Scan(&got); err != nil {
					t.Fatalf("%s conn %d: pragma %s: %v", db.name, i, p, err)
				}
				if got != v {
					t.Errorf("%s conn %d: %s = %q, want %q", db.name, i, p, got, v)
				}
			}
		}
		for _, c := range conns {
			c.Close()
		}
	}
	if got := s.WriterDB().Stats().MaxOpenConnections; got != 1 {
		t.Errorf("writer pool max open = %d, want 1", got)
	}
}

func TestFileModeIsPrivate(t *testing.T) {
	t.Parallel()
	s := open(t)
	defer s.Close()
	for _, suffix := range []string{"", "-wal"} {
		st, err := os.Stat(s.Path() + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if m := st.Mode().Perm(); m != 0o600 {
			t.Errorf("%s mode = %o, want 600", filepath.Base(s.Path()+suffix), m)
		}
	}
}

func TestMigrationsAreIdempotent(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("migrations", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("migration files: %v (%d)", err, len(files))
	}
	path := filepath.Join(t.TempDir(), "invx.db")
	for range 3 {
		s, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := s.ReaderDB().QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != len(files) {
			t.Fatalf("schema_migrations rows = %d, want %d (one per migration file)", n, len(files))
		}
		s.Close()
	}
}
