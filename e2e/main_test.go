// Package e2e_test runs the invx binary as a user would: several processes
// at once on one SQLite file, processes killed mid-run, reruns, bad input.
// Every test asserts durable state (rows, counts, exit codes, files) read
// back from the database file, never the binary's own claims alone.
package e2e_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, to read the file back

	"github.com/invx/invx/internal/deadlinetest"
	"github.com/invx/invx/internal/zsttest"
	"github.com/invx/invx/schema"
)

// invxBin is the binary built once by TestMain.
var invxBin string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "invx-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	invxBin = filepath.Join(dir, "invx")
	// Built without -race whatever the test binary uses: the subprocesses
	// are the system under test, the race detector would only slow them.
	build := exec.Command("go", "build", "-buildvcs=false", "-o", invxBin, "github.com/invx/invx")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: go build github.com/invx/invx:", err)
		return 1
	}
	return m.Run()
}

// cmdTimeout bounds any single invx invocation (or wait) so a hang fails
// the test, naming the command, instead of the whole package timing out. It
// is taken from the test's own deadline: a fixed 45 s failed tests that were
// only slow on a loaded machine.
func cmdTimeout(t *testing.T) time.Duration {
	t.Helper()
	return deadlinetest.Timeout(t)
}

// env is the environment invx runs with: the caller's, minus any INVX_*
// setting that would change the database or tenant under the test's feet.
func env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "INVX_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// result is a finished invx process.
type result struct {
	args   []string
	code   int
	stdout string
	stderr string
	wall   time.Duration
}

func (r *result) String() string {
	return fmt.Sprintf("invx %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// proc is a started invx process.
type proc struct {
	cmd            *exec.Cmd
	args           []string
	stdout, stderr bytes.Buffer
	started        time.Time
	cancel         context.CancelFunc
}

// start starts invx with args; the caller must call wait.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout(t))
	p := &proc{args: args, cancel: cancel}
	p.cmd = exec.CommandContext(ctx, invxBin, args...)
	p.cmd.Env = env()
	p.cmd.Stdin = nil
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start invx %s: %v", strings.Join(args, " "), err)
	}
	return p
}

// wait waits for the process and returns how it ended. A process killed by
// a signal has code -1.
func (p *proc) wait(t *testing.T) *result {
	t.Helper()
	defer p.cancel()
	err := p.cmd.Wait()
	r := &result{args: p.args, stdout: p.stdout.String(), stderr: p.stderr.String(), wall: time.Since(p.started)}
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.code = 0
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("wait for invx %s: %v", strings.Join(p.args, " "), err)
	}
	return r
}

// invx runs invx to completion.
func invx(t *testing.T, args ...string) *result {
	t.Helper()
	return start(t, args...).wait(t)
}

// mustExit fails the test unless r ended with code.
func mustExit(t *testing.T, r *result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
}

// summary mirrors the JSON summary of invx run --json (extract.Summary).
type summary struct {
	RunID            string         `json:"run_id"`
	Tenant           string         `json:"tenant"`
	Status           string         `json:"status"`
	FilesSeen        int            `json:"files_seen"`
	Skipped          map[string]int `json:"skipped"`
	NewJobs          int            `json:"new_jobs"`
	Duplicates       int            `json:"duplicates_suppressed"`
	AlreadyCommitted int            `json:"already_committed"`
	Resumed          int            `json:"resumed"`
	StillNeedsReview int            `json:"still_needs_review"`
	HeldChanged      int            `json:"held_changed"`
	Attempts         int            `json:"attempts"`
	Committed        int            `json:"committed"`
	Rejected         map[string]int `json:"rejected"`
	Failed           int            `json:"failed"`
	Retried          int            `json:"retried"`
	LeaseRecoveries  int            `json:"lease_recoveries"`
	StaleLeases      int            `json:"stale_leases"`
	Final            struct {
		Succeeded  int `json:"succeeded"`
		Rejected   int `json:"rejected"`
		Failed     int `json:"failed"`
		Held       int `json:"held"`
		Unfinished int `json:"unfinished"`
	} `json:"final"`
}

// parseSummary decodes stdout of invx run --json: exactly one JSON object.
func parseSummary(t *testing.T, r *result) *summary {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var s summary
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("decode --json summary: %v\n%s", err, r)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout holds more than one JSON value (%v)\n%s", err, r)
	}
	if s.RunID == "" {
		t.Fatalf("summary without run_id\n%s", r)
	}
	return &s
}

// openDB opens the invx database file for reading. Not mode=ro: after a
// SIGKILL the WAL may need recovery, which a read-only connection refuses
// (SQLITE_READONLY_RECOVERY, 776); query_only still forbids the test to write.
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file: %v", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	dsn := "file:" + path + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return db
}

// count runs a query that returns one integer.
func count(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// wantCount fails the test unless the query's integer is want.
func wantCount(t *testing.T, db *sql.DB, want int, q string, args ...any) {
	t.Helper()
	if got := count(t, db, q, args...); got != want {
		t.Errorf("%s = %d, want %d", q, got, want)
	}
}

// integrityOK runs SQLite's own consistency checks on the file.
func integrityOK(t *testing.T, db *sql.DB) {
	t.Helper()
	var got string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&got); err != nil {
		t.Fatalf("integrity_check: %v", err)
	}
	if got != "ok" {
		t.Errorf("PRAGMA integrity_check = %q, want ok", got)
	}
	rows, err := db.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatalf("foreign_key_check: %v", err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Errorf("PRAGMA foreign_key_check reports violations")
	}
	// An error ends Next like an empty result would: tell them apart.
	if err := rows.Err(); err != nil {
		t.Fatalf("foreign_key_check: %v", err)
	}
}

// resultDoc is the part of a stored result the tests look at.
type resultDoc struct {
	SchemaVersion string `json:"schema_version"`
	ActionItems   []struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
	} `json:"action_items"`
}

// checkCommittedOnce asserts the invariants of a queue worked to the end:
// want documents, each committed exactly once by one succeeded attempt, with
// exactly its outbox events, and a sound database file. It returns the
// number of action items over all results.
func checkCommittedOnce(t *testing.T, db *sql.DB, want int) (actions int) {
	t.Helper()
	actions = checkInvariants(t, db, want)
	integrityOK(t, db)
	return actions
}

// checkInvariants is checkCommittedOnce without the SQLite file check, in SQL
// that PostgreSQL runs too.
func checkInvariants(t *testing.T, db *sql.DB, want int) (actions int) {
	t.Helper()
	// Past 256 documents results are written with the database's
	// dictionary (migration 014): Unzst needs it.
	zsttest.Dicts(t, db)
	wantCount(t, db, want, `SELECT count(*) FROM results`)
	wantCount(t, db, want, `SELECT count(*) FROM (SELECT DISTINCT tenant, job_key FROM results) AS x`)
	wantCount(t, db, want, `SELECT count(*) FROM jobs`)
	wantCount(t, db, want, `SELECT count(*) FROM jobs WHERE state = 'succeeded'`)
	wantCount(t, db, 0, `SELECT count(*) FROM jobs WHERE state = 'running' OR lease_owner IS NOT NULL`)
	wantCount(t, db, want, `SELECT count(*) FROM attempts WHERE outcome = 'succeeded'`)
	// Each result points at its job and at a succeeded attempt of that job,
	// and the job points back at it.
	wantCount(t, db, want, `SELECT count(*) FROM results r
		JOIN jobs j ON j.id = r.job_id AND j.job_key = r.job_key AND j.tenant = r.tenant
			AND j.state = 'succeeded' AND j.result_id = r.id
		JOIN attempts a ON a.id = r.attempt_id AND a.job_id = j.id AND a.outcome = 'succeeded'`)
	// One succeeded attempt per job, never two.
	wantCount(t, db, 0, `SELECT count(*) FROM (SELECT job_id FROM attempts WHERE outcome = 'succeeded'
		GROUP BY job_id HAVING count(*) <> 1) AS x`)
	// Every lease grant is an attempt row.
	wantCount(t, db, 0, `SELECT count(*) FROM jobs j WHERE j.attempts <>
		(SELECT count(*) FROM attempts a WHERE a.job_id = j.id)`)
	// An event's key is its result's job key and its suffix (migration 015).
	wantCount(t, db, 0, `SELECT count(*) FROM (SELECT r.tenant, r.job_key, o.event_suffix FROM outbox o JOIN results r ON r.id = o.result_id
		GROUP BY r.tenant, r.job_key, o.event_suffix HAVING count(*) > 1) AS x`)

	// The outbox holds exactly one event per action item and one
	// invoice.committed per result, keyed as store.EventKey says.
	type res struct {
		id  int64
		doc resultDoc
	}
	results := map[string]res{}
	// Each result is a document of the version its job was keyed with (the
	// version the test ran: invoice-v2 by default, invoice-summary-v1 where
	// a fake model answers v1), stored under that version.
	rows, err := db.Query(`SELECT r.id, r.job_key, r.result, r.result_zst, r.schema_version, j.schema_version
		FROM results r JOIN jobs j ON j.id = r.job_id`)
	if err != nil {
		t.Fatalf("read results: %v", err)
	}
	for rows.Next() {
		var id int64
		var body, stored, keyed string
		var zst, bin []byte
		if err := rows.Scan(&id, &bin, &body, &zst, &stored, &keyed); err != nil {
			t.Fatal(err)
		}
		key := hex.EncodeToString(bin) // stored as 32 bytes (migration 015)
		body = zsttest.Unzst(t, zst, body)
		var d resultDoc
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatalf("result %d is not JSON: %v", id, err)
		}
		if _, err := schema.Lookup(keyed); err != nil || d.SchemaVersion != keyed || stored != keyed {
			t.Errorf("result %d: document schema_version %q, stored as %q, job keyed with %q; want one released version",
				id, d.SchemaVersion, stored, keyed)
		}
		results[key] = res{id, d}
	}
	// A read that fails half-way ends the loop like the last row would.
	if err := rows.Err(); err != nil {
		t.Fatalf("read results: %v", err)
	}
	rows.Close()
	if len(results) != want {
		t.Fatalf("read %d results, want %d", len(results), want)
	}

	type ev struct {
		eventKey, actionID, kind string
		resultID                 int64
	}
	events := map[string][]ev{}
	total := 0
	// action_id and kind are NULL where the suffix says them (migration 015).
	rows, err = db.Query(`SELECT r.job_key, o.event_suffix,
			coalesce(o.action_id, CASE WHEN o.event_suffix LIKE 'action:%' THEN substr(o.event_suffix, 8) ELSE coalesce(o.kind, o.event_suffix) END),
			coalesce(o.kind, o.event_suffix), o.result_id
		FROM outbox o JOIN results r ON r.id = o.result_id ORDER BY o.id`)
	if err != nil {
		t.Fatalf("read outbox: %v", err)
	}
	for rows.Next() {
		var bin []byte
		var suffix string
		var e ev
		if err := rows.Scan(&bin, &suffix, &e.actionID, &e.kind, &e.resultID); err != nil {
			t.Fatal(err)
		}
		key := hex.EncodeToString(bin)
		e.eventKey = key + ":" + suffix
		events[key] = append(events[key], e)
		total++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read outbox: %v", err)
	}
	rows.Close()

	wantTotal := 0
	for key, r := range results {
		want := map[string]string{"invoice.committed": "invoice.committed"}
		for _, a := range r.doc.ActionItems {
			want[a.ID] = a.Kind
		}
		actions += len(r.doc.ActionItems)
		wantTotal += len(r.doc.ActionItems) + 1
		got := map[string]string{}
		for _, e := range events[key] {
			wantKey := key + ":action:" + e.actionID
			if e.kind == "invoice.committed" {
				wantKey = key + ":invoice.committed"
			}
			if e.eventKey != wantKey {
				t.Errorf("outbox event_key %q, want %q", e.eventKey, wantKey)
			}
			if e.resultID != r.id {
				t.Errorf("outbox %s result_id %d, want %d", e.eventKey, e.resultID, r.id)
			}
			got[e.actionID] = e.kind
		}
		if len(events[key]) != len(want) || fmt.Sprint(sortedPairs(got)) != fmt.Sprint(sortedPairs(want)) {
			t.Errorf("job %s: outbox events %v, want %v", key[:12], sortedPairs(got), sortedPairs(want))
		}
	}
	for key := range events {
		if _, ok := results[key]; !ok {
			t.Errorf("outbox events for job %s, which has no result", key[:12])
		}
	}
	if total != wantTotal {
		t.Errorf("outbox rows = %d, want %d (action items + one invoice.committed per result)", total, wantTotal)
	}
	return actions
}

func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// writeDocs writes docs as NAME.txt files into a new directory and returns it.
func writeDocs(t *testing.T, docs map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "invoices")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range docs {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// dbPath is a fresh database path in the test's temp dir.
func dbPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "invx.db")
}
