package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
	"github.com/invx/invx/store/internal/jobstest"
	"github.com/invx/invx/store/postgres"
	"github.com/invx/invx/store/storetest"
)

// adminDSN is the database the tests create their own databases from.
// .ci/postgres.sh starts a throwaway server and prints it.
func adminDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("INVX_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("INVX_TEST_POSTGRES is not set: set it to an admin DSN, e.g. from eval \"$(bash .ci/postgres.sh)\", to run the PostgreSQL store tests")
	}
	return dsn
}

// freshDB creates an empty database for one test, dropped when the test
// ends, and returns its DSN: tests never share state and may run in
// parallel.
func freshDB(t *testing.T) string {
	t.Helper()
	admin := adminDSN(t)
	ctx := context.Background()
	b := make([]byte, 8)
	rand.Read(b)
	name := "invx_test_" + hex.EncodeToString(b)
	ident := pgx.Identifier{name}.Sanitize()
	exec := func(sql string) error {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec("CREATE DATABASE " + ident); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if err := exec("DROP DATABASE IF EXISTS " + ident + " WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return withDatabase(t, admin, name)
}

// withDatabase points dsn (a URL or keyword/value string) at database name.
func withDatabase(t *testing.T, dsn, name string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("INVX_TEST_POSTGRES: %v", err)
		}
		u.Path = "/" + name
		return u.String()
	}
	return dsn + " dbname=" + name // the last setting wins
}

func open(t *testing.T, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func migrationFiles(t *testing.T) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("migrations", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("migration files: %v (%d)", err, len(files))
	}
	return len(files)
}

func migrationRows(t *testing.T, s *postgres.Store) int {
	t.Helper()
	var n, maxV int
	if err := s.Pool().QueryRow(context.Background(), `SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &maxV); err != nil {
		t.Fatal(err)
	}
	if n != maxV {
		t.Fatalf("schema_migrations: %d rows, highest version %d", n, maxV)
	}
	return n
}

func TestConformance(t *testing.T) {
	t.Parallel()
	adminDSN(t)
	// The suite moves time through each call's Now.
	var dsns sync.Map // *postgres.Store -> its database's DSN, for a second handle
	storetest.Exercise(t, func(t *testing.T) store.Store {
		dsn := freshDB(t)
		s, err := postgres.Open(context.Background(), dsn, postgres.WithCallerClock())
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		dsns.Store(s, dsn)
		return s
	}, storetest.WithReopen(func(t *testing.T, s store.Store) store.Store {
		t.Helper()
		dsn, _ := dsns.Load(s)
		s2, err := postgres.Open(context.Background(), dsn.(string), postgres.WithCallerClock())
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		return s2
	}))
}

// Group commit, on PostgreSQL: a process's concurrent commits share one
// transaction, each under its own savepoint.
func TestGroupCommit(t *testing.T) {
	t.Parallel()
	adminDSN(t)
	storetest.GroupCommit(t, func(t *testing.T) store.Store {
		s, err := postgres.Open(context.Background(), freshDB(t), postgres.WithCallerClock())
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		return s
	}, storetest.GroupHooks{
		Transactions:  func(s store.Store) int64 { return s.(*postgres.Store).CommitStats().Transactions },
		Fail:          func(s store.Store, f jobstest.Fault, with string) { postgres.Fail(s.(*postgres.Store), f, with) },
		Deadlock:      `DO $$ BEGIN RAISE EXCEPTION 'jobstest' USING ERRCODE = 'deadlock_detected'; END $$`,
		Serialization: `DO $$ BEGIN RAISE EXCEPTION 'jobstest' USING ERRCODE = 'serialization_failure'; END $$`,
		Slow:          `SELECT pg_sleep(0.3)`,
	})
}

// The numbering rule of driver.LoadMigrations is checked here, without a
// server, so a missing file fails the build's tests, not a user's open.
func TestMigrationFilesLoad(t *testing.T) {
	t.Parallel()
	ms, err := driver.LoadMigrations(os.DirFS("migrations"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != migrationFiles(t) {
		t.Fatalf("loaded %d migrations, want %d", len(ms), migrationFiles(t))
	}
}

// Several processes starting at once against a fresh database: the
// advisory lock lets one migrate while the others wait, then find the
// schema there.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	t.Parallel()
	dsn := freshDB(t)
	const n = 4
	stores := make([]*postgres.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = postgres.Open(context.Background(), dsn)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	if got, want := migrationRows(t, stores[0]), migrationFiles(t); got != want {
		t.Fatalf("schema_migrations rows = %d, want %d (one per migration file)", got, want)
	}
	// And opening again applies nothing.
	s := open(t, dsn)
	defer s.Close()
	if got, want := migrationRows(t, s), migrationFiles(t); got != want {
		t.Fatalf("after reopen: schema_migrations rows = %d, want %d", got, want)
	}
}

// With MaxPerTenant, the cap holds across processes claiming at once: each
// store here has its own pool, like separate invx work processes.
func TestMaxPerTenantAcrossProcesses(t *testing.T) {
	t.Parallel()
	dsn := freshDB(t)
	ctx := context.Background()
	const procs, maxPer = 4, 3
	stores := make([]*postgres.Store, procs)
	for i := range stores {
		stores[i] = open(t, dsn)
		defer stores[i].Close()
	}
	var docs []store.Document
	for i := range 40 {
		docs = append(docs, storetest.Doc("t1", fmt.Sprintf("%02d.txt", i), fmt.Sprintf("text %d", i)))
	}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	if _, err := stores[0].Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "r", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: docs, Now: now}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for i, s := range stores {
		for g := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					ls, err := s.Claim(ctx, &store.ClaimParams{Owner: fmt.Sprintf("p%d-%d", i, g), RunID: "r", Limit: 2,
						LeaseFor: time.Minute, Now: now, MaxPerTenant: maxPer})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					total += len(ls)
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if total != maxPer {
		t.Fatalf("%d leases granted across processes, want the cap %d", total, maxPer)
	}
	p, err := stores[0].Pending(ctx, &store.PendingParams{Tenant: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Running != maxPer {
		t.Fatalf("running = %d, want %d", p.Running, maxPer)
	}
}

// A zero Now means the database's clock: leases, renewals and commits work
// the same way without a time from the caller.
func TestZeroNowUsesDatabaseClock(t *testing.T) {
	t.Parallel()
	s := open(t, freshDB(t))
	defer s.Close()
	ctx := context.Background()
	d := storetest.Doc("t1", "a.txt", "alpha")
	if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "r", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: []store.Document{d}}); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	ls, err := s.Claim(ctx, &store.ClaimParams{Tenant: "t1", Owner: "w", RunID: "r", Limit: 1, LeaseFor: time.Minute})
	if err != nil || len(ls) != 1 {
		t.Fatalf("claim: %v, %d leases", err, len(ls))
	}
	near := func(what string, got, want time.Time) {
		t.Helper()
		if d := got.Sub(want); d < -5*time.Second || d > 5*time.Second {
			t.Fatalf("%s = %v, want about %v", what, got, want)
		}
	}
	near("lease expiry", ls[0].ExpiresAt, before.Add(time.Minute))
	// A claim now must not take the live lease.
	again, err := s.Claim(ctx, &store.ClaimParams{Tenant: "t1", Owner: "w2", RunID: "r", Limit: 1, LeaseFor: time.Minute})
	if err != nil || len(again) != 0 {
		t.Fatalf("second claim: %v, %d leases", err, len(again))
	}
	exp, err := s.Renew(ctx, &store.RenewParams{JobID: ls[0].JobID, Token: ls[0].Token, LeaseFor: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	near("renewed expiry", exp, before.Add(2*time.Minute))
	if _, err := s.Commit(ctx, &store.CommitParams{JobID: ls[0].JobID, Tenant: "t1", JobKey: d.JobKey, Token: ls[0].Token,
		AttemptID: ls[0].AttemptID, RunID: "r", SchemaVersion: "invoice-summary-v1", Result: []byte(`{}`),
		Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded}}); err != nil {
		t.Fatal(err)
	}
	res, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "t1", JobKey: d.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	near("committed at", res.CommittedAt, before)
	j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "t1", Ref: d.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	near("created at", j.CreatedAt, before)
}

// Text PostgreSQL would refuse (NUL bytes, invalid UTF-8) in a provider's
// message must not make a commit fail.
func TestMessagesWithNULAreStored(t *testing.T) {
	t.Parallel()
	s := open(t, freshDB(t))
	defer s.Close()
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	d := storetest.Doc("t1", "a.txt", "alpha")
	if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "r", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: []store.Document{d}, Now: now}); err != nil {
		t.Fatal(err)
	}
	ls, err := s.Claim(ctx, &store.ClaimParams{Tenant: "t1", Owner: "w", RunID: "r", Limit: 1, LeaseFor: time.Minute, Now: now})
	if err != nil || len(ls) != 1 {
		t.Fatalf("claim: %v", err)
	}
	msg := "bad \x00 body \xff"
	if err := s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: ls[0].JobID, Token: ls[0].Token, AttemptID: ls[0].AttemptID,
		State: store.StateFailed, Attempt: store.AttemptInfo{Outcome: store.OutcomeFailed, Message: msg, Output: []byte("\x00\xff")},
		Now: now}); err != nil {
		t.Fatal(err)
	}
	atts, err := s.ListAttempts(ctx, &store.ListAttemptsParams{JobID: ls[0].JobID})
	if err != nil {
		t.Fatal(err)
	}
	if got := atts[0].Message; got != "bad \uFFFD body \uFFFD" {
		t.Fatalf("message = %q", got)
	}
	if got := string(atts[0].Output); got != "\x00\xff" {
		t.Fatalf("output = %q, want the bytes as given", got)
	}
}

// Four processes (four pools) share one queue: they enqueue the same
// documents at once in opposite orders, then claim, retry and commit while
// a reaper runs. Every job is committed exactly once, with its outbox rows
// once, and no transaction fails for a deadlock.
func TestProcessesShareOneQueue(t *testing.T) {
	t.Parallel()
	dsn := freshDB(t)
	ctx := context.Background()
	stores := make([]*postgres.Store, 4)
	for i := range stores {
		stores[i] = open(t, dsn)
		defer stores[i].Close()
	}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tenants := []string{"a", "b", "c"}
	const perTenant = 200
	docs := map[string][]store.Document{}
	for _, tn := range tenants {
		for i := range perTenant {
			docs[tn] = append(docs[tn], storetest.Doc(tn, fmt.Sprintf("%03d.txt", i), fmt.Sprintf("%s text %d", tn, i)))
		}
	}
	var wg sync.WaitGroup
	for k, s := range stores {
		for _, tn := range tenants {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ds := append([]store.Document(nil), docs[tn]...)
				if k%2 == 1 {
					slices.Reverse(ds)
				}
				if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: tn, RunID: "r", Transformation: "invoice-summary",
					SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: ds, Now: now}); err != nil {
					t.Errorf("enqueue: %v", err)
				}
			}()
		}
	}
	wg.Wait()

	stop := make(chan struct{})
	reaped := make(chan struct{})
	go func() {
		defer close(reaped)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if _, err := stores[0].ReapLeases(ctx, &store.ReapLeasesParams{Alive: func(string) bool { return true }, Now: now}); err != nil {
				t.Errorf("reap: %v", err)
			}
		}
	}()
	var mu sync.Mutex
	committed := map[int64]int{}
	for i, s := range stores {
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				owner := fmt.Sprintf("w%d-%d", i, g)
				for empty := 0; empty < 20; {
					ls, err := s.Claim(ctx, &store.ClaimParams{Owner: owner, RunID: owner, Limit: 3, LeaseFor: time.Minute,
						Now: now, MaxPerTenant: 5})
					if err != nil {
						t.Errorf("claim: %v", err)
						return
					}
					if len(ls) == 0 {
						empty++
						time.Sleep(2 * time.Millisecond)
						continue
					}
					empty = 0
					for _, l := range ls {
						if l.AttemptNo == 1 && l.JobID%5 == 0 { // a transient failure, due at once
							if err := s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: l.JobID, Token: l.Token,
								AttemptID: l.AttemptID, State: store.StateRetryWait, NextAttemptAt: now,
								Attempt: store.AttemptInfo{Outcome: store.OutcomeRetry}, Now: now}); err != nil {
								t.Errorf("finish attempt: %v", err)
							}
							continue
						}
						if _, err := s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey,
							Token: l.Token, AttemptID: l.AttemptID, RunID: owner, SchemaVersion: "invoice-summary-v1",
							Result: []byte(`{}`), Outbox: []store.OutboxInput{{ActionID: "a1", Kind: "k", Payload: []byte(`{}`)},
								{ActionID: "invoice.committed", Kind: "invoice.committed", Payload: []byte(`{}`)}},
							Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded}, Now: now}); err != nil {
							t.Errorf("commit: %v", err)
							continue
						}
						mu.Lock()
						committed[l.JobID]++
						mu.Unlock()
					}
				}
			}()
		}
	}
	wg.Wait()
	close(stop)
	<-reaped

	want := len(tenants) * perTenant
	if len(committed) != want {
		t.Fatalf("%d jobs committed, want %d", len(committed), want)
	}
	for id, n := range committed {
		if n != 1 {
			t.Fatalf("job %d committed %d times", id, n)
		}
	}
	var results, events int
	if err := stores[0].Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM outbox)`).
		Scan(&results, &events); err != nil {
		t.Fatal(err)
	}
	if results != want || events != 2*want {
		t.Fatalf("results = %d, outbox rows = %d, want %d and %d", results, events, want, 2*want)
	}
	p, err := stores[0].Pending(ctx, &store.PendingParams{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total() != 0 {
		t.Fatalf("pending after the run: %+v", p)
	}
}

// Migration 004 on PostgreSQL, as store/sqlite's TestMigrationRewritesEventKeys:
// action events move under "action:", and the invoice.committed events an
// action id "invoice.committed" displaced are published.
func TestMigrationRewritesEventKeys(t *testing.T) {
	t.Parallel()
	dsn := freshDB(t)
	ctx := context.Background()
	ms, err := driver.LoadMigrations(os.DirFS("migrations"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, a ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, q, a...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`)
	for _, m := range ms[:3] {
		exec(m.SQL)
		exec(`INSERT INTO schema_migrations VALUES ($1, $2, 0)`, m.Version, m.Name)
	}
	a, b, c := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	for i, k := range []string{a, b, c} {
		id := i + 1
		exec(`INSERT INTO jobs (id, tenant, job_key, transformation, schema_version, source_digest, source_system,
			source_path, state, result_id, created_at, updated_at)
			VALUES ($1, 'acme', $2, 'invoice-summary', 'invoice-summary-v1', 'd', 'fs', $3, 'succeeded', $1, 1, 1)`, id, k, k[:1]+".txt")
		exec(`INSERT INTO results (id, tenant, job_key, job_id, schema_version, result, attempt_id, run_id, committed_at)
			VALUES ($1, 'acme', $2, $1, 'invoice-summary-v1', '{"schema_version":"invoice-summary-v1","title":"T"}', 1, 'r', 5000)`, id, k)
	}
	exec(`UPDATE results SET superseded_by = 1 WHERE id = 3`)
	for _, o := range []struct{ key, job, action, kind string }{
		{a + ":x", a, "x", "review_tax"},
		{a + ":action:x", a, "action:x", "contact_supplier"},
		{a + ":invoice.committed", a, "invoice.committed", "invoice.committed"},
		{b + ":invoice.committed", b, "invoice.committed", "verify_purchase_order"},
		{c + ":invoice.committed", c, "invoice.committed", "review_tax"},
	} {
		exec(`INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, created_at)
			VALUES ('acme', $1, $2::text, (SELECT id FROM results WHERE job_key = $2::text), $3, $4, '{}', 5000)`, o.key, o.job, o.action, o.kind)
	}
	conn.Close(ctx)

	s := open(t, dsn)
	defer s.Close()
	rows, err := s.Pool().Query(ctx, `SELECT encode(r.job_key, 'hex') || ':' || o.event_suffix, o.action_id, o.kind, o.state, o.created_at, o.payload
		FROM outbox o JOIN results r ON r.id = o.result_id ORDER BY o.id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var restored string
	var key, action, kind, state, payload string
	var created int64
	if _, err := pgx.ForEachRow(rows, []any{&key, &action, &kind, &state, &created, &payload}, func() error {
		got = append(got, fmt.Sprintf("%s%s %s %s %s %d", key[:1], key[64:], action, kind, state, created))
		if key == b+":invoice.committed" {
			restored = payload
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a:action:x x review_tax pending 5000",
		"a:action:action:x action:x contact_supplier pending 5000",
		"a:invoice.committed invoice.committed invoice.committed pending 5000",
		"b:action:invoice.committed invoice.committed verify_purchase_order pending 5000",
		"c:action:invoice.committed invoice.committed review_tax pending 5000",
		"b:invoice.committed invoice.committed invoice.committed pending 5000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("outbox after migration:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var p struct {
		Event         string            `json:"event"`
		Tenant        string            `json:"tenant"`
		JobKey        string            `json:"job_key"`
		SchemaVersion string            `json:"schema_version"`
		SourcePath    string            `json:"source_path"`
		Result        map[string]string `json:"result"`
	}
	if err := json.Unmarshal([]byte(restored), &p); err != nil {
		t.Fatalf("restored payload %q: %v", restored, err)
	}
	if p.Event != "invoice.committed" || p.Tenant != "acme" || p.JobKey != b || p.SchemaVersion != "invoice-summary-v1" ||
		p.SourcePath != "b.txt" || p.Result["title"] != "T" {
		t.Fatalf("restored payload = %s", restored)
	}
}

// A worker whose clock is an hour behind the database's still stores
// database times (issue 10, item 15): results, jobs, attempts, runs, the
// outbox and skipped inputs are dated by the database, so an incremental
// export (committed at or after its last run) sees every commit, and a retry
// delay stays a delay.
func TestSkewedWorkerClockStoresDatabaseTime(t *testing.T) {
	t.Parallel()
	s := open(t, freshDB(t))
	defer s.Close()
	ctx := context.Background()
	worker := func() time.Time { return time.Now().Add(-time.Hour) } // the skewed host
	dbNow := func() time.Time {
		t.Helper()
		var v time.Time
		if err := s.Pool().QueryRow(ctx, `SELECT now()`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	near := func(what string, got, want time.Time) {
		t.Helper()
		if d := got.Sub(want); d < -time.Minute || d > time.Minute {
			t.Errorf("%s = %v, want within a minute of %v (off by %v)", what, got, want, d)
		}
	}
	start := dbNow()
	if err := s.BeginRun(ctx, &store.BeginRunParams{ID: "r", Tenant: "t1", Command: "run", StartedAt: worker()}); err != nil {
		t.Fatal(err)
	}
	a, b := storetest.Doc("t1", "a.txt", "alpha"), storetest.Doc("t1", "b.txt", "beta")
	if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "r", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: []store.Document{a, b}, Now: worker()}); err != nil {
		t.Fatal(err)
	}
	ls, err := s.Claim(ctx, &store.ClaimParams{Tenant: "t1", Owner: "w", RunID: "r", Limit: 2, LeaseFor: time.Minute, Now: worker()})
	if err != nil || len(ls) != 2 {
		t.Fatalf("claim: %d leases, %v", len(ls), err)
	}
	near("lease expiry", ls[0].ExpiresAt, start.Add(time.Minute))
	byKey := map[string]*store.Lease{ls[0].JobKey: ls[0], ls[1].JobKey: ls[1]}
	la, lb := byKey[a.JobKey], byKey[b.JobKey]
	if _, err := s.Commit(ctx, &store.CommitParams{JobID: la.JobID, Tenant: "t1", JobKey: a.JobKey, Token: la.Token,
		AttemptID: la.AttemptID, RunID: "r", SchemaVersion: "invoice-summary-v1", Result: []byte(`{}`),
		Outbox:  []store.OutboxInput{{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: []byte(`{}`)}},
		Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded}, Now: worker()}); err != nil {
		t.Fatal(err)
	}
	wnow := worker()
	if err := s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: lb.JobID, Token: lb.Token, AttemptID: lb.AttemptID,
		State: store.StateRetryWait, NextAttemptAt: wnow.Add(30 * time.Minute),
		Attempt: store.AttemptInfo{Outcome: store.OutcomeRetry}, Now: wnow}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordSkipped(ctx, &store.RecordSkippedParams{Tenant: "t1", SourceSystem: "fs", Path: "c.txt",
		Reason: "binary", Now: worker()}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, &store.FinishRunParams{ID: "r", Status: "completed", FinishedAt: worker()}); err != nil {
		t.Fatal(err)
	}
	end := dbNow()

	res, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "t1", JobKey: a.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	near("committed_at", res.CommittedAt, end)
	// export --since: what an export started just before this commit asks.
	var seen []string
	if err := s.ListResults(ctx, &store.ListResultsParams{Tenant: "t1", Since: start.Add(-time.Second)}, func(r *store.ResultRow) error {
		seen = append(seen, r.JobKey)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != a.JobKey {
		t.Errorf("results since the export's start = %d, want the one committed", len(seen))
	}
	for _, k := range []string{a.JobKey, b.JobKey} {
		j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "t1", Ref: k})
		if err != nil {
			t.Fatal(err)
		}
		near("created_at of "+j.SourcePath, j.CreatedAt, end)
		near("updated_at of "+j.SourcePath, j.UpdatedAt, end)
		atts, err := s.ListAttempts(ctx, &store.ListAttemptsParams{JobID: j.ID})
		if err != nil || len(atts) != 1 {
			t.Fatalf("attempts of %s: %d, %v", j.SourcePath, len(atts), err)
		}
		near("attempt started_at of "+j.SourcePath, atts[0].StartedAt, end)
		near("attempt finished_at of "+j.SourcePath, atts[0].FinishedAt, end)
		if k == b.JobKey {
			near("next_attempt_at (a 30m delay)", j.NextAttemptAt, end.Add(30*time.Minute))
		}
	}
	evs, err := s.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "t1", JobKey: a.JobKey})
	if err != nil || len(evs) != 1 {
		t.Fatalf("outbox: %d, %v", len(evs), err)
	}
	near("outbox created_at", evs[0].CreatedAt, end)
	sk, err := s.ListSkipped(ctx, &store.ListSkippedParams{Tenant: "t1"})
	if err != nil || len(sk) != 1 {
		t.Fatalf("skipped: %d, %v", len(sk), err)
	}
	near("skipped first_seen", sk[0].FirstSeen, end)
	var started, finished int64
	if err := s.Pool().QueryRow(ctx, `SELECT started_at, finished_at FROM runs WHERE id = 'r'`).Scan(&started, &finished); err != nil {
		t.Fatal(err)
	}
	near("run started_at", time.UnixMilli(started), end)
	near("run finished_at", time.UnixMilli(finished), end)
}
