// Package postgres is the PostgreSQL store driver of invx, on pgx v5. Any
// number of invx processes on any number of hosts may share one database:
// claims take rows with SELECT ... FOR UPDATE SKIP LOCKED, so concurrent
// workers never wait for each other's jobs, and every write that moves a job
// is fenced by its lease token, in one transaction.
//
// # Time
//
// Every stored time (leases, retry times, job and attempt times, commit
// times, runs, outbox and skipped-input times) is Unix milliseconds, as in
// the SQLite driver, and comes from the database's clock
// (clock_timestamp()), not from the Now a call passes: workers on hosts whose
// clocks disagree then still write one timeline, so a lease is as long as
// asked and an incremental export (committed_at >= since) misses nothing. A
// time a caller computed on its own clock (a retry time: its now plus a
// delay) keeps its distance from the call's Now. Times a caller asks about
// (Since, Before) are taken as given. Tests that move time open the store
// WithCallerClock.
//
// # Connections
//
// Open takes a PostgreSQL URL or keyword/value string as understood by pgx,
// including its pool settings (pool_max_conns, ...). Tables live in the
// connection's search_path (set search_path in the URL to use a schema of
// its own). Migrations are applied at open under an advisory lock, so any
// number of processes may start at once against a fresh database.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/invx/invx/internal/backoff"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
	"github.com/invx/invx/store/internal/jobs"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrateLock is the advisory lock key that serialises migrations: "invx"
// in ASCII. Advisory locks are per database, so databases never contend.
const migrateLock int64 = 0x696e7678

// maxTxTries bounds how often a transaction that PostgreSQL aborted for a
// deadlock or a serialization failure is run again: the whole transaction
// was rolled back, so running it again is safe. Writes take their row locks
// in a fixed order where they can, so this is rare.
const maxTxTries = 5

// Store is the PostgreSQL implementation of store.Store.
type Store struct {
	pool *pgxpool.Pool
	name string // host/database, for error messages (never the password)
	// callerClock keeps each call's Now instead of the database's clock.
	callerClock bool

	// Core is the job logic both drivers share, on this driver's engine.
	jobs.Core
}

// Option configures Open.
type Option func(*Store)

// WithCallerClock makes the store use the Now each call passes, where it is
// not the zero time, instead of the database's clock: for tests that move
// time (the conformance suite). Never for workers on several hosts.
func WithCallerClock() Option { return func(s *Store) { s.callerClock = true } }

var _ store.Store = (*Store)(nil)

// Open connects to the database named by dsn (a postgres:// URL or a
// keyword/value string) and applies pending migrations.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx redacts the password in its parse errors.
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "invx"
	}
	s := &Store{name: fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)}
	for _, o := range opts {
		o(s)
	}
	s.Core = jobs.Core{E: engine{s}}
	s.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres store %s: %w", s.name, err)
	}
	if err := s.Setup(ctx, migrationFiles); err != nil {
		s.pool.Close()
		return nil, fmt.Errorf("open postgres store %s: %w", s.name, err)
	}
	// Group commit (store/internal/jobs): a process's concurrent commits
	// share one transaction, each under its own savepoint, so the database
	// syncs its WAL once for them and the process holds one connection for
	// them, not one each.
	s.StartCommits(jobs.CommitConfig{Timeout: commitTimeout, Times: s.commitTimes})
	return s, nil
}

// Driver implements store.Store.
func (s *Store) Driver() string { return "postgres" }

// Close implements store.Store. It lets the group commit in hand finish,
// then waits for borrowed connections to be given back.
func (s *Store) Close() error {
	s.CloseCommits()
	s.pool.Close()
	return nil
}

// Pool exposes the connection pool to this driver's tests and to
// diagnostics; callers outside store must use Store.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// tx runs fn in one transaction (READ COMMITTED) and commits it. A
// transaction aborted by a deadlock or serialization failure is run again,
// a few times, since nothing of it was kept; fn must start from scratch
// each time.
// txBackoff spaces the re-runs of a transaction PostgreSQL aborted.
var txBackoff = backoff.Policy{Base: 10 * time.Millisecond, Max: 200 * time.Millisecond}

func (s *Store) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	for try := 1; ; try++ {
		err := pgx.BeginFunc(ctx, s.pool, fn)
		if err == nil || try == maxTxTries || !retryable(err) {
			return interpret(err)
		}
		// A short random pause, so the transactions that collided do not
		// collide again in step: the one backoff every retry in invx uses.
		t := time.NewTimer(txBackoff.Delay(try, 0))
		select {
		case <-ctx.Done():
			t.Stop()
			return interpret(err)
		case <-t.C:
		}
	}
}

// Serialization failure and deadlock, the two errors after which
// PostgreSQL asks for the transaction to be run again.
const (
	codeSerialization = "40001"
	codeDeadlock      = "40P01"
)

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == codeSerialization || pe.Code == codeDeadlock)
}

// interpret is the one place where PostgreSQL errors become store errors.
// Connection loss, a server shutting down or starting up, and the two
// errors after which PostgreSQL asks for the transaction to be run again
// are store.ErrTransient; everything else (constraints, syntax, ...) is
// returned as it is: a bug, not something a retry fixes.
func interpret(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == codeSerialization:
			return driver.Transient(fmt.Errorf("concurrent update, try again: %w", err))
		case pe.Code == codeDeadlock:
			return driver.Transient(fmt.Errorf("deadlock with another invx process, try again: %w", err))
		case transientCode(pe.Code):
			return driver.Transient(err)
		}
		// The server answered: a refused login, a constraint or a syntax
		// error inside a connect error is not connection loss.
		return err
	}
	if connectionLost(err) {
		return driver.Transient(err)
	}
	return err
}

// transientCode reports SQLSTATEs that mean the server cannot serve this
// connection now but may soon: class 08 (connection exception), 57P01
// admin_shutdown (pg_terminate_backend, a fast shutdown), 57P02
// crash_shutdown, 57P03 cannot_connect_now (starting up or in recovery),
// 53300 too_many_connections, and the two retry codes.
func transientCode(code string) bool {
	switch code {
	case codeSerialization, codeDeadlock, "57P01", "57P02", "57P03", "53300":
		return true
	}
	return strings.HasPrefix(code, "08")
}

// connectionLost reports errors of the connection itself, before or
// without any answer from the server: a failed dial, a socket closed under
// a query, a connection pgx had already closed.
func connectionLost(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	case errors.As(err, &ne):
		// A socket error (net.OpError) or a network timeout; a cancelled
		// context is the caller's, never the database's.
		return !errors.Is(err, context.Canceled)
	}
	// pgx reports a connection it closed after a failure this way without
	// a sentinel to match.
	return strings.Contains(err.Error(), "conn closed")
}

// querier is what both the pool and a transaction offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// clockSQL is the database's clock in Unix milliseconds: the actual time,
// not the transaction's start (now()).
const clockSQL = `(extract(epoch from clock_timestamp()) * 1000)::bigint`

// clock resolves a call's Now (t): the database's clock or, WithCallerClock,
// t itself unless it is zero. It returns the time and the same instant in
// Unix milliseconds.
func (s *Store) clock(ctx context.Context, t time.Time) (time.Time, int64, error) {
	if s.callerClock && !t.IsZero() {
		return t, t.UnixMilli(), nil
	}
	var v int64
	if err := s.pool.QueryRow(ctx, `SELECT `+clockSQL).Scan(&v); err != nil {
		return t, 0, fmt.Errorf("read database clock: %w", interpret(err))
	}
	return time.UnixMilli(v).UTC(), v, nil
}
