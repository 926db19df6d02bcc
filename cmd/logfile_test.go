package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/cmd"
)

// A --log-file that cannot be written (a full disk: /dev/full) does not
// stop the commits, but the run says so once on stderr and exits 1, as a
// failed --metrics-file does.
func TestLogFileWriteFailure(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	tests := []struct {
		name    string
		global  []string
		runArgs []string
	}{
		{"text", []string{"--log-format", "text"}, nil},
		{"json", []string{"--log-format", "json"}, nil},
		{"json summary", []string{"--log-format", "json"}, []string{"--json", "--quiet"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			in := cleanInput(t, tmp)
			db := filepath.Join(tmp, "invx.db")
			args := append([]string{"--db", db, "--log-level", "debug", "--log-file", "/dev/full"}, tt.global...)
			args = append(append(append(args, "run"), tt.runArgs...), in)
			r := invx(t, false, args...)
			if r.code != cmd.ExitError {
				t.Errorf("exit %d, want %d\n%s", r.code, cmd.ExitError, r.stderr)
			}
			var about []string
			for _, line := range strings.Split(r.stderr, "\n") {
				if strings.Contains(line, "/dev/full") || strings.Contains(line, "log file") {
					about = append(about, line)
				}
			}
			if len(about) != 1 || !strings.Contains(about[0], "/dev/full") || !strings.Contains(about[0], "no space left on device") {
				t.Errorf("stderr lines about the log file = %q, want one naming /dev/full and the error\n%s", about, r.stderr)
			}
			// Every document was committed all the same.
			if n := queryInt(t, openSQLite(t, db), `SELECT count(*) FROM results`); n != 2 {
				t.Errorf("results = %d, want 2", n)
			}
			if n := queryInt(t, openSQLite(t, db), `SELECT count(*) FROM jobs WHERE state != 'succeeded'`); n != 0 {
				t.Errorf("%d jobs not succeeded", n)
			}
		})
	}
}

// A log file that takes every line leaves the exit code alone.
func TestLogFileWritten(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := cleanInput(t, tmp)
	logPath := filepath.Join(tmp, "invx.log")
	r := invx(t, false, "--db", filepath.Join(tmp, "invx.db"), "--log-level", "debug", "--log-file", logPath, "run", in)
	if r.code != 0 || strings.Contains(r.stderr, "log file") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(logPath); err != nil || !strings.Contains(string(b), "committed") {
		t.Errorf("log file: %v\n%s", err, b)
	}
}

// cleanInput copies the two invoices of testdata/input that a run commits,
// without the files it skips or suppresses, into tmp/in.
func cleanInput(t *testing.T, tmp string) string {
	t.Helper()
	in := filepath.Join(tmp, "in")
	copyDir(t, filepath.Join("testdata", "input"), in)
	entries, err := os.ReadDir(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "a.txt" && e.Name() != "b.txt" {
			if err := os.RemoveAll(filepath.Join(in, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	return in
}
