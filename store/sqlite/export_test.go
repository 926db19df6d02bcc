package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/invx/invx/store/internal/jobs"
	"github.com/invx/invx/store/internal/jobstest"
)

// Pools hands the driver's own tests the store's writer and reader pools,
// to check their settings; nothing outside this package's tests sees them.
func Pools(s *Store) (writer, reader *sql.DB) { return s.w, s.r }

// CountStatements makes s count the statements its job logic sends (in
// and outside transactions) and returns the counter.
func CountStatements(s *Store) *atomic.Int64 {
	c := &countingEngine{Engine: s.Core.E, n: new(atomic.Int64)}
	s.Core.E = c
	return c.n
}

// CountWrites makes s count the write transactions its job logic opens
// (and Writer statements outside them) and returns the counter.
func CountWrites(s *Store) *atomic.Int64 {
	c := &countingEngine{Engine: s.Core.E, n: new(atomic.Int64), writes: new(atomic.Int64)}
	s.Core.E = c
	return c.writes
}

type countingEngine struct {
	jobs.Engine
	n      *atomic.Int64
	writes *atomic.Int64 // nil: not counted
}

func (e *countingEngine) Write(ctx context.Context, fn func(jobs.Tx) error) error {
	if e.writes != nil {
		e.writes.Add(1)
	}
	return e.Engine.Write(ctx, func(tx jobs.Tx) error { return fn(countingTx{tx, e.n}) })
}

func (e *countingEngine) Read() jobs.Querier {
	return countingTx{Tx: readOnly{e.Engine.Read()}, n: e.n}
}
func (e *countingEngine) Writer() jobs.Querier {
	if e.writes != nil {
		e.writes.Add(1)
	}
	return countingTx{Tx: readOnly{e.Engine.Writer()}, n: e.n}
}

// readOnly is a Querier posing as a Tx, for the counter.
type readOnly struct{ jobs.Querier }

func (readOnly) Defer(context.Context, string, ...any) error { panic("not a transaction") }
func (readOnly) Flush(context.Context) error                 { panic("not a transaction") }
func (readOnly) Script(context.Context, string) error        { panic("not a transaction") }

type countingTx struct {
	jobs.Tx
	n *atomic.Int64
}

func (t countingTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	t.n.Add(1)
	return t.Tx.Exec(ctx, q, args...)
}

func (t countingTx) QueryRow(ctx context.Context, q string, args ...any) jobs.Row {
	t.n.Add(1)
	return t.Tx.QueryRow(ctx, q, args...)
}

func (t countingTx) Query(ctx context.Context, q string, args ...any) (jobs.Rows, error) {
	t.n.Add(1)
	return t.Tx.Query(ctx, q, args...)
}

func (t countingTx) Defer(ctx context.Context, q string, args ...any) error {
	t.n.Add(1)
	return t.Tx.Defer(ctx, q, args...)
}

// OpenDriver is Open on the database/sql driver registered as driverName,
// for tests that wrap modernc.org/sqlite to count what it is asked to do.
func OpenDriver(ctx context.Context, path, driverName string) (*Store, error) {
	return open(ctx, path, driverName)
}

// CachedStatements are the statements s holds prepared, on its writer and
// its reader pools.
func CachedStatements(s *Store) []*sql.Stmt {
	var out []*sql.Stmt
	for _, c := range []*stmts{s.ws, s.rs} {
		c.m.Range(func(_, v any) bool {
			out = append(out, v.(*sql.Stmt))
			return true
		})
	}
	return out
}

// Fail replaces the statements f picks, inside s's write transactions, by
// with (jobstest.Wrap).
func Fail(s *Store, f jobstest.Fault, with string) {
	s.Core.E = jobstest.Wrap(s.Core.E, f, with)
}

// SyncLevel is one write transaction's synchronous level, read inside it,
// and whether its context was marked jobs.LeaseOnly.
type SyncLevel struct {
	LeaseOnly bool
	Level     int // 1 NORMAL, 2 FULL
}

// RecordSyncLevels makes s record the synchronous level each write
// transaction of its job logic runs at: the level its commit syncs with.
func RecordSyncLevels(s *Store) func() []SyncLevel {
	e := &syncEngine{Engine: s.Core.E}
	s.Core.E = e
	return func() []SyncLevel {
		e.mu.Lock()
		defer e.mu.Unlock()
		return append([]SyncLevel(nil), e.seen...)
	}
}

type syncEngine struct {
	jobs.Engine
	mu   sync.Mutex
	seen []SyncLevel
}

func (e *syncEngine) Write(ctx context.Context, fn func(jobs.Tx) error) error {
	return e.Engine.Write(ctx, func(tx jobs.Tx) error {
		// A pragma's answer is fixed when it is parsed: a text of its
		// own each time, never a prepared one.
		e.mu.Lock()
		n := len(e.seen)
		e.mu.Unlock()
		var level int
		if err := tx.QueryRow(ctx, fmt.Sprintf("PRAGMA synchronous /* %d */", n)).Scan(&level); err != nil {
			return err
		}
		e.mu.Lock()
		e.seen = append(e.seen, SyncLevel{LeaseOnly: jobs.IsLeaseOnly(ctx), Level: level})
		e.mu.Unlock()
		return fn(tx)
	})
}
