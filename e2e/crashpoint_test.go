package e2e_test

import (
	"database/sql"
	"testing"

	"github.com/invx/invx/internal/crashpoint"
)

// invx is killed inside a batched claim transaction and inside a group
// commit transaction, before COMMIT, at a point a random kill rarely lands
// on. Whatever the transaction wrote is gone as a whole: no attempt without
// its lease, no result without its job's state, no event without its
// result. The next run recovers the leases of the dead process and commits
// every document exactly once.
func TestKillInsideBatchedClaimAndCommit(t *testing.T) {
	t.Parallel()
	engines := []struct {
		name string
		db   func(t *testing.T) (string, func(t *testing.T) *sql.DB)
	}{
		{"sqlite", func(t *testing.T) (string, func(t *testing.T) *sql.DB) {
			p := dbPath(t)
			return p, func(t *testing.T) *sql.DB { return openDB(t, p) }
		}},
		{"postgres", func(t *testing.T) (string, func(t *testing.T) *sql.DB) {
			dsn, _ := pgDatabase(t, pgAdmin(t))
			return dsn, func(t *testing.T) *sql.DB {
				db, err := sql.Open("pgx", dsn)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				return db
			}
		}},
	}
	points := []string{"claim.tx:3", "commit.tx:4"}
	for _, e := range engines {
		for _, point := range points {
			t.Run(e.name+"/"+point, func(t *testing.T) {
				t.Parallel()
				// More documents than MaxGroupCommit x 4: a commit group may
				// gather up to 64 commits while they keep arriving, and the
				// fourth commit transaction must come before the last one.
				const n = 300
				dir := writeDocs(t, genInvoices(t, 77, n))
				target, open := e.db(t)
				args := []string{"--db", target, "run", "--quiet", "--concurrency", "4", "--lease", "3s", dir}
				r := invxWithEnv(t, []string{crashpoint.Env + "=" + point}, args...)
				if r.code != -1 {
					t.Fatalf("%s=%s: want the process killed (code -1)\n%s", crashpoint.Env, point, r)
				}
				db := open(t)
				committed := count(t, db, `SELECT count(*) FROM results`)
				if committed >= n {
					t.Fatalf("killed at %s after all %d documents committed: the point was never reached mid-run", point, n)
				}
				checkWholeTransactions(t, db)

				mustExit(t, invx(t, args...), 0)
				checkInvariants(t, db, n)
				t.Logf("killed at %s with %d of %d committed; the rerun committed the rest once", point, committed, n)
			})
		}
	}
}

// checkWholeTransactions asserts that the store holds no half of a claim or
// a commit, whatever else a killed process left in flight.
func checkWholeTransactions(t *testing.T, db *sql.DB) {
	t.Helper()
	// A claim grants a lease and opens its attempt together.
	wantCount(t, db, 0, `SELECT count(*) FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE j.state = 'queued'`)
	wantCount(t, db, 0, `SELECT count(*) FROM jobs j WHERE j.state = 'running' AND NOT EXISTS (
		SELECT 1 FROM attempts a WHERE a.job_id = j.id AND a.outcome = '')`)
	// A commit writes the result, the job's state, the attempt's outcome
	// and the events together.
	results := count(t, db, `SELECT count(*) FROM results`)
	wantCount(t, db, results, `SELECT count(*) FROM jobs WHERE state = 'succeeded'`)
	wantCount(t, db, results, `SELECT count(*) FROM attempts WHERE outcome = 'succeeded'`)
	wantCount(t, db, 0, `SELECT count(*) FROM outbox o WHERE NOT EXISTS (
		SELECT 1 FROM results r WHERE r.tenant = o.tenant AND r.id = o.result_id)`)
	wantCount(t, db, results, `SELECT count(DISTINCT result_id) FROM outbox`)
}
