package e2e_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// killSeed returns the seed of the kill schedule: INVX_E2E_SEED to replay a
// logged run, else the clock.
func killSeed(t *testing.T) uint64 {
	t.Helper()
	if v := os.Getenv("INVX_E2E_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("INVX_E2E_SEED=%q: %v", v, err)
		}
		return s
	}
	return uint64(time.Now().UnixNano())
}

// invx run is SIGKILLed twenty times at random moments (during start-up,
// enqueue, provider calls and commits), then run to the end once more.
// Whatever was in flight when a process died is recovered, and every
// document is still committed exactly once with exactly its outbox events.
func TestSIGKILLResume(t *testing.T) {
	t.Parallel()
	const (
		n     = 300
		kills = 20
	)
	dir := writeDocs(t, genInvoices(t, 3, n))
	db := dbPath(t)

	// How long a whole uninterrupted run takes here, on a throwaway
	// database. The kills are spread over the work rather than landing after
	// it is done: each delay is uniform in [0, 2d), d being the share of a
	// full run that the work still left would take per kill still to come,
	// so a machine faster or slower than the probe suggested corrects itself.
	probe := invx(t, "--db", dbPath(t), "run", "--quiet", "--concurrency", "4", dir)
	mustExit(t, probe, 0)
	full := probe.wall

	seed := killSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("kill schedule seed %d (INVX_E2E_SEED=%d to replay the delays); full run %v", seed, seed, full)

	midRun, finished := 0, 0
	committed := 0
	for i := range kills {
		left := float64(n-committed) / n
		maxDelay := max(time.Duration(2*left*float64(full)/float64(kills-i)), 20*time.Millisecond)
		delay := time.Duration(rng.Int64N(int64(maxDelay)))
		p := start(t, "--db", db, "run", "--quiet", "--concurrency", "4", dir)
		time.Sleep(delay)
		killErr := p.cmd.Process.Kill()
		r := p.wait(t)
		switch {
		case r.code == 0:
			// The run was over before the kill: fine, and counted.
			finished++
		case r.code == -1 && killErr == nil:
		default:
			t.Fatalf("kill %d after %v: %s", i, delay, r)
		}
		if _, err := os.Stat(db); err == nil {
			sql := openDB(t, db)
			// A kill before the first migration committed leaves the file
			// with no tables: the migration rolled back whole.
			if count(t, sql, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'results'`) == 1 {
				committed = count(t, sql, `SELECT count(*) FROM results`)
			}
			sql.Close()
		}
		if r.code != 0 && committed < n {
			midRun++
		}
		t.Logf("kill %2d after %-12v exit %2d, results so far %d", i, delay, r.code, committed)
	}
	t.Logf("%d kills left work behind, %d runs finished first", midRun, finished)
	if midRun < kills/2 {
		t.Errorf("only %d of %d kills left work behind: the test did not exercise recovery", midRun, kills)
	}

	last := invx(t, "--db", db, "run", "--json", "--concurrency", "4", dir)
	mustExit(t, last, 0)
	s := parseSummary(t, last)
	if s.Final.Succeeded != n || s.FilesSeen != n || s.Status != "completed" {
		t.Errorf("final run: status %q files %d final %+v, want completed, %d succeeded", s.Status, s.FilesSeen, s.Final, n)
	}
	if s.NewJobs+s.Resumed+s.AlreadyCommitted != n {
		t.Errorf("final run: new %d + resumed %d + already committed %d, want %d", s.NewJobs, s.Resumed, s.AlreadyCommitted, n)
	}

	sql := openDB(t, db)
	checkCommittedOnce(t, sql, n)
	// A killed attempt is either recovered (lease_expired) or, for a job
	// that was never claimed again, still open; nothing else happened.
	wantCount(t, sql, 0, `SELECT count(*) FROM attempts WHERE outcome NOT IN ('succeeded', 'lease_expired', '')`)
	wantCount(t, sql, count(t, sql, `SELECT coalesce(sum(lease_recoveries), 0) FROM jobs`),
		`SELECT count(*) FROM attempts WHERE outcome = 'lease_expired'`)
	t.Logf("attempts %d (lease_expired %d, open %d), runs %d",
		count(t, sql, `SELECT count(*) FROM attempts`),
		count(t, sql, `SELECT count(*) FROM attempts WHERE outcome = 'lease_expired'`),
		count(t, sql, `SELECT count(*) FROM attempts WHERE outcome = ''`),
		count(t, sql, `SELECT count(*) FROM runs`))
}
