package e2e_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// startMany starts n identical invx processes at once and waits for all.
func startMany(t *testing.T, n int, args ...string) []*result {
	t.Helper()
	procs := make([]*proc, n)
	for i := range procs {
		procs[i] = start(t, args...)
	}
	out := make([]*result, n)
	for i, p := range procs {
		out[i] = p.wait(t)
	}
	return out
}

type showOut struct {
	JobKey      string `json:"job_key"`
	State       string `json:"state"`
	SourcePath  string `json:"source_path"`
	AttemptList []struct {
		Outcome string `json:"outcome"`
		RunID   string `json:"run_id"`
	} `json:"attempts"`
	Result *struct {
		ID    int64  `json:"id"`
		RunID string `json:"run_id"`
	} `json:"result"`
}

func show(t *testing.T, db, ref string) *showOut {
	t.Helper()
	r := invx(t, "--db", db, "show", "--json", ref)
	mustExit(t, r, 0)
	var s showOut
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("decode show --json: %v\n%s", err, r)
	}
	return &s
}

// Four processes race for one document: one provider call, one result, one
// commit; the other three see it pending or already committed and wait for
// it, each ending with the document succeeded.
func TestFourProcessesOneJob(t *testing.T) {
	t.Parallel()
	inv := genInvoice(1, 0)
	dir := writeDocs(t, map[string]string{"a.txt": inv.text})
	db := dbPath(t)

	res := startMany(t, 4, "--db", db, "run", "--json", dir)
	committedBy := ""
	newJobs, committed := 0, 0
	for i, r := range res {
		mustExit(t, r, 0)
		s := parseSummary(t, r)
		if s.Status != "completed" || s.FilesSeen != 1 {
			t.Errorf("process %d: status %q files_seen %d, want completed 1", i, s.Status, s.FilesSeen)
		}
		// The one document was new, pending (another process had it) or
		// already committed: exactly one of them, for every process.
		if got := s.NewJobs + s.Resumed + s.AlreadyCommitted + s.Duplicates; got != 1 {
			t.Errorf("process %d: new %d + resumed %d + already committed %d + duplicates %d = %d, want 1",
				i, s.NewJobs, s.Resumed, s.AlreadyCommitted, s.Duplicates, got)
		}
		if s.Final.Succeeded != 1 || s.Final.Unfinished != 0 {
			t.Errorf("process %d: final %+v, want 1 succeeded", i, s.Final)
		}
		if s.Committed > 1 || s.Attempts != s.Committed || s.StaleLeases != 0 || s.LeaseRecoveries != 0 {
			t.Errorf("process %d: committed %d attempts %d stale %d recoveries %d, want at most one clean commit",
				i, s.Committed, s.Attempts, s.StaleLeases, s.LeaseRecoveries)
		}
		newJobs += s.NewJobs
		committed += s.Committed
		if s.Committed == 1 {
			committedBy = s.RunID
		}
	}
	if newJobs != 1 || committed != 1 {
		t.Errorf("over all processes: new_jobs %d, committed %d, want 1 and 1", newJobs, committed)
	}

	sql := openDB(t, db)
	checkCommittedOnce(t, sql, 1)
	wantCount(t, sql, 1, `SELECT count(*) FROM attempts`)
	wantCount(t, sql, 4, `SELECT count(*) FROM runs WHERE status = 'completed'`)
	var resultID int64
	if err := sql.QueryRow(`SELECT id FROM results`).Scan(&resultID); err != nil {
		t.Fatal(err)
	}

	// Every way of naming the document shows the one result.
	for _, ref := range []string{filepath.Join(dir, "a.txt"), "a.txt"} {
		s := show(t, db, ref)
		if s.State != "succeeded" || s.Result == nil || s.Result.ID != resultID {
			t.Fatalf("show %s: state %q result %+v, want succeeded with result id %d", ref, s.State, s.Result, resultID)
		}
		if s.Result.RunID != committedBy {
			t.Errorf("show %s: result run %s, want the run whose summary says it committed (%s)", ref, s.Result.RunID, committedBy)
		}
		if len(s.AttemptList) != 1 || s.AttemptList[0].Outcome != "succeeded" || s.AttemptList[0].RunID != committedBy {
			t.Errorf("show %s: attempts %+v, want one succeeded by run %s", ref, s.AttemptList, committedBy)
		}
	}
}

// Four processes with four workers each share 200 documents: every document
// is committed exactly once and the processes' summaries add up.
func TestFourProcessesManyJobs(t *testing.T) {
	t.Parallel()
	const n = 200
	dir := writeDocs(t, genInvoices(t, 2, n))
	db := dbPath(t)

	res := startMany(t, 4, "--db", db, "run", "--json", "--concurrency", "4", dir)
	var newJobs, committed, attempts int
	for i, r := range res {
		mustExit(t, r, 0)
		s := parseSummary(t, r)
		if s.FilesSeen != n || s.NewJobs+s.Resumed+s.AlreadyCommitted+s.Duplicates != n {
			t.Errorf("process %d: files %d, new %d + resumed %d + already committed %d + duplicates %d, want %d",
				i, s.FilesSeen, s.NewJobs, s.Resumed, s.AlreadyCommitted, s.Duplicates, n)
		}
		if s.Final.Succeeded != n || s.Status != "completed" {
			t.Errorf("process %d: status %q final %+v, want completed with %d succeeded", i, s.Status, s.Final, n)
		}
		newJobs += s.NewJobs
		committed += s.Committed
		attempts += s.Attempts
	}
	if newJobs != n || committed != n {
		t.Errorf("over all processes: new_jobs %d, committed %d, want %d each", newJobs, committed, n)
	}

	sql := openDB(t, db)
	actions := checkCommittedOnce(t, sql, n)
	if actions == 0 {
		t.Errorf("no action items in %d results: the generator's PO numbers produced no outbox action events", n)
	}
	wantCount(t, sql, attempts, `SELECT count(*) FROM attempts`)
	wantCount(t, sql, n, `SELECT count(*) FROM sources`)
	t.Logf("%d documents, %d action items, attempts %d, process wall times %v %v %v %v",
		n, actions, attempts, res[0].wall, res[1].wall, res[2].wall, res[3].wall)
}
