package jobs

import (
	"context"
	"runtime/trace"
	"sync"
	"time"
)

// Row is one row of a query; Scan returns store.ErrNotFound when there was
// none, and errors already interpreted by the engine.
type Row interface {
	Scan(dest ...any) error
}

// Rows is the result of a query; Close may be called more than once.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Querier runs statements. Statements use ? placeholders. Nullable columns
// scan into pointers (*int64, *string); booleans into bool.
type Querier interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, q string, args ...any) (int64, error)
	QueryRow(ctx context.Context, q string, args ...any) Row
	Query(ctx context.Context, q string, args ...any) (Rows, error)
}

// Tx is one write transaction.
type Tx interface {
	Querier
	// Defer runs a statement whose outcome nothing before the next Flush
	// depends on. An engine may send deferred statements together (one
	// round trip) at the next query or Flush, where their error then
	// surfaces; SQLite runs them at once.
	Defer(ctx context.Context, q string, args ...any) error
	// Flush runs what was deferred.
	Flush(ctx context.Context) error
	// Script runs a file of statements with no arguments (a migration),
	// as it is: no placeholders are numbered.
	Script(ctx context.Context, sql string) error
}

// Each write transaction runs in an execution-trace region named for what
// it writes (invx run --trace FILE; go tool trace, "User-defined regions"):
// the regions' durations say how long each kind of transaction took, the
// wait for the one SQLite writer included, which is where a first run's
// time goes when the store, not the provider, bounds it. A region costs
// nothing while no trace is being written.
const (
	regionEnqueue     = "invx.store.enqueue"
	regionClaim       = "invx.store.claim"
	regionCommit      = "invx.store.commit_group"
	regionFinish      = "invx.store.finish_attempt"
	regionGiveBack    = "invx.store.give_back"
	regionNextAttempt = "invx.store.next_attempt"
	regionOutbox      = "invx.store.claim_outbox"
	regionBatch       = "invx.store.batch"
	regionReview      = "invx.store.review"
	regionPrune       = "invx.store.prune"
	regionMigrate     = "invx.store.migrate"
	regionDict        = "invx.store.dictionary"
)

// write is E.Write inside the trace region named region.
func (c *Core) write(ctx context.Context, region string, fn func(Tx) error) error {
	defer trace.StartRegion(ctx, region).End()
	return c.E.Write(ctx, fn)
}

// leaseOnlyKey marks a context whose write transaction only leases jobs.
type leaseOnlyKey struct{}

// LeaseOnly marks ctx for a write transaction that only leases jobs (a
// claim): one that a power loss may undo without harm. A lease undone is a
// job claimable again, and no worker that held it outlives the loss where
// the database dies with the machine the workers run on: the lease tokens
// the undone claim handed out are held by no one. An engine whose
// database is such a file (SQLite) may commit a marked transaction without
// waiting for the disk; the next transaction that does wait makes it
// durable too, since both are in one log. An engine whose server can lose
// a commit that its workers survive (PostgreSQL) ignores the mark: a claim
// undone there would hand out a lease token a live worker still holds.
func LeaseOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, leaseOnlyKey{}, true)
}

// IsLeaseOnly reports whether ctx is marked LeaseOnly.
func IsLeaseOnly(ctx context.Context) bool {
	v, _ := ctx.Value(leaseOnlyKey{}).(bool)
	return v
}

// Engine is what a driver supplies to the shared job logic.
type Engine interface {
	// Write runs fn in one write transaction and commits it. An engine may
	// run fn again after a transaction the database aborted (a deadlock),
	// so fn starts from scratch each time. Errors come back interpreted.
	// When ctx is marked LeaseOnly the engine may commit without waiting
	// for the disk (see LeaseOnly).
	Write(ctx context.Context, fn func(Tx) error) error
	// Read runs reads outside any transaction.
	Read() Querier
	// Writer runs a single write statement outside any transaction.
	Writer() Querier
	// Clock resolves a call's Now: the database's clock, or t itself. It
	// returns the time and the same instant in Unix milliseconds.
	Clock(ctx context.Context, t time.Time) (time.Time, int64, error)
	// Text makes a string from outside (provider messages, notes) fit a
	// TEXT column.
	Text(s string) string
	// LockInvoice serialises, until tx ends, the commits that look for
	// duplicates of one invoice number, where write transactions can run
	// side by side; a no-op where they are serialised anyway.
	LockInvoice(ctx context.Context, tx Tx, tenant, number string) error
	// LockRows ends a SELECT that picks a row to lease: " FOR UPDATE SKIP
	// LOCKED" where claimers run side by side (a row another claimer holds
	// is skipped, never waited for), "" where writes are serialised.
	LockRows() string
	// LockTenant tries to take, until tx ends, the right to serve tenant
	// under ClaimParams.MaxPerTenant, never waiting for it; true where
	// claims are serialised anyway.
	LockTenant(ctx context.Context, tx Tx, tenant string) (bool, error)
	// KeyOrder reports whether an enqueue batch writes its rows in job key
	// order: where writers run side by side, two processes enqueueing
	// overlapping sets then lock the same keys in the same order, and wait
	// for each other rather than deadlock. Where writes are serialised,
	// documents keep their order, so job ids follow discovery order.
	KeyOrder() bool
	// BytewiseText reports whether TEXT keys compare byte by byte (a
	// BETWEEN on one selects what Go's string order would): the no-op
	// rerun's lookup then reads a chunk's references as one key range.
	// False where a collation may order them otherwise.
	BytewiseText() bool
	// Values is the VALUES list of rows rows of one placeholder per type
	// (colInt and the others in values.go), for a multi-row statement's
	// input table: plain where the database infers each parameter's type
	// from its use, typed where it would take them all for text.
	Values(types []string, rows int) string
	// LockMigrations serialises, until tx ends, the processes that migrate
	// one database, where write transactions alone do not.
	LockMigrations(ctx context.Context, tx Tx) error
}

// Core is the shared implementation of the store.Store methods on job
// logic. A driver embeds it, so those methods are the driver's own.
type Core struct {
	E Engine
	g *committer // StartCommits
	// dicts are the database's zstd dictionaries (OpenDicts); nil: values
	// are compressed without one.
	dicts *dictSet

	texts sync.Map // multiKey -> the text of a multi-row statement (values.go)
}

// fromMS reads a nullable millisecond column; NULL and 0 are the zero time.
func fromMS(v *int64) time.Time {
	if v == nil || *v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(*v).UTC()
}

// ms is t in Unix milliseconds, 0 for the zero time.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// nullMS is t in Unix milliseconds, NULL for the zero time.
func nullMS(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	v := t.UnixMilli()
	return &v
}

func msDuration(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// each runs fn on every row of a query, then closes it.
func each(rows Rows, err error, fn func(Rows) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ids reads a query of one integer column.
func ids(rows Rows, err error) ([]int64, error) {
	var out []int64
	err = each(rows, err, func(r Rows) error {
		var id int64
		if err := r.Scan(&id); err != nil {
			return err
		}
		out = append(out, id)
		return nil
	})
	return out, err
}

// strs reads a query of one text column.
func strs(rows Rows, err error) ([]string, error) {
	var out []string
	err = each(rows, err, func(r Rows) error {
		var s string
		if err := r.Scan(&s); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}
