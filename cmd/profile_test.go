package cmd_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A slowness report comes with a profile: --cpuprofile and --memprofile
// write pprof files (gzip-compressed protobuf) when run and work end,
// --trace an execution trace, and an unwritable profile path stops the
// command before any work starts.
func TestProfileFlags(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	copyDir(t, filepath.Join("testdata", "input"), in)
	db := filepath.Join(tmp, "invx.db")
	cpu, mem := filepath.Join(tmp, "cpu.pprof"), filepath.Join(tmp, "mem.pprof")
	if r := invx(t, false, "--db", db, "run", "--quiet", "--cpuprofile", cpu, "--memprofile", mem, in); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	assertProfile(t, cpu)
	assertProfile(t, mem)
	wcpu, wtrace := filepath.Join(tmp, "work-cpu.pprof"), filepath.Join(tmp, "work.trace")
	if r := invx(t, false, "--db", db, "work", "--quiet", "--cpuprofile", wcpu, "--trace", wtrace); r.code != 0 {
		t.Fatalf("work: exit %d\n%s", r.code, r.stderr)
	}
	assertProfile(t, wcpu)
	assertTrace(t, wtrace)
	rtrace := filepath.Join(tmp, "run.trace")
	if r := invx(t, false, "--db", db, "run", "--quiet", "--trace", rtrace, in); r.code != 0 {
		t.Fatalf("run --trace: exit %d\n%s", r.code, r.stderr)
	}
	assertTrace(t, rtrace)

	db2 := filepath.Join(tmp, "other.db")
	r := invx(t, false, "--db", db2, "run", "--quiet", "--cpuprofile", filepath.Join(tmp, "missing", "cpu.pprof"), in)
	if r.code != 2 || !strings.Contains(r.stderr, "--cpuprofile") {
		t.Fatalf("unwritable profile: exit %d, want 2\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(db2); err == nil {
		t.Errorf("an unwritable profile still opened %s", db2)
	}
	r = invx(t, false, "--db", db2, "run", "--quiet", "--trace", filepath.Join(tmp, "missing", "run.trace"), in)
	if r.code != 2 || !strings.Contains(r.stderr, "--trace") {
		t.Fatalf("unwritable trace: exit %d, want 2\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(db2); err == nil {
		t.Errorf("an unwritable trace still opened %s", db2)
	}
}

// A first run's trace names the store's write transactions by kind, and
// the time SQLite's write lock was held: go tool trace's user-defined
// regions then say where a run bound by its store spent the writer.
//
// Not parallel: the execution tracer is one per process, and
// TestProfileFlags starts it too ("execution tracer already enabled").
func TestTraceNamesStoreWrites(t *testing.T) {
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	copyDir(t, filepath.Join("testdata", "input"), in)
	trace := filepath.Join(tmp, "run.trace")
	if r := invx(t, false, "--db", filepath.Join(tmp, "invx.db"), "run", "--quiet", "--trace", trace, in); r.code != 0 {
		t.Fatalf("run --trace: exit %d\n%s", r.code, r.stderr)
	}
	assertTrace(t, trace)
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, region := range []string{"invx.store.migrate", "invx.store.enqueue", "invx.store.claim", "invx.store.commit_group",
		"invx.sqlite.write_lock_held"} {
		if !bytes.Contains(b, []byte(region)) {
			t.Errorf("the trace of a first run names no %s region", region)
		}
	}
}

// assertTrace checks path is a Go execution trace with events in it: the
// format's header ("go 1.N trace") and more than the header.
func assertTrace(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("go 1.")) || !bytes.Contains(b[:min(len(b), 16)], []byte(" trace")) || len(b) < 1024 {
		t.Errorf("%s is not a Go execution trace (%d bytes, starts %q)", path, len(b), b[:min(len(b), 16)])
	}
}

func assertProfile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("%s is not a gzip-compressed pprof profile (%d bytes)", path, len(b))
	}
}
