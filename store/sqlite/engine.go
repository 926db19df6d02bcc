package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/invx/invx/store/internal/jobs"
)

// engine is what this driver gives the shared job logic (store/internal/jobs):
// write transactions on the one writer connection (BEGIN IMMEDIATE), so they
// are serialised and need no locks of their own, and the caller's clock.
type engine struct{ s *Store }

var _ jobs.Engine = engine{}

func (e engine) Write(ctx context.Context, fn func(jobs.Tx) error) error {
	return e.s.tx(ctx, func(x *execer) error { return fn(x) })
}

func (e engine) Read() jobs.Querier   { return e.s.reader }
func (e engine) Writer() jobs.Querier { return e.s.writer }

// Clock is the call's Now: every process on the file shares the host's clock.
func (e engine) Clock(_ context.Context, t time.Time) (time.Time, int64, error) {
	return t, ms(t), nil
}

// Text is s as it is: SQLite stores any bytes in a TEXT column.
func (e engine) Text(s string) string { return s }

// LockInvoice is a no-op: write transactions are serialised already.
func (e engine) LockInvoice(context.Context, jobs.Tx, string, string) error { return nil }

// conn is what *sql.DB and *sql.Tx both offer.
type conn interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// execer adapts a pool or a write transaction to jobs.Tx, running each
// statement through the pool's cache of prepared statements (stmt.go);
// errors come back through interpret.
type execer struct {
	c     conn   // the pool, or the transaction
	cache *stmts // the statements prepared on the pool c is, or runs on

	// Inside a transaction only:
	tx *sql.Tx
	// inTx is the transaction's handle on each cached statement it ran (a
	// nil one: not cached, run unprepared), so a text used many times in one
	// transaction (a group commit) binds its statement to it once.
	inTx map[string]*sql.Stmt
	// missed are the texts the cache lacked, prepared once the
	// transaction ended: inside it, the one writer connection is taken.
	missed []string
}

// txExecer is the execer of one write transaction on s's writer.
func (s *Store) txExecer(tx *sql.Tx) *execer {
	return &execer{c: tx, cache: s.ws, tx: tx, inTx: make(map[string]*sql.Stmt)}
}

// stmt is q's prepared statement, or nil: run q unprepared.
func (x *execer) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if x.tx == nil {
		return x.cache.prepare(ctx, q)
	}
	if st, ok := x.inTx[q]; ok {
		return st, nil
	}
	var st *sql.Stmt
	if base := x.cache.get(q); base != nil {
		// The statement was prepared on the writer's one connection, which
		// the transaction runs on: StmtContext finds it there and does not
		// prepare it again (database/sql, Tx.StmtContext).
		st = x.tx.StmtContext(ctx, base)
	} else {
		x.missed = append(x.missed, q)
	}
	x.inTx[q] = st
	return st, nil
}

func (x *execer) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	st, err := x.stmt(ctx, q)
	if err != nil {
		return 0, interpret(err)
	}
	var res sql.Result
	if st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = x.c.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, interpret(err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

func (x *execer) QueryRow(ctx context.Context, q string, args ...any) jobs.Row {
	st, err := x.stmt(ctx, q)
	switch {
	case err != nil:
		return errRow{interpret(err)}
	case st != nil:
		return row{st.QueryRowContext(ctx, args...)}
	}
	return row{x.c.QueryRowContext(ctx, q, args...)}
}

func (x *execer) Query(ctx context.Context, q string, args ...any) (jobs.Rows, error) {
	st, err := x.stmt(ctx, q)
	if err != nil {
		return nil, interpret(err)
	}
	var r *sql.Rows
	if st != nil {
		r, err = st.QueryContext(ctx, args...)
	} else {
		r, err = x.c.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, interpret(err)
	}
	return rows{r}, nil
}

// Defer runs the statement at once: there is no round trip to save.
func (x *execer) Defer(ctx context.Context, q string, args ...any) error {
	_, err := x.Exec(ctx, q, args...)
	return err
}

func (x *execer) Flush(context.Context) error { return nil }

// Script runs a file of statements unprepared: a prepared statement holds
// one statement, and a migration runs once.
func (x *execer) Script(ctx context.Context, q string) error {
	_, err := x.c.ExecContext(ctx, q)
	return interpret(err)
}

type row struct{ r *sql.Row }

func (r row) Scan(dest ...any) error { return interpret(r.r.Scan(dest...)) }

// errRow is a row whose statement could not be prepared.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

type rows struct{ r *sql.Rows }

func (r rows) Next() bool             { return r.r.Next() }
func (r rows) Scan(dest ...any) error { return interpret(r.r.Scan(dest...)) }
func (r rows) Err() error             { return interpret(r.r.Err()) }
func (r rows) Close()                 { _ = r.r.Close() }

// LockRows is empty: write transactions are serialised, so no other
// claimer can hold the row.
func (e engine) LockRows() string { return "" }

// LockTenant always succeeds: claims are serialised already.
func (e engine) LockTenant(context.Context, jobs.Tx, string) (bool, error) { return true, nil }

// LockMigrations is a no-op: BEGIN IMMEDIATE serialises processes that open
// a new file at once; the second waits (busy_timeout), then sees the
// migrations applied.
func (e engine) LockMigrations(context.Context, jobs.Tx) error { return nil }

// KeyOrder is false: write transactions are serialised, so documents keep
// their order and job ids follow discovery order.
func (e engine) KeyOrder() bool { return false }

// BytewiseText is true: the sources key's path column has SQLite's BINARY
// collation, which is memcmp.
func (e engine) BytewiseText() bool { return true }

// Values is plain: SQLite binds each argument with its own type.
func (e engine) Values(types []string, rows int) string { return jobs.ValuesRow(len(types), rows) }
