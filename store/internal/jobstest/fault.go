// Package jobstest helps the drivers' tests reach inside the shared job
// logic: it wraps an engine so that chosen statements fail in the
// database, as a real error would, mid-transaction.
package jobstest

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/invx/invx/store/internal/jobs"
)

// Broken is a statement both engines refuse when they run it (SQLite when
// it prepares it, PostgreSQL when it executes it, aborting the transaction
// or subtransaction it is in): the failure is the database's, not a Go
// error the database never saw.
const Broken = `SELECT * FROM jobstest_no_such_table`

// Fault picks the statements, run inside write transactions, that fail.
type Fault func(q string, args []any) bool

// FinishOf picks the statement that finishes the attempt with id attemptID
// (alone, or with the other attempts of its commit group): the last
// statement of its commit, so the commit's earlier writes (the
// job's state, its result, its events) are in the transaction when it fails
// and must be undone with it.
func FinishOf(attemptID int64) Fault {
	return func(q string, args []any) bool {
		if strings.Contains(q, jobs.FinishTag) {
			// A group's finish: one row of jobs.FinishWidth per attempt.
			for i := 0; i < len(args); i += jobs.FinishWidth {
				if args[i] == attemptID {
					return true
				}
			}
			return false
		}
		return strings.HasPrefix(strings.TrimSpace(q), "UPDATE attempts SET outcome = ?, finished_at = ?, error_class = ?, category = ?") &&
			len(args) > 0 && args[len(args)-1] == attemptID
	}
}

// NthRelease picks the nth RELEASE of a savepoint (counting from 1) and no
// other: a failure of a group commit's own statement, not of a member's.
func NthRelease(n int64) Fault {
	var seen atomic.Int64
	return func(q string, _ []any) bool {
		return strings.HasPrefix(q, "RELEASE ") && seen.Add(1) == n
	}
}

// GroupRelease picks the first RELEASE of a savepoint after a group's
// finish that names at least n attempts: a failure of a group commit's own
// statement, deep inside a group, not of a member's.
func GroupRelease(n int) Fault {
	var armed, done atomic.Bool
	return func(q string, args []any) bool {
		if named(q, args) >= n {
			armed.Store(true)
		}
		return strings.HasPrefix(q, "RELEASE ") && armed.Load() && !done.Swap(true)
	}
}

// Times picks what f picks, the first n times only.
func Times(n int64, f Fault) Fault {
	var seen atomic.Int64
	return func(q string, args []any) bool {
		return f(q, args) && seen.Add(1) <= n
	}
}

// named is how many attempts a group's finish names (padding rows are
// NULL); 0 for any other statement.
func named(q string, args []any) int {
	if !strings.Contains(q, jobs.FinishTag) {
		return 0
	}
	n := 0
	for i := 0; i < len(args); i += jobs.FinishWidth {
		if args[i] != nil {
			n++
		}
	}
	return n
}

// Once picks what f picks, the first time only.
func Once(f Fault) Fault {
	var done atomic.Bool
	return func(q string, args []any) bool {
		return f(q, args) && !done.Swap(true)
	}
}

// Wrap wraps e so that the statements f picks are replaced, inside write
// transactions, by with: Broken, or a statement that fails in a way of its
// own (a deadlock) or takes its time.
func Wrap(e jobs.Engine, f Fault, with string) jobs.Engine {
	return &faulty{Engine: e, match: f, with: with}
}

type faulty struct {
	jobs.Engine
	match Fault
	with  string
}

func (e *faulty) Write(ctx context.Context, fn func(jobs.Tx) error) error {
	return e.Engine.Write(ctx, func(tx jobs.Tx) error { return fn(faultyTx{tx, e.match, e.with}) })
}

type faultyTx struct {
	jobs.Tx
	match Fault
	with  string
}

// fix is the statement to run for q, and whether with must run before q
// rather than instead of it: a statement that writes for several commits
// of a group (a finish naming more than one attempt) keeps the others'
// writes, as the database would run them had with been one member's own
// statement that failed or took its time.
func (t faultyTx) fix(q string, args []any) (string, []any, bool) {
	if !t.match(q, args) {
		return q, args, false
	}
	if named(q, args) > 1 {
		return q, args, true
	}
	return t.with, nil, false
}

func (t faultyTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	q, args, first := t.fix(q, args)
	if first {
		if _, err := t.Tx.Exec(ctx, t.with); err != nil {
			return 0, err
		}
	}
	return t.Tx.Exec(ctx, q, args...)
}

func (t faultyTx) QueryRow(ctx context.Context, q string, args ...any) jobs.Row {
	q, args, first := t.fix(q, args)
	if first {
		if _, err := t.Tx.Exec(ctx, t.with); err != nil {
			return errRow{err}
		}
	}
	return t.Tx.QueryRow(ctx, q, args...)
}

func (t faultyTx) Query(ctx context.Context, q string, args ...any) (jobs.Rows, error) {
	q, args, first := t.fix(q, args)
	if first {
		if _, err := t.Tx.Exec(ctx, t.with); err != nil {
			return nil, err
		}
	}
	return t.Tx.Query(ctx, q, args...)
}

func (t faultyTx) Defer(ctx context.Context, q string, args ...any) error {
	q, args, first := t.fix(q, args)
	if first {
		if err := t.Tx.Defer(ctx, t.with); err != nil {
			return err
		}
	}
	return t.Tx.Defer(ctx, q, args...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
