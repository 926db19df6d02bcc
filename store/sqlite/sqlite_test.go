package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
	"github.com/invx/invx/store/internal/jobstest"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
	"github.com/invx/invx/store/storetest"
)

func open(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "invx.db"))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Exercise(t, func(t *testing.T) store.Store { return open(t) },
		storetest.WithReopen(func(t *testing.T, s store.Store) store.Store {
			t.Helper()
			s2, err := sqlite.Open(context.Background(), s.(*sqlite.Store).Path())
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			return s2
		}))
}

// Group commit, on SQLite: concurrent commits share one write transaction.
func TestGroupCommit(t *testing.T) {
	t.Parallel()
	storetest.GroupCommit(t, func(t *testing.T) store.Store { return open(t) }, storetest.GroupHooks{
		Transactions: func(s store.Store) int64 { return s.(*sqlite.Store).CommitStats().Transactions },
		Fail:         func(s store.Store, f jobstest.Fault, with string) { sqlite.Fail(s.(*sqlite.Store), f, with) },
		// SQLite has no sleep: a count to half a million takes a few
		// hundred milliseconds.
		Slow: `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500000) SELECT count(*) FROM c`,
	})
}

// Every pooled connection, not just the first, must carry the settings that
// make several processes safe: they are applied by the driver per
// connection, and this reads them back from fresh connections of both pools.
func TestPragmasOnFreshConnections(t *testing.T) {
	t.Parallel()
	s := open(t)
	defer s.Close()
	ctx := context.Background()
	writer, reader := sqlite.Pools(s)
	want := map[string]string{"busy_timeout": "30000", "journal_mode": "wal", "synchronous": "2", "foreign_keys": "1"}
	// The page cache differs by pool: a reader's is emptied by every commit
	// of another connection, so it is kept small (issue 17, peak RSS).
	for _, db := range []struct {
		name      string
		pool      *sql.DB
		conns     int
		cacheSize string
	}{{"writer", writer, 1, "-2000"}, {"reader", reader, 4, "-256"}} {
		// Hold several connections at once so the pool must open new ones.
		var conns []*sql.Conn
		for range db.conns {
			c, err := db.pool.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for i, c := range conns {
			var cache string
			if err := c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
				t.Fatalf("%s conn %d: pragma cache_size: %v", db.name, i, err)
			}
			if cache != db.cacheSize {
				t.Errorf("%s conn %d: cache_size = %q, want %q", db.name, i, cache, db.cacheSize)
			}
			for p, v := range want {
				var got string
				if err := c.QueryRowContext(ctx, "PRAGMA "+p).Scan(&got); err != nil {
					t.Fatalf("%s conn %d: pragma %s: %v", db.name, i, p, err)
				}
				if got != v {
					t.Errorf("%s conn %d: %s = %q, want %q", db.name, i, p, got, v)
				}
			}
		}
		for _, c := range conns {
			c.Close()
		}
	}
	if got := writer.Stats().MaxOpenConnections; got != 1 {
		t.Errorf("writer pool max open = %d, want 1", got)
	}
}

func TestFileModeIsPrivate(t *testing.T) {
	t.Parallel()
	s := open(t)
	defer s.Close()
	for _, suffix := range []string{"", "-wal"} {
		st, err := os.Stat(s.Path() + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if m := st.Mode().Perm(); m != 0o600 {
			t.Errorf("%s mode = %o, want 600", filepath.Base(s.Path()+suffix), m)
		}
	}
}

func TestMigrationsAreIdempotent(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("migrations", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("migration files: %v (%d)", err, len(files))
	}
	path := filepath.Join(t.TempDir(), "invx.db")
	for range 3 {
		s, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := sqlitetest.ReadOnly(t, s.Path()).QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != len(files) {
			t.Fatalf("schema_migrations rows = %d, want %d (one per migration file)", n, len(files))
		}
		s.Close()
	}
}

// oldDatabase creates a database file at path with the migrations up to and
// including version upTo applied as a release of that time would have, so
// that Open has to migrate data written in the old format.
func oldDatabase(t *testing.T, path string, upTo int) *sql.DB {
	t.Helper()
	ms, err := driver.LoadMigrations(os.DirFS("migrations"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", sqlite.DSN(path, "immediate"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:upTo] {
		if _, err := db.Exec(m.SQL); err != nil {
			t.Fatalf("apply migration %d: %v", m.Version, err)
		}
		if _, err := db.Exec(`INSERT INTO schema_migrations VALUES (?, ?, 0)`, m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// Migration 004 moves action events under "action:" and publishes the
// invoice.committed events that an action id "invoice.committed" had
// displaced under the old keys.
func TestMigrationRewritesEventKeys(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "invx.db")
	db := oldDatabase(t, path, 3)
	const (
		a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" // ordinary job
		b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" // its action "invoice.committed" took the key
		c = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc" // same, but superseded since
	)
	for i, k := range []string{a, b, c} {
		id := i + 1
		mustExec(t, db, `INSERT INTO jobs (id, tenant, job_key, transformation, schema_version, source_digest, source_system,
			source_path, state, result_id, created_at, updated_at)
			VALUES (?, 'acme', ?, 'invoice-summary', 'invoice-summary-v1', 'd', 'fs', ?, 'succeeded', ?, 1, 1)`, id, k, k[:1]+".txt", id)
		mustExec(t, db, `INSERT INTO results (id, tenant, job_key, job_id, schema_version, result, attempt_id, run_id, committed_at)
			VALUES (?, 'acme', ?, ?, 'invoice-summary-v1', '{"schema_version":"invoice-summary-v1","title":"T"}', 1, 'r', 5000)`, id, k, id)
	}
	mustExec(t, db, `UPDATE results SET superseded_by = 1 WHERE id = 3`)
	old := []struct{ key, job, action, kind string }{
		{a + ":x", a, "x", "review_tax"},
		{a + ":action:x", a, "action:x", "contact_supplier"}, // its new key is the old key of the row above
		{a + ":invoice.committed", a, "invoice.committed", "invoice.committed"},
		{b + ":invoice.committed", b, "invoice.committed", "verify_purchase_order"},
		{c + ":invoice.committed", c, "invoice.committed", "review_tax"},
	}
	for _, o := range old {
		mustExec(t, db, `INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, created_at)
			VALUES ('acme', ?, ?, (SELECT id FROM results WHERE job_key = ?), ?, ?, '{}', 5000)`, o.key, o.job, o.job, o.action, o.kind)
	}
	db.Close()

	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open the old database: %v", err)
	}
	defer s.Close()
	rows, err := sqlitetest.ReadOnly(t, s.Path()).Query(`SELECT lower(hex(r.job_key)) || ':' || o.event_suffix, o.action_id, o.kind, o.state, o.created_at
		FROM outbox o JOIN results r ON r.id = o.result_id ORDER BY o.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	var restored string
	for rows.Next() {
		var key, action, kind, state string
		var created int64
		if err := rows.Scan(&key, &action, &kind, &state, &created); err != nil {
			t.Fatal(err)
		}
		got = append(got, key[:1]+key[64:]+" "+action+" "+kind+" "+state)
		if key == b+":invoice.committed" {
			eqInt(t, "restored event created at (the commit's time)", created, 5000)
		}
	}
	want := []string{
		"a:action:x x review_tax pending",
		"a:action:action:x action:x contact_supplier pending",
		"a:invoice.committed invoice.committed invoice.committed pending",
		"b:action:invoice.committed invoice.committed verify_purchase_order pending",
		"c:action:invoice.committed invoice.committed review_tax pending",
		"b:invoice.committed invoice.committed invoice.committed pending",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("outbox after migration:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := sqlitetest.ReadOnly(t, s.Path()).QueryRow(`SELECT payload FROM outbox
		WHERE result_id = (SELECT id FROM results WHERE job_key = unhex(?)) AND event_suffix = 'invoice.committed'`, b).Scan(&restored); err != nil {
		t.Fatal(err)
	}
	var payload struct {
		Event         string            `json:"event"`
		Tenant        string            `json:"tenant"`
		JobKey        string            `json:"job_key"`
		SchemaVersion string            `json:"schema_version"`
		SourcePath    string            `json:"source_path"`
		Result        map[string]string `json:"result"`
	}
	if err := json.Unmarshal([]byte(restored), &payload); err != nil {
		t.Fatalf("restored payload %s: %v", restored, err)
	}
	if payload.Event != "invoice.committed" || payload.Tenant != "acme" || payload.JobKey != b ||
		payload.SchemaVersion != "invoice-summary-v1" || payload.SourcePath != "b.txt" || payload.Result["title"] != "T" {
		t.Fatalf("restored payload = %s", restored)
	}
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func eqInt(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %d, want %d", what, got, want)
	}
}
