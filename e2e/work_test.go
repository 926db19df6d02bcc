package e2e_test

import (
	"fmt"
	"testing"
)

// Issue 7: a tenant with 2,000 queued jobs must not delay nine tenants with
// 10 each. Everything is enqueued first (run --enqueue-only per tenant), then
// one `invx work --all-tenants` drains the queue: every small tenant's jobs
// are committed before the large tenant's 200th.
func TestWorkIsFairAcrossTenants(t *testing.T) {
	t.Parallel()
	db := dbPath(t)
	enqueue := func(tenant string, n int, seed uint64) {
		t.Helper()
		docs := genInvoices(t, seed, n)
		dir := writeDocs(t, docs)
		r := invx(t, "--db", db, "--tenant", tenant, "run", "--enqueue-only", "--quiet", "--json", dir)
		mustExit(t, r, 0)
		if s := parseSummary(t, r); s.NewJobs != n || s.Committed != 0 {
			t.Fatalf("enqueue %s: new %d committed %d, want %d and 0", tenant, s.NewJobs, s.Committed, n)
		}
	}
	enqueue("big", 2000, 7001)
	for k := range 9 {
		enqueue(fmt.Sprintf("small-%d", k), 10, uint64(8000+k))
	}
	r := invx(t, "--db", db, "work", "--all-tenants", "--concurrency", "4", "--quiet", "--json")
	mustExit(t, r, 0)

	sql := openDB(t, db)
	wantCount(t, sql, 2090, `SELECT count(*) FROM results`)
	wantCount(t, sql, 0, `SELECT count(*) FROM jobs WHERE state <> 'succeeded'`)
	var cut int64
	if err := sql.QueryRow(`SELECT id FROM results WHERE tenant = 'big' ORDER BY id LIMIT 1 OFFSET 199`).Scan(&cut); err != nil {
		t.Fatal(err)
	}
	if late := count(t, sql, `SELECT count(*) FROM results WHERE tenant <> 'big' AND id > ?`, cut); late != 0 {
		t.Fatalf("%d small-tenant jobs were committed after the big tenant's 200th", late)
	}
}

// run --enqueue-only then several `invx work` processes on one SQLite file:
// every job committed exactly once.
func TestEnqueueOnlyThenFourWorkers(t *testing.T) {
	t.Parallel()
	db := dbPath(t)
	dir := writeDocs(t, genInvoices(t, 4242, 120))
	mustExit(t, invx(t, "--db", db, "run", "--enqueue-only", "--quiet", dir), 0)
	for _, r := range startMany(t, 4, "--db", db, "work", "--concurrency", "2", "--quiet") {
		mustExit(t, r, 0)
	}
	sql := openDB(t, db)
	checkCommittedOnce(t, sql, 120)
}
