package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
	"github.com/invx/invx/store/storetest"
)

func TestCompressedPayloadsNextToOldRows(t *testing.T) {
	t.Parallel()
	storetest.Compressed012(t, upgradeFrom(t, 11))
}

// TestLabelsMigration: a database at migration 016 with rows reads back
// the same after 017 moves source systems and read options into labels.
func TestLabelsMigration(t *testing.T) {
	t.Parallel()
	storetest.Labels017(t, upgradeFrom(t, 16))
}

// upgradeFrom is a database file at migration upTo, for a storetest
// upgrade check.
func upgradeFrom(t *testing.T, upTo int) storetest.Upgrade012 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "invx.db")
	db := oldDatabase(t, path, upTo)
	return storetest.Upgrade012{
		Exec: func(t *testing.T, q string) { mustExec(t, db, q) },
		Open: func(t *testing.T) store.Store {
			db.Close()
			s, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatalf("open the database at migration %d: %v", upTo, err)
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
		Key: func(hex string) string { return "X'" + hex + "'" },
	}
}

func TestDictionaries(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "invx.db")
	storetest.Dicts014(t, storetest.DictDB{
		Open: func(t *testing.T) store.Store {
			s, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Exec: func(q string) error {
			db, err := sql.Open("sqlite", sqlite.DSN(path, "immediate"))
			if err != nil {
				return err
			}
			defer db.Close()
			_, err = db.Exec(q)
			return err
		},
		Blobs: func(t *testing.T, q string) [][]byte {
			rows, err := sqlitetest.ReadOnly(t, path).Query(q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer rows.Close()
			var out [][]byte
			for rows.Next() {
				var b []byte
				if err := rows.Scan(&b); err != nil {
					t.Fatal(err)
				}
				out = append(out, b)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			return out
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
