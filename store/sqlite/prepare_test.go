package sqlite_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/storetest"
)

// countingDriverName is modernc.org/sqlite under a counter of the
// statements it is asked to parse.
const countingDriverName = "sqlite-counting-prepares"

var (
	registerCounting sync.Once
	// parses counts, for every connection of countingDriverName, the SQL
	// texts handed to the driver to parse: prepares, and statements run
	// unprepared (the driver prepares, runs and finalises them), but for
	// syncPragma's.
	parses atomic.Int64
	// syncPragmas counts the PRAGMA synchronous statements: SQLite sets
	// the level when it parses one (and refuses it inside a transaction),
	// so a claim's pair (sqlite.Store.txUnsynced) is parsed every time.
	syncPragmas atomic.Int64
)

// countParse counts the parse of q.
func countParse(q string) {
	if strings.HasPrefix(q, "PRAGMA synchronous") {
		syncPragmas.Add(1)
		return
	}
	parses.Add(1)
}

// openCounting opens a store on countingDriverName. Tests that use it must
// not run in parallel with each other: the counter is process-wide.
func openCounting(t *testing.T) *sqlite.Store {
	t.Helper()
	registerCounting.Do(func() {
		db, err := sql.Open("sqlite", "")
		if err != nil {
			t.Fatalf("find the sqlite driver: %v", err)
		}
		sql.Register(countingDriverName, countingDriver{db.Driver()})
		db.Close()
	})
	s, err := sqlite.OpenDriver(context.Background(), filepath.Join(t.TempDir(), "invx.db"), countingDriverName)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Statements are parsed once per connection, not per call: after a warm-up
// cycle, further cycles of the hot path (enqueue, claim, commit, the
// run's reads) make the driver parse nothing at all.
func TestStatementsPreparedOncePerConnection(t *testing.T) {
	s := openCounting(t)
	ctx := context.Background()
	now := time.Unix(1e9, 0)
	cycle := func(i int) {
		t.Helper()
		d := storetest.Doc("t1", fmt.Sprintf("inv-%03d.txt", i), fmt.Sprintf("invoice %d", i))
		if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
			SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: []store.Document{d}, Now: now}); err != nil {
			t.Fatalf("enqueue %d: %v", i, err)
		}
		ls, err := s.Claim(ctx, &store.ClaimParams{Owner: "w1", RunID: "run-1", Limit: 1, LeaseFor: time.Minute, Now: now})
		if err != nil || len(ls) != 1 {
			t.Fatalf("claim %d: %d leases, %v", i, len(ls), err)
		}
		l := ls[0]
		if _, err := s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey,
			Token: l.Token, AttemptID: l.AttemptID, RunID: "run-1", SchemaVersion: "invoice-summary-v1",
			Result:  []byte(`{"schema_version":"invoice-summary-v1"}`),
			Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: now}); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		if p, err := s.Pending(ctx, &store.PendingParams{Tenant: "t1"}); err != nil || p.Total() != 0 {
			t.Fatalf("pending after commit %d: %+v, %v", i, p, err)
		}
		st, err := s.JobStates(ctx, &store.JobStatesParams{Tenant: "t1", Keys: []string{d.JobKey}})
		if err != nil || st[d.JobKey].State != store.StateSucceeded {
			t.Fatalf("job state after commit %d: %+v, %v", i, st, err)
		}
	}
	// Two warm-up cycles: the first prepares what the transactions ran
	// unprepared, once they ended.
	start := parses.Load()
	cycle(0)
	cycle(1)
	before, pragmas := parses.Load(), syncPragmas.Load()
	if before == start {
		t.Fatal("the warm-up parsed nothing: the store does not run on the counting driver")
	}
	const n = 50
	for i := 2; i < 2+n; i++ {
		cycle(i)
	}
	if got := parses.Load() - before; got != 0 {
		t.Errorf("%d cycles of enqueue, claim, commit and reads parsed %d statements, want 0 (prepared once)", n, got)
	}
	// The claims', and only theirs: NORMAL before, FULL after.
	if got := syncPragmas.Load() - pragmas; got != 2*n {
		t.Errorf("%d cycles ran %d PRAGMA synchronous, want %d (a pair per claim)", n, got, 2*n)
	}
}

// Close closes every statement the store kept prepared: closing a pool
// leaves its *sql.Stmt values open (their driver statements go with the
// connections, but the values would still take calls).
func TestCloseClosesCachedStatements(t *testing.T) {
	t.Parallel()
	s := open(t)
	ctx := context.Background()
	d := storetest.Doc("t1", "inv-1.txt", "invoice 1")
	for range 2 { // the second enqueue runs what the first prepared after its transaction
		if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
			SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: []store.Document{d}, Now: time.Unix(1e9, 0)}); err != nil {
			t.Fatalf("enqueue: %v", err)
		}
	}
	if _, err := s.Pending(ctx, &store.PendingParams{Tenant: "t1"}); err != nil {
		t.Fatalf("pending: %v", err)
	}
	cached := sqlite.CachedStatements(s)
	if len(cached) == 0 {
		t.Fatal("no statement cached after an enqueue and a read")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	for i, st := range cached {
		if _, err := st.ExecContext(ctx); err == nil || !strings.Contains(err.Error(), "statement is closed") {
			t.Errorf("cached statement %d after Close: %v, want statement is closed", i, err)
		}
	}
}

// countingDriver wraps a driver's connections in countingConn.
type countingDriver struct{ d driver.Driver }

func (d countingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.d.Open(name)
	if err != nil {
		return nil, err
	}
	return countingConn{c}, nil
}

// countingConn counts parses and passes everything on. It offers every
// optional interface modernc.org/sqlite's connection does, so database/sql
// takes the same paths through it as through the driver itself.
type countingConn struct{ driver.Conn }

var (
	_ driver.ConnPrepareContext = countingConn{}
	_ driver.ConnBeginTx        = countingConn{}
	_ driver.ExecerContext      = countingConn{}
	_ driver.QueryerContext     = countingConn{}
	_ driver.Pinger             = countingConn{}
	_ driver.SessionResetter    = countingConn{}
	_ driver.Validator          = countingConn{}
)

func (c countingConn) Prepare(q string) (driver.Stmt, error) {
	countParse(q)
	return c.Conn.Prepare(q)
}

func (c countingConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	countParse(q)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}

func (c countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	countParse(q)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	countParse(q)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c countingConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c countingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c countingConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

// The batched lookup of source references (the stat check of a rerun, and
// the enqueue's read-only pass) is parsed once per connection whatever the
// length of its list: one chunk of a rerun parsed it again before, a
// statement of 500 placeholders.
func TestReferenceLookupPreparedOnce(t *testing.T) {
	s := openCounting(t)
	ctx := context.Background()
	docs := make([]store.Document, 1200)
	paths := make([]string, len(docs))
	for i := range docs {
		docs[i] = storetest.Doc("t1", fmt.Sprintf("inv-%04d.txt", i), fmt.Sprintf("invoice %d", i))
		paths[i] = docs[i].Path
	}
	enqueue := func() {
		t.Helper()
		if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
			SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: docs, Now: time.Unix(1e9, 0)}); err != nil {
			t.Fatalf("enqueue: %v", err)
		}
	}
	lookup := func(n int) {
		t.Helper()
		m, err := s.KnownFiles(ctx, &store.KnownFilesParams{Tenant: "t1", SourceSystem: docs[0].SourceSystem, Paths: paths[:n]})
		if err != nil || len(m) != n {
			t.Fatalf("known files of %d paths: %d found, %v", n, len(m), err)
		}
	}
	enqueue()
	enqueue() // a rerun: settled by the read-only pass
	for _, n := range []int{1, 7, 500, 1200} {
		lookup(n)
	}
	before := parses.Load()
	enqueue()
	for _, n := range []int{1, 7, 499, 500, 501, 1200} {
		lookup(n)
	}
	if got := parses.Load() - before; got != 0 {
		t.Errorf("a rerun's enqueue and lookups of 1 to 1,200 paths parsed %d statements, want 0 (prepared once)", got)
	}
}

// A claim's statements are parsed once whatever the number of jobs it
// leases: the lease update and the attempts insert are multi-row
// statements padded to a power of two of rows, so claims of 5 to 8 jobs
// share one text each, where a text per count was parsed again inside
// most claims' transactions, on the one writer.
func TestClaimSizesShareStatements(t *testing.T) {
	s := openCounting(t)
	ctx := context.Background()
	now := time.Unix(1e9, 0)
	docs := make([]store.Document, 60)
	for i := range docs {
		docs[i] = storetest.Doc("t1", fmt.Sprintf("inv-%03d.txt", i), fmt.Sprintf("invoice %d", i))
	}
	if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: docs, Now: now}); err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	claim := func(n int) {
		t.Helper()
		ls, err := s.Claim(ctx, &store.ClaimParams{Tenant: "t1", Owner: "w1", RunID: "run-1", Limit: n, LeaseFor: time.Minute,
			Now: now})
		if err != nil || len(ls) != n {
			t.Fatalf("claim %d: %d leases, %v", n, len(ls), err)
		}
	}
	// Two warm-up claims: the first prepares what its transaction ran
	// unprepared, once it ended.
	claim(8)
	claim(8)
	before := parses.Load()
	for _, n := range []int{5, 6, 7, 8} {
		claim(n)
	}
	if got := parses.Load() - before; got != 0 {
		t.Errorf("claims of 5, 6, 7 and 8 jobs parsed %d statements, want 0 (one text per power of two)", got)
	}
}
