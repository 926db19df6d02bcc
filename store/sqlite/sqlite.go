// Package sqlite is the embedded store driver of invx, on modernc.org/sqlite
// (pure Go, no cgo). Several invx processes may share one database file on one
// host: every setting below is chosen for that.
package sqlite

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime/trace"
	"strings"
	"sync"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
	"github.com/invx/invx/store/internal/jobs"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// busyTimeoutMS is how long a connection waits for another process's write
// transaction before it gives up with SQLITE_BUSY. Write transactions are
// short (no provider call is ever made inside one), so waiting is cheap.
const busyTimeoutMS = 30000

// pragmas are applied by the driver to every new connection, so a pooled
// connection opened later has them too (a PRAGMA run once through
// database/sql would only reach one connection).
var pragmas = []string{
	// Waits for other writers rather than failing at once.
	fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS),
	// WAL lets readers run beside the one writer, across processes too.
	"journal_mode(WAL)",
	// FULL syncs the WAL at each commit: a committed result survives power
	// loss, which exactly-once delivery depends on. Only a claim commits at
	// NORMAL (Store.txUnsynced); see the README, "Durability".
	"synchronous(FULL)",
	"foreign_keys(1)",
	// A group commit runs under a savepoint, so each statement keeps the
	// pages it changes in a statement journal until it ends. With temp
	// files on disk that journal spills to a file past 64 KiB: at 10k
	// replayed documents 250k of the 430k write calls and 8 % of the CPU
	// (issue 17). In memory it is freed with the statement.
	"temp_store(MEMORY)",
}

// Page cache per connection, in KiB (cache_size(-N)). SQLite's default is
// 2000 KiB on every connection. The writer keeps it: its B-tree interior
// pages are reused by every claim and commit. A reader's cache is thrown
// away whenever it starts a read after another connection committed (WAL:
// the database changed under it), which during a run is nearly every read,
// so a large one only holds memory: 4 readers x 2 MB were about a tenth of
// a run's peak RSS (issue 17).
const (
	writerCacheKiB = 2000
	readerCacheKiB = 256
)

// Store is the SQLite implementation of store.Store.
type Store struct {
	path string
	// w is the only connection that writes. Its transactions begin with
	// BEGIN IMMEDIATE (_txlock=immediate), taking the write lock up front, so
	// two transactions never both read and then deadlock upgrading to write.
	w *sql.DB
	// r serves reads; WAL readers never block the writer.
	r *sql.DB
	// ws and rs are the statements prepared on w and r (stmt.go); writer
	// and reader run statements through them outside transactions.
	ws, rs         *stmts
	writer, reader *execer

	closeOnce sync.Once

	// Core is the job logic both drivers share, on this driver's engine.
	jobs.Core
}

var _ store.Store = (*Store)(nil)

// DSN returns the connection string for path with the settings invx relies on.
func DSN(path string, txlock string) string {
	return dsn(path, txlock, 0)
}

// dsn is DSN with the page cache set to cacheKiB (0: SQLite's default).
func dsn(path, txlock string, cacheKiB int) string {
	q := url.Values{}
	q.Set("_txlock", txlock)
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	if cacheKiB > 0 {
		q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", cacheKiB))
	}
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	return u.String()
}

// Open opens (creating if needed) the database file at path and applies
// pending migrations.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, "sqlite")
}

// open is Open on the database/sql driver registered as driverName: the
// driver's tests wrap modernc.org/sqlite to count what it is asked to do.
func open(ctx context.Context, path, driverName string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open sqlite store: empty path")
	}
	path = strings.TrimPrefix(path, "sqlite://")
	// Create the file ourselves so it is private from its first byte; SQLite
	// would create it with the process umask (usually world-readable), and
	// it holds invoice text. SQLite gives -wal and -shm the same mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}
	if fi.Size() == 0 {
		if err := initFile(ctx, driverName, path); err != nil {
			return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
		}
	}

	w, err := sql.Open(driverName, dsn(path, "immediate", writerCacheKiB))
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open(driverName, dsn(path, "deferred", readerCacheKiB))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4)
	s := &Store{path: path, w: w, r: r, ws: newStmts(w), rs: newStmts(r)}
	s.writer = &execer{c: w, cache: s.ws}
	s.reader = &execer{c: r, cache: s.rs}
	s.Core = jobs.Core{E: engine{s}}
	// Group commit (store/internal/jobs): commits from concurrent workers
	// share one write transaction and its fsync. Each commit's time is its
	// Now: every process on the file shares the host's clock.
	s.StartCommits(jobs.CommitConfig{})
	if err := s.Setup(ctx, migrationFiles); err != nil {
		s.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	return s, nil
}

// pageSize is the page size of a database invx creates. SQLite's default,
// 4096, fits three of the ~1.1 KB jobs and results rows a page and leaves
// 15-20 % of those pages empty; 8192 fits seven. Measured at 10k bench/gen
// documents: 3 % smaller after VACUUM (16384 was no better).
const pageSize = 8192

// initFile gives a new, empty database file its page size. That has to
// happen before the first table or the switch to WAL fixes it, and the
// driver applies _pragma settings sorted by name (journal_mode before
// page_size), so the pool connections cannot do it. A database that exists
// keeps its page size: changing it needs a VACUUM outside WAL mode.
func initFile(ctx context.Context, driverName, path string) error {
	// No pragmas from dsn: journal_mode(WAL) would write the first page,
	// and with it the page size, before ours runs.
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(),
		RawQuery: url.Values{"_pragma": {fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS)}}.Encode()}
	db, err := sql.Open(driverName, u.String())
	if err != nil {
		return err
	}
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	// Page size first, then WAL, which writes the first page with it.
	// Processes creating one database at once all get here; they set the
	// same size, and only the first switch to WAL changes anything.
	deadline := time.Now().Add(busyTimeoutMS * time.Millisecond)
	for _, q := range []string{fmt.Sprintf("PRAGMA page_size = %d", pageSize), "PRAGMA journal_mode = WAL"} {
		if err := execWhileBusy(ctx, c, q, deadline); err != nil {
			return fmt.Errorf("initialise new database: %w", err)
		}
	}
	return nil
}

// execWhileBusy runs q, again while SQLite answers SQLITE_BUSY, until
// deadline. The busy timeout does not cover a switch to WAL: of two
// connections that hold a read lock and both want the write lock, SQLite
// refuses one at once rather than let them wait on each other.
func execWhileBusy(ctx context.Context, c *sql.Conn, q string, deadline time.Time) error {
	wait := 2 * time.Millisecond
	for {
		_, err := c.ExecContext(ctx, q)
		if err == nil || !busy(err) || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// Driver implements store.Store.
func (s *Store) Driver() string { return "sqlite" }

// Close implements store.Store.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.CloseCommits()
		// Statements first: closing a pool does not close its statements.
		err = errors.Join(s.rs.close(), s.ws.close(), s.r.Close(), s.w.Close())
	})
	return err
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// tx runs fn in one write transaction (BEGIN IMMEDIATE) and commits it.
// Once it has ended, the statements it ran unprepared are prepared for the
// next one (stmt.go).
//
// A transaction that only leases jobs (jobs.LeaseOnly) commits with
// synchronous=NORMAL: its WAL frames are written before it returns, so it
// survives any crash of a process, but they reach the disk with the next
// transaction that syncs (every other one) or a checkpoint. A power loss
// before that undoes the claim, which harms nothing (jobs.LeaseOnly says
// why); waiting for the disk on every claim did: about 300 of a 10k
// replay run's 640 fsyncs were claims', each holding the one writer.
func (s *Store) tx(ctx context.Context, fn func(*execer) error) error {
	if jobs.IsLeaseOnly(ctx) {
		return s.txUnsynced(ctx, fn)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return interpret(err)
	}
	missed, err := s.run(tx, fn)
	s.ws.warm(context.WithoutCancel(ctx), missed)
	return err
}

// writeLockRegion is the execution-trace region (see jobs.Core.write) of a
// write transaction from its BEGIN IMMEDIATE, which took the database's
// one write lock, to its COMMIT, which gave it up: the time the writer was
// held, where the store's region around it adds the wait for it.
const writeLockRegion = "invx.sqlite.write_lock_held"

// run runs fn in tx and commits it, or rolls it back. missed are the
// statements it ran unprepared, to prepare once the writer is free.
func (s *Store) run(tx *sql.Tx, fn func(*execer) error) (missed []string, err error) {
	defer trace.StartRegion(context.Background(), writeLockRegion).End()
	x := s.txExecer(tx)
	if err := fn(x); err != nil {
		_ = tx.Rollback()
		return x.missed, interpret(err)
	}
	if err := tx.Commit(); err != nil {
		_ = tx.Rollback() // a no-op once the commit ended it either way
		return x.missed, interpret(err)
	}
	return x.missed, nil
}

// txUnsynced is tx committed with synchronous=NORMAL, on the writer
// connection held from the pragma before BEGIN to the one after COMMIT, so
// no other transaction runs at NORMAL. A connection whose FULL could not
// be set again is closed, not handed back: a new one starts at FULL (the
// DSN's pragmas).
func (s *Store) txUnsynced(ctx context.Context, fn func(*execer) error) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return interpret(err)
	}
	var missed []string
	err = func() error {
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = NORMAL"); err != nil {
			return restoreSync(conn, interpret(err))
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return restoreSync(conn, interpret(err))
		}
		missed, err = s.run(tx, fn)
		return restoreSync(conn, err)
	}()
	// The connection is back in the pool, where warm prepares.
	s.ws.warm(context.WithoutCancel(ctx), missed)
	return err
}

// restoreSync sets the held writer connection back to synchronous=FULL, or
// has it closed, and returns err.
func restoreSync(conn *sql.Conn, err error) error {
	if _, serr := conn.ExecContext(context.Background(), "PRAGMA synchronous = FULL"); serr != nil {
		_ = conn.Raw(func(any) error { return sqldriver.ErrBadConn }) // the pool drops it
	}
	return err
}

// interpret is the one place where SQLite errors become store errors.
// SQLITE_BUSY and SQLITE_LOCKED (with their extended codes) that outlived
// the busy timeout are store.ErrTransient: another process held the write
// lock too long, and the transaction was rolled back whole. Everything else
// (constraints, a full disk, a corrupt file) is returned as it is.
func interpret(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	if busy(err) {
		return driver.Transient(err)
	}
	return err
}

// busy reports SQLITE_BUSY or SQLITE_LOCKED anywhere in err's chain.
func busy(err error) bool {
	var se interface{ Code() int }
	return errors.As(err, &se) && transientCode(se.Code())
}

// Primary result codes (https://sqlite.org/rescode.html); an extended code
// carries its primary code in the low byte.
const (
	codeBusy   = 5
	codeLocked = 6
)

func transientCode(code int) bool {
	switch code & 0xff {
	case codeBusy, codeLocked:
		return true
	}
	return false
}
