// Package sqlitetest gives tests read-only access to an invx SQLite
// database, to assert the rows a command or a runner left behind. Tests
// never reach into a Store's own connection pools: those are the driver's,
// and a test that wrote through them could make a broken driver pass.
package sqlitetest

import (
	"database/sql"
	"testing"

	"github.com/invx/invx/store/sqlite"
)

// ReadOnly opens the database file at path on a connection pool of its own
// that refuses every write (PRAGMA query_only), with the driver's settings
// (WAL, busy timeout), and closes it when the test ends. It may be opened
// beside a live Store: WAL readers never block the writer.
func ReadOnly(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", sqlite.DSN(path, "deferred")+"&_pragma=query_only(1)")
	if err != nil {
		t.Fatalf("open %s read-only: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
