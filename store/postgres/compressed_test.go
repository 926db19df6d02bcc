package postgres_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
	"github.com/invx/invx/store/storetest"
)

// oldDatabase applies the migrations up to and including version upTo to
// the empty database at dsn, as a release of that time would have, and
// returns a connection to it.
func oldDatabase(t *testing.T, dsn string, upTo int) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	ms, err := driver.LoadMigrations(os.DirFS("migrations"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:upTo] {
		if _, err := conn.Exec(ctx, m.SQL); err != nil {
			t.Fatalf("apply migration %d: %v", m.Version, err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO schema_migrations VALUES ($1, $2, 0)`, m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

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

// upgradeFrom is a fresh database at migration upTo, for a storetest
// upgrade check.
func upgradeFrom(t *testing.T, upTo int) storetest.Upgrade012 {
	t.Helper()
	dsn := freshDB(t)
	conn := oldDatabase(t, dsn, upTo)
	ctx := context.Background()
	return storetest.Upgrade012{
		Exec: func(t *testing.T, q string) {
			t.Helper()
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		},
		Open: func(t *testing.T) store.Store { return open(t, dsn) },
		Count: func(t *testing.T, q string) int64 {
			t.Helper()
			var n int64
			if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return n
		},
		Key: func(hex string) string { return `'\x` + hex + `'::bytea` },
	}
}

func TestDictionaries(t *testing.T) {
	t.Parallel()
	dsn := freshDB(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	var mu sync.Mutex // one pgx.Conn is not for concurrent use
	storetest.Dicts014(t, storetest.DictDB{
		Open: func(t *testing.T) store.Store { return open(t, dsn) },
		Exec: func(q string) error {
			mu.Lock()
			defer mu.Unlock()
			_, err := conn.Exec(ctx, q)
			return err
		},
		Blobs: func(t *testing.T, q string) [][]byte {
			mu.Lock()
			defer mu.Unlock()
			rows, err := conn.Query(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			out, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return out
		},
		Count: func(t *testing.T, q string) int64 {
			t.Helper()
			mu.Lock()
			defer mu.Unlock()
			var n int64
			if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return n
		},
		Refused: []string{`TRUNCATE zstd_dicts`},
	})
}
