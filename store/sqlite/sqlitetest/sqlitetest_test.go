package sqlitetest_test

import (
	"path/filepath"
	"testing"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

// TestReadOnly checks both halves of the helper's promise: it sees what the
// store committed, and it cannot change it.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "invx.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.BeginRun(t.Context(), &store.BeginRunParams{ID: "r1", Tenant: "t1", Command: "run"}); err != nil {
		t.Fatal(err)
	}
	db := sqlitetest.ReadOnly(t, path)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM runs WHERE id = 'r1'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("runs r1 = %d, %v; want 1, nil", n, err)
	}
	if _, err := db.Exec(`DELETE FROM runs`); err == nil {
		t.Fatal("DELETE through the read-only pool succeeded")
	}
	if err := db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("runs after the refused DELETE = %d, %v; want 1, nil", n, err)
	}
}
