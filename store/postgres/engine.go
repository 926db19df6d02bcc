package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/invx/invx/store/internal/jobs"
)

// engine is what this driver gives the shared job logic (store/internal/jobs):
// transactions that are run again after a deadlock, the database's clock,
// TEXT-safe strings, the per-invoice advisory lock, ? placeholders numbered
// $1, $2, ... and deferred statements sent together in one round trip.
type engine struct{ s *Store }

var _ jobs.Engine = engine{}

func (e engine) Write(ctx context.Context, fn func(jobs.Tx) error) error {
	return e.s.tx(ctx, func(tx pgx.Tx) error {
		t := &execer{q: tx}
		if err := fn(t); err != nil {
			return err
		}
		return t.Flush(ctx)
	})
}

func (e engine) Read() jobs.Querier   { return &execer{q: e.s.pool} }
func (e engine) Writer() jobs.Querier { return &execer{q: e.s.pool} }

func (e engine) Clock(ctx context.Context, t time.Time) (time.Time, int64, error) {
	return e.s.clock(ctx, t)
}

func (e engine) Text(s string) string { return text(s) }

// LockInvoice: two processes committing the same invoice at once would each
// miss the other's uncommitted row (READ COMMITTED). The lock, held to the
// end of the transaction, makes the second wait and then see the first:
// exactly one of them is flagged. It is per invoice number, not per
// supplier, because the supplier match is not one key (VAT keys, else
// names).
func (e engine) LockInvoice(ctx context.Context, tx jobs.Tx, tenant, number string) error {
	// Deferred: it goes out with the lookup that follows it, in order, in
	// one round trip (a group commit takes one lock per invoice number).
	return tx.Defer(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(? || chr(31) || ?, 0))`, tenant, number)
}

// batcher is what a transaction offers beyond querier.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// execer adapts the pool or a transaction to jobs.Tx. Deferred statements
// wait in a batch that goes out before the next statement (or at Flush).
type execer struct {
	q       querier
	pending *pgx.Batch
}

func (x *execer) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	if b := x.take(); b != nil {
		// The deferred statements go out with this one: one round trip.
		var n int64
		b.Queue(rebind(q), args...).Exec(func(tag pgconn.CommandTag) error {
			n = tag.RowsAffected()
			return nil
		})
		if err := x.send(ctx, b); err != nil {
			return 0, err
		}
		return n, nil
	}
	tag, err := x.q.Exec(ctx, rebind(q), args...)
	if err != nil {
		return 0, interpret(err)
	}
	return tag.RowsAffected(), nil
}

func (x *execer) QueryRow(ctx context.Context, q string, args ...any) jobs.Row {
	if b := x.take(); b != nil {
		return &batchRow{x: x, ctx: ctx, b: b, q: q, args: args}
	}
	return row{x.q.QueryRow(ctx, rebind(q), args...)}
}

// batchRow is a row whose query goes out, when it is scanned, after the
// deferred statements and in the same batch: one round trip, where
// flushing first would take two. An error of a deferred statement is the
// row's error, as it would be the flush's.
type batchRow struct {
	x    *execer
	ctx  context.Context
	b    *pgx.Batch
	q    string
	args []any
}

func (r *batchRow) Scan(dest ...any) error {
	var scanErr error
	r.b.Queue(rebind(r.q), r.args...).QueryRow(func(row pgx.Row) error {
		scanErr = row.Scan(dest...)
		return nil
	})
	if err := r.x.send(r.ctx, r.b); err != nil {
		return err
	}
	return interpret(scanErr)
}

func (x *execer) Query(ctx context.Context, q string, args ...any) (jobs.Rows, error) {
	if err := x.Flush(ctx); err != nil {
		return nil, err
	}
	r, err := x.q.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, interpret(err)
	}
	return rows{r}, nil
}

func (x *execer) Defer(_ context.Context, q string, args ...any) error {
	if x.pending == nil {
		x.pending = &pgx.Batch{}
	}
	x.pending.Queue(rebind(q), args...)
	return nil
}

func (x *execer) Flush(ctx context.Context) error {
	if b := x.take(); b != nil {
		return x.send(ctx, b)
	}
	return nil
}

// take hands over the deferred statements, if any.
func (x *execer) take() *pgx.Batch {
	b := x.pending
	if b == nil || b.Len() == 0 {
		return nil
	}
	x.pending = nil
	return b
}

// send runs a batch and reads all its results.
func (x *execer) send(ctx context.Context, b *pgx.Batch) error {
	bq, ok := x.q.(batcher)
	if !ok {
		return fmt.Errorf("deferred statements outside a transaction")
	}
	return interpret(bq.SendBatch(ctx, b).Close())
}

// Script runs q with no arguments, which pgx sends with the simple
// protocol: it runs a file of several statements.
func (x *execer) Script(ctx context.Context, q string) error {
	if err := x.Flush(ctx); err != nil {
		return err
	}
	_, err := x.q.Exec(ctx, q)
	return interpret(err)
}

type row struct{ r pgx.Row }

func (r row) Scan(dest ...any) error { return interpret(r.r.Scan(dest...)) }

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

type rows struct{ r pgx.Rows }

func (r rows) Next() bool             { return r.r.Next() }
func (r rows) Scan(dest ...any) error { return interpret(r.r.Scan(dest...)) }
func (r rows) Err() error             { return interpret(r.r.Err()) }
func (r rows) Close()                 { r.r.Close() }

// maxRebound bounds rebind's cache. The job logic sends a few dozen fixed
// texts, but an IN list with a placeholder per item makes one text per list
// length; past the bound a text is numbered on every call, as pgx's own
// statement cache (512 per connection, least recently used out) still
// prepares it once per connection.
const maxRebound = 1024

// rebound caches rebind's answers, so a statement's placeholders are
// numbered once per process, not on every call; nRebound counts its
// entries.
var (
	rebound  sync.Map
	nRebound atomic.Int32
)

// rebind numbers a statement's ? placeholders $1, $2, ... as PostgreSQL
// wants them. A ? inside a quoted string or identifier is left alone.
func rebind(q string) string {
	if v, ok := rebound.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	out := b.String()
	if nRebound.Load() < maxRebound {
		if _, loaded := rebound.LoadOrStore(q, out); !loaded {
			nRebound.Add(1)
		}
	}
	return out
}

// LockRows: concurrent claimers never wait for each other and never lease
// one job twice; a job another claimer holds right now is simply not
// offered.
func (e engine) LockRows() string { return ` FOR UPDATE SKIP LOCKED` }

// tenantLock is the first key of the two-key advisory lock that lets one
// claimer at a time serve a tenant under MaxPerTenant ("invt"); the second
// is the tenant's hash. A hash collision only makes two tenants take turns.
const tenantLock int32 = 0x696e7674

// LockTenant tries the tenant's transaction-scoped advisory lock, never
// waiting for it.
func (e engine) LockTenant(ctx context.Context, tx jobs.Tx, tenant string) (bool, error) {
	var ok bool
	err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(?, hashtext(?))`, tenantLock, tenant).Scan(&ok)
	return ok, err
}

// LockMigrations takes the migration lock until tx ends: a second process
// opening a fresh database waits here, then finds the migrations applied.
// It comes before CREATE TABLE IF NOT EXISTS, which is not safe against a
// concurrent create of the same table.
func (e engine) LockMigrations(ctx context.Context, tx jobs.Tx) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, migrateLock)
	return err
}

// KeyOrder is true: enqueuers write side by side, and rows locked in one
// order cannot deadlock.
func (e engine) KeyOrder() bool { return true }

// BytewiseText is false: the database's collation (en_US and the like)
// need not order text as bytes, so a key range could miss a path.
func (e engine) BytewiseText() bool { return false }

// Values types the first row's parameters (?::bigint): a parameter of a
// VALUES list is otherwise taken for text, and the list's later rows take
// their types from the first.
func (e engine) Values(types []string, rows int) string {
	var b strings.Builder
	b.WriteString("VALUES (")
	for i, t := range types {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("?::" + t)
	}
	b.WriteString(")")
	if rows > 1 {
		b.WriteString(", ")
		b.WriteString(strings.TrimPrefix(jobs.ValuesRow(len(types), rows-1), "VALUES "))
	}
	return b.String()
}
