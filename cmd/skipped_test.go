//go:build unix

package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

// skippedRows reads the open skipped inputs straight from the database
// file: "path reason" per row, sorted.
func skippedRows(t *testing.T, e *opsEnv) []string {
	t.Helper()
	db := sqlitetest.ReadOnly(t, e.store().(*sqlite.Store).Path())
	rows, err := db.Query(`SELECT path, reason FROM skipped_inputs WHERE dismissed_at IS NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p, r string
		if err := rows.Scan(&p, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, p+" "+r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// skippedInReview is what invx review --json lists as skipped files.
func skippedInReview(t *testing.T, e *opsEnv, wantCode int) []string {
	t.Helper()
	var out []string
	for _, it := range reviewList(t, e, wantCode) {
		if it.State == "skipped" {
			if it.JobKey != "" {
				t.Errorf("skipped entry %s has a job key %s", it.SourcePath, it.JobKey)
			}
			out = append(out, it.SourcePath+" "+it.Category)
		}
	}
	sort.Strings(out)
	return out
}

func eqList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
}

// A file skipped for its content, size or type is an invoice that was not
// processed: the run exits 3, invx review lists it (exit 3) until a later
// run processes the path or someone dismisses it. Hidden files, files
// outside --include and empty files are not such skips.
func TestSkippedFilesNeedReview(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	for _, n := range []string{"copy-of-a.txt", "bad.txt", "notes.md", ".hidden.txt", "b.txt"} {
		if err := os.Remove(filepath.Join(e.in, n)); err != nil {
			t.Fatal(err)
		}
	}
	e.write("big.txt", "Big Invoice Ltd\nINVOICE\nInvoice No.: BIG-1\nInvoice date: 2026-03-01\n"+strings.Repeat("Line item ........ EUR 1,00\n", 60)+"Total due: EUR 60,00\n")
	e.write("sub/nul.txt", "Invoice\x00 NUL-0001\n")
	e.write("cp.txt", "Caf\x81 invoice\n") // 0x81 is undefined in Windows-1252
	e.write(".hidden-too.txt", "\x00")     // hidden: never a candidate
	e.write("notes.md", "\x00")            // outside --include
	e.write("empty.txt", "  \n")           // no text: nothing to process
	fifo := filepath.Join(e.in, "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"big.txt oversized", "cp.txt undecodable", "pipe.txt not_regular", "sub/nul.txt binary"}

	r := e.must(cmd.ExitNeedsReview, "run", "--json", "--max-bytes", "1000", e.in)
	var sum struct {
		SkippedForReview int `json:"skipped_for_review"`
		Committed        int `json:"committed"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.SkippedForReview != 4 || sum.Committed != 1 {
		t.Errorf("summary skipped_for_review %d committed %d, want 4 and 1 (a.txt)\n%s", sum.SkippedForReview, sum.Committed, r.stdout)
	}
	eqList(t, "stored skipped inputs", skippedRows(t, e), want)

	// Listed by review, which exits 3 while any is open; the text view
	// says why, with the path.
	eqList(t, "review --json", skippedInReview(t, e, cmd.ExitNeedsReview), want)
	r = e.must(cmd.ExitNeedsReview, "review")
	if !strings.Contains(r.stdout, "-\tskipped\tbig.txt\t-\tskipped (oversized): 1769 bytes, over the 1000 byte limit (--max-bytes)\t") {
		t.Errorf("review table:\n%s", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "4 document(s) need review (rejected 0, failed 0, held 0, skipped 4)") {
		t.Errorf("review stderr %q", r.stderr)
	}
	// show finds a skipped path, though it has no job.
	r = e.must(0, "show", filepath.Join(e.in, "sub", "nul.txt"))
	if !strings.Contains(r.stdout, "reason          binary\n") || !strings.Contains(r.stdout, "source          sub/nul.txt\n") {
		t.Errorf("show of a skipped file:\n%s", r.stdout)
	}

	// A later run that can take the file clears it; the others stay.
	r = e.must(cmd.ExitNeedsReview, "run", "--json", "--max-bytes", "4000", e.in)
	eqList(t, "after a larger --max-bytes", skippedRows(t, e), want[1:])

	// Dismissed by the path the run printed, by the stored path, or by a
	// path relative to the current folder's parent: gone from the list.
	e.must(0, "review", "dismiss", filepath.Join(e.in, "cp.txt"), "--reason", "a test file, not an invoice")
	r = e.must(0, "review", "dismiss", "sub/nul.txt", "--reason", "binary junk")
	if !strings.Contains(r.stderr, "dismissed skipped file sub/nul.txt (binary)") {
		t.Errorf("dismiss stderr %q", r.stderr)
	}
	eqList(t, "after two dismissals", skippedInReview(t, e, cmd.ExitNeedsReview), []string{"pipe.txt not_regular"})
	if r := e.invx(false, "review", "dismiss", "sub/nul.txt", "--reason", "again"); r.code == 0 {
		t.Errorf("dismissing a dismissed file again: exit 0, stderr %q", r.stderr)
	}
	e.must(0, "review", "dismiss", "pipe.txt", "--reason", "a FIFO, not a file")
	eqList(t, "nothing left", skippedInReview(t, e, 0), nil)
	r = e.must(0, "review")
	if r.stderr != "nothing needs review\n" {
		t.Errorf("review stderr %q", r.stderr)
	}
	var reason string
	if err := sqlitetest.ReadOnly(t, e.store().(*sqlite.Store).Path()).QueryRow(`SELECT dismiss_reason FROM skipped_inputs WHERE path = 'cp.txt'`).Scan(&reason); err != nil ||
		reason != "a test file, not an invoice" {
		t.Errorf("stored dismiss reason %q, %v", reason, err)
	}

	// The files are still bad: the next run finds them again and says so.
	r = e.must(cmd.ExitNeedsReview, "run", "--json", "--max-bytes", "4000", e.in)
	eqList(t, "rerun over the same bad files", skippedRows(t, e), want[1:])

	// Fixed at the source: a run processes them and nothing is left.
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	e.write("pipe.txt", "Pipe Works Ltd\nINVOICE\nInvoice No.: PW-1\nInvoice date: 2026-03-01\nTotal due: EUR 3,00\n")
	e.write("sub/nul.txt", "Null Ltd\nINVOICE\nInvoice No.: N-1\nInvoice date: 2026-03-01\nTotal due: EUR 4,00\n")
	e.write("cp.txt", "Caf\xe9 Ltd\nINVOICE\nInvoice No.: C-1\nInvoice date: 2026-03-01\nTotal due: EUR 5,00\n")
	r = e.must(0, "run", "--json", "--max-bytes", "4000", e.in)
	eqList(t, "after the fix", skippedRows(t, e), nil)
	e.must(0, "review")
}

// A run whose input holds no file matching --include warns, naming the
// folder, and exits 3; --allow-empty makes it 0. A folder whose only
// matching files were skipped is not empty.
func TestEmptyInputWarns(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	empty := filepath.Join(e.tmp, "nightly")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args     []string
		wantCode int
		warn     string // the warning line, "" for none
	}{
		{[]string{"run", "--quiet", empty}, cmd.ExitNeedsReview, "no file matching *.txt or *.xml or *.pdf in " + empty},
		{[]string{"run", "--quiet", "--allow-empty", empty}, 0, "no file matching *.txt or *.xml or *.pdf in " + empty},
		{[]string{"run", "--quiet", e.in, empty}, cmd.ExitNeedsReview, "no file matching *.txt or *.xml or *.pdf in " + empty},
		{[]string{"run", "--quiet", "--include", "*.xml", e.in}, cmd.ExitNeedsReview, "no file matching *.xml in " + e.in},
		{[]string{"run", "--quiet", e.in}, 0, ""},
	} {
		r := e.must(tc.wantCode, tc.args...)
		var warns []string
		for _, l := range strings.Split(r.stderr, "\n") {
			if strings.HasPrefix(l, "invx: warning: ") {
				warns = append(warns, strings.TrimPrefix(l, "invx: warning: "))
			}
		}
		want := []string{}
		if tc.warn != "" {
			want = append(want, tc.warn)
		}
		if fmt.Sprint(warns) != fmt.Sprint(want) {
			t.Errorf("%v: warnings %q, want %q", tc.args, warns, want)
		}
	}

	// Every matching file skipped is "needs review", not "empty".
	only := filepath.Join(e.tmp, "junk")
	if err := os.MkdirAll(only, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(only, "x.txt"), []byte("\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.must(cmd.ExitNeedsReview, "run", "--quiet", "--allow-empty", only)
	if strings.Contains(r.stderr, "no file matching") {
		t.Errorf("a folder with a skipped file was called empty: %q", r.stderr)
	}
}

// The default *.txt takes INVOICE_001.TXT: the extension's case does not
// matter.
func TestIncludeIgnoresExtensionCase(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.write("INVOICE_001.TXT", "Upper Case Ltd\nINVOICE\nInvoice No.: UC-1\nInvoice date: 2026-03-01\nTotal due: EUR 9,00\n")
	r := e.must(0, "run", "--json", "--quiet", e.in)
	if !strings.Contains(r.stdout, `"committed":3`) {
		t.Errorf("run: %s", r.stdout)
	}
	if j := e.job("INVOICE_001.TXT"); j.State != "succeeded" {
		t.Errorf("INVOICE_001.TXT: state %s", j.State)
	}
}
