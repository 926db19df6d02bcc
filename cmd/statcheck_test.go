package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runCounts are the enqueue counts of invx run --json that the stat check
// must keep.
type runCounts struct {
	FilesSeen        int            `json:"files_seen"`
	Skipped          map[string]int `json:"skipped"`
	NewJobs          int            `json:"new_jobs"`
	Duplicates       int            `json:"duplicates_suppressed"`
	AlreadyCommitted int            `json:"already_committed"`
	StillNeedsReview int            `json:"still_needs_review"`
	HeldChanged      int            `json:"held_changed"`
	Attempts         int            `json:"attempts"`
}

func runJSON(t *testing.T, e *opsEnv, want int, args ...string) runCounts {
	t.Helper()
	r := e.must(want, append([]string{"run", "--json", "--quiet"}, args...)...)
	var c runCounts
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("run --json: %v\n%s", err, r.stdout)
	}
	return c
}

// ageFiles sets every file's modification time an hour back: a file
// modified moments before it is read gets no stat (the racy window).
func ageFiles(t *testing.T, dir string) time.Time {
	t.Helper()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	return old
}

// The stat check: a rerun does not read a file whose size, modification
// time and inode are those recorded when it was read, and reports it as
// the rerun that reads it would. The proof that it was not read: its bytes
// were replaced, in place and with its times kept, by bytes that are not
// text at all. --rehash reads it and sees them; a file whose time moved is
// read without being asked.
func TestStatCheckSkipsUnchangedFiles(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	old := ageFiles(t, e.in)
	first := runJSON(t, e, 0, e.in)
	reading := runJSON(t, e, 0, "--rehash", e.in)
	if first.NewJobs == 0 || reading.AlreadyCommitted == 0 || reading.Attempts != 0 {
		t.Fatalf("setup: first %+v, rerun %+v", first, reading)
	}

	// a.txt becomes binary of the same size, in place, times kept: only
	// its status change time says so.
	a := filepath.Join(e.in, "a.txt")
	st, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(a, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, st.Size())); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(a, old, old); err != nil {
		t.Fatal(err)
	}

	rewritten := runJSON(t, e, 3, e.in)
	if rewritten.Skipped["binary"] != 1 || rewritten.AlreadyCommitted != reading.AlreadyCommitted-1 {
		t.Errorf("the stat rerun did not read a.txt, rewritten with its size and times kept: %+v", rewritten)
	}
	rehash := runJSON(t, e, 3, "--rehash", e.in)
	if diff := cmp.Diff(rewritten, rehash); diff != "" {
		t.Errorf("--rehash reports otherwise than the stat rerun (-want +got):\n%s", diff)
	}
	// A file whose time moved is read again without --rehash.
	if err := os.Chtimes(a, old, old.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if moved := runJSON(t, e, 3, e.in); moved.Skipped["binary"] != 1 {
		t.Errorf("a.txt with a new time was not read: %+v", moved)
	}
}
