package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/invx/invx/store"
)

// codeErr is an error with a SQLite result code, as modernc.org/sqlite's
// *sqlite.Error has.
type codeErr int

func (c codeErr) Error() string { return fmt.Sprintf("sqlite error %d", int(c)) }
func (c codeErr) Code() int     { return int(c) }

// TestInterpretTransient is the classification table: a lock that outlived
// the busy timeout may be ridden out, everything else is a bug or a broken
// disk.
func TestInterpretTransient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"SQLITE_BUSY", codeErr(5), true},
		{"SQLITE_LOCKED", codeErr(6), true},
		{"SQLITE_BUSY_SNAPSHOT", codeErr(517), true},
		{"SQLITE_BUSY_RECOVERY", codeErr(261), true},
		{"SQLITE_LOCKED_SHAREDCACHE", codeErr(262), true},
		{"wrapped SQLITE_BUSY", fmt.Errorf("claim: %w", codeErr(5)), true},
		{"SQLITE_CONSTRAINT_UNIQUE", codeErr(2067), false},
		{"SQLITE_ERROR (syntax)", codeErr(1), false},
		{"SQLITE_FULL", codeErr(13), false},
		{"SQLITE_CORRUPT", codeErr(11), false},
		{"SQLITE_IOERR", codeErr(10), false},
		{"no rows", sql.ErrNoRows, false},
		{"plain", errors.New("x"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := store.IsTransient(interpret(tt.err)); got != tt.want {
				t.Fatalf("IsTransient(interpret(%v)) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// A real SQLITE_BUSY from the driver: a second writer with no busy timeout
// while the first holds the write lock.
func TestInterpretRealBusy(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "busy.db")
	open := func(timeout int) *sql.DB {
		q := url.Values{}
		q.Set("_txlock", "immediate")
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", timeout))
		q.Add("_pragma", "journal_mode(WAL)")
		db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	ctx := context.Background()
	a, b := open(0), open(0)
	if _, err := a.ExecContext(ctx, `CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	tx, err := a.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	_, err = b.ExecContext(ctx, `INSERT INTO t VALUES (2)`)
	if err == nil {
		t.Fatal("second writer got the lock")
	}
	if !store.IsTransient(interpret(err)) {
		t.Fatalf("interpret(%v) is not transient", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	// A constraint error from the same driver is not.
	if _, err := a.ExecContext(ctx, `CREATE UNIQUE INDEX tx ON t (x)`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ExecContext(ctx, `INSERT INTO t VALUES (3)`); err != nil {
		t.Fatal(err)
	}
	_, err = b.ExecContext(ctx, `INSERT INTO t VALUES (3)`)
	if err == nil || store.IsTransient(interpret(err)) {
		t.Fatalf("unique violation: interpret(%v) is transient or missing", err)
	}
}
