package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
	"github.com/invx/invx/store/storetest"
)

func TestCompressedPayloadsNextToOldRows(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "invx.db")
	db := oldDatabase(t, path, 11)
	storetest.Compressed012(t, storetest.Upgrade012{
		Exec: func(t *testing.T, q string) { mustExec(t, db, q) },
		Open: func(t *testing.T) store.Store {
			db.Close()
			s, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatalf("open the pre-012 database: %v", err)
			}
			return s
		},
		Count: func(t *testing.T, q string) int64 {
			var n int64
			if err := sqlitetest.ReadOnly(t, path).QueryRow(q).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return n
		},
	})
}
