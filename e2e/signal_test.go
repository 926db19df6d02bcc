//go:build unix

package e2e_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// watcher is a process's stderr that can be waited on for a marker line.
type watcher struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	seen   chan struct{}
	once   sync.Once
}

func newWatcher(marker string) *watcher { return &watcher{marker: marker, seen: make(chan struct{})} }

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.marker) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *watcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// signalled runs invx with args, sends sig once stderr shows marker, and
// returns how the process ended. A process still running well after the
// signal fails the test (it would otherwise hang the package).
func signalled(t *testing.T, sig syscall.Signal, marker string, args ...string) (*result, *watcher) {
	t.Helper()
	limit := 3 * time.Minute
	if d, ok := t.Deadline(); ok {
		limit = min(limit, time.Until(d)/2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	w := newWatcher(marker)
	var stdout bytes.Buffer
	c := exec.CommandContext(ctx, invxBin, args...)
	c.Env, c.Stdout, c.Stderr = env(), &stdout, w
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var err error
	select {
	case <-w.seen:
		if serr := c.Process.Signal(sig); serr != nil {
			t.Fatalf("signal: %v", serr)
		}
		err = <-done
	case err = <-done:
		t.Fatalf("invx ended before %q showed on stderr: %v\n%s", marker, err, w.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("invx did not stop after %v (signal %v when %q showed)\nstderr tail:\n%s", limit, sig, marker, tail(w.String(), 2000))
	}
	r := &result{args: args, stdout: stdout.String(), stderr: w.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	return r, w
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// bigTree writes n generated invoices into nested folders of 100 files.
func bigTree(t *testing.T, seed uint64, n int) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "tree")
	i := 0
	for name, text := range genInvoices(t, seed, n) {
		p := filepath.Join(root, fmt.Sprintf("d%03d", i/100), name)
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		i++
	}
	return root
}

// checkInterrupted asserts what a run stopped by a signal leaves behind: the
// run recorded interrupted, nothing in flight, every result belonging to a
// succeeded job, and enqueued jobs in whole batches (500) unless all n were.
func checkInterrupted(t *testing.T, db *sql.DB, root string, n int) (jobs int) {
	t.Helper()
	integrityOK(t, db)
	wantCount(t, db, 1, `SELECT count(*) FROM runs`)
	wantCount(t, db, 1, `SELECT count(*) FROM runs WHERE status = 'interrupted' AND finished_at IS NOT NULL AND summary IS NOT NULL`)
	wantCount(t, db, 0, `SELECT count(*) FROM jobs WHERE state = 'running' OR lease_owner IS NOT NULL`)
	wantCount(t, db, 0, `SELECT count(*) FROM attempts WHERE outcome = ''`)
	wantCount(t, db, count(t, db, `SELECT count(*) FROM jobs WHERE state = 'succeeded'`), `SELECT count(*) FROM results`)
	return enqueuedPrefix(t, db, root, n)
}

// enqueuedPrefix checks that the documents enqueued before a stop are the
// first ones of the walk, each with its job and its source reference, and
// returns how many there are. Batches are cut by count and by text size,
// so their boundaries are not a fixed multiple; what a stop may never leave
// is a gap (a later file enqueued, an earlier one not) or a job without its
// reference.
func enqueuedPrefix(t *testing.T, db *sql.DB, root string, n int) (jobs int) {
	t.Helper()
	jobs = count(t, db, `SELECT count(*) FROM jobs`)
	wantCount(t, db, jobs, `SELECT count(*) FROM sources`)
	var walk []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, rerr := filepath.Rel(root, p)
			walk = append(walk, filepath.ToSlash(rel))
			return rerr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(walk) != n || jobs > n {
		t.Fatalf("%d files in the tree, %d jobs; want %d files and at most as many jobs", len(walk), jobs, n)
	}
	rows, err := db.Query(`SELECT path FROM sources ORDER BY path`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		if i < len(walk) && p != walk[i] {
			t.Fatalf("enqueued file %d is %s, want %s: the enqueued files are not the walk's first %d", i, p, walk[i], jobs)
		}
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return jobs
}

// One SIGTERM (what cron and systemd send) during discovery of a large tree
// stops the run: exit 130, the run recorded interrupted, no half-written
// enqueue batch; a rerun commits everything exactly once.
func TestSIGTERMDuringDiscovery(t *testing.T) {
	t.Parallel()
	const n = 4321 // not a multiple of the batch size: a partial batch shows
	dir := bigTree(t, 21, n)
	db := dbPath(t)
	// The first discovered file: the walk is under way.
	r, _ := signalled(t, syscall.SIGTERM, "stage=discovered", "--db", db, "--log-level", "debug", "run", "--json", dir)
	if r.code != 130 {
		t.Fatalf("want exit 130 after SIGTERM, got %s", tail(r.String(), 3000))
	}
	s := parseSummary(t, r)
	if s.Status != "interrupted" {
		t.Errorf("summary status %q, want interrupted", s.Status)
	}
	sdb := openDB(t, db)
	jobs := checkInterrupted(t, sdb, dir, n)
	t.Logf("interrupted with %d of %d documents enqueued, %d attempts", jobs, n, s.Attempts)
	sdb.Close()

	r = invx(t, "--db", db, "run", "--quiet", "--concurrency", "4", dir)
	mustExit(t, r, 0)
	checkCommittedOnce(t, openDB(t, db), n)
}

// One SIGTERM while documents are being worked (the walk enqueues while the
// first batches are worked): what is in flight finishes or gives its lease
// back, the walk stops between two batches, exit 130, and a rerun carries
// on.
func TestSIGTERMDuringWork(t *testing.T) {
	t.Parallel()
	const n = 1500
	dir := bigTree(t, 22, n)
	db := dbPath(t)
	r, _ := signalled(t, syscall.SIGTERM, "stage=committed", "--db", db, "--log-level", "info", "run", "--json",
		"--concurrency", "4", dir)
	if r.code != 130 {
		t.Fatalf("want exit 130 after SIGTERM, got %s", tail(r.String(), 3000))
	}
	s := parseSummary(t, r)
	if s.Status != "interrupted" {
		t.Errorf("summary status %q, want interrupted", s.Status)
	}
	sdb := openDB(t, db)
	jobs := checkInterrupted(t, sdb, dir, n)
	done := count(t, sdb, `SELECT count(*) FROM results`)
	if done > jobs {
		t.Errorf("%d results of %d jobs", done, jobs)
	}
	if done < 1 {
		t.Errorf("no result committed, though one was logged before the signal")
	}
	t.Logf("interrupted with %d of %d committed, %d enqueued", done, n, jobs)
	sdb.Close()

	r = invx(t, "--db", db, "run", "--quiet", "--concurrency", "4", dir)
	mustExit(t, r, 0)
	checkCommittedOnce(t, openDB(t, db), n)
}

// A second signal means the user will not wait: the process exits at once
// with 130, and the database is still sound for a rerun.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	t.Parallel()
	const n = 600
	dir := bigTree(t, 23, n)
	// A provider that never answers keeps the first signal's clean stop
	// waiting for the call in flight; only the second signal ends it.
	tmp := t.TempDir()
	script, pids := filepath.Join(tmp, "slow.sh"), filepath.Join(tmp, "pids")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho $$ >> "+pids+"\ncat >/dev/null\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The command provider runs each call in a process group of its own,
	// which the signal does not reach: invx must end them as it exits. The
	// clean-up only matters when that fails.
	t.Cleanup(func() {
		b, _ := os.ReadFile(pids)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
	})
	db := dbPath(t)
	limit := 3 * time.Minute
	if d, ok := t.Deadline(); ok {
		limit = min(limit, time.Until(d)/2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	w := newWatcher("stage=claimed")
	c := exec.CommandContext(ctx, invxBin, "--db", db, "--log-level", "debug", "run", "--provider", "command",
		"--command", script, "--concurrency", "2", dir)
	c.Env, c.Stderr = env(), w
	// The provider's sleep is in the same process group: end it with the test.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL) })
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-w.seen:
	case err := <-done:
		t.Fatalf("invx ended before a job was claimed: %v\n%s", err, w.String())
	}
	// The provider program runs (it wrote its pid) before the first signal,
	// so the test can check that invx ends it.
	for deadline := time.Now().Add(cmdTimeout(t)); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(pids); strings.HasSuffix(string(b), "\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the provider program never started\n%s", tail(w.String(), 2000))
		}
	}
	// Signals of one kind do not queue: the second is sent once the first
	// was taken (invx says so), else the kernel may merge the two.
	w.mu.Lock()
	w.marker, w.seen, w.once = "stopping after the work in flight", make(chan struct{}), sync.Once{}
	w.mu.Unlock()
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.seen:
	case err := <-done:
		t.Fatalf("invx ended on the first signal, though a call was in flight: %v\n%s", err, tail(w.String(), 2000))
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if ctx.Err() != nil {
		t.Fatalf("invx did not exit after a second SIGTERM\n%s", tail(w.String(), 2000))
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130 after two signals, got %v\n%s", err, tail(w.String(), 2000))
	}
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	providersGone(t, pids)
	sdb := openDB(t, db)
	integrityOK(t, sdb)
	// The walk enqueues while the queue is worked, so it may have been
	// stopped between two batches.
	enqueuedPrefix(t, sdb, dir, n)
	sdb.Close()
}

// providersGone fails unless every provider process recorded in pidFile has
// ended (killed by invx on its way out, then reaped by init).
func providersGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("no provider process was started: %v", err)
	}
	deadline := time.Now().Add(cmdTimeout(t))
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %q: %v", b, err)
		}
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("provider process %d still runs after invx exited on the second signal", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// alive reports whether pid runs: a zombie (killed, not yet reaped by an
// init that may never reap it) does not count.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
