package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/internal/zsttest"
)

// A second run over the same documents makes no provider call and writes
// nothing but its own run row.
func TestRerunIsNoop(t *testing.T) {
	t.Parallel()
	const n = 20
	docs := genInvoices(t, 4, n)
	docs["copy/same-as-inv-00000.txt"] = docs["inv-00000.txt"] // one suppressed duplicate
	dir := writeDocs(t, docs)
	db := dbPath(t)

	first := invx(t, "--db", db, "run", "--json", dir)
	mustExit(t, first, 0)
	s1 := parseSummary(t, first)
	if s1.FilesSeen != n+1 || s1.NewJobs != n || s1.Duplicates != 1 || s1.Committed != n || s1.Final.Succeeded != n {
		t.Fatalf("first run: files %d new %d duplicates %d committed %d final %+v, want %d %d 1 %d %d succeeded",
			s1.FilesSeen, s1.NewJobs, s1.Duplicates, s1.Committed, s1.Final, n+1, n, n, n)
	}
	sql := openDB(t, db)
	checkCommittedOnce(t, sql, n)
	tables := []string{"jobs", "results", "attempts", "outbox", "sources"}
	before := map[string]int{}
	for _, tb := range tables {
		before[tb] = count(t, sql, `SELECT count(*) FROM `+tb)
	}

	second := invx(t, "--db", db, "run", "--json", dir)
	mustExit(t, second, 0)
	s2 := parseSummary(t, second)
	if s2.Committed != 0 || s2.Attempts != 0 || s2.AlreadyCommitted != n || s2.NewJobs != 0 || s2.Resumed != 0 ||
		s2.Duplicates != 1 || s2.Final.Succeeded != n {
		t.Errorf("second run: committed %d attempts %d already committed %d new %d resumed %d duplicates %d final %+v, "+
			"want 0 0 %d 0 0 1 and %d succeeded", s2.Committed, s2.Attempts, s2.AlreadyCommitted, s2.NewJobs, s2.Resumed,
			s2.Duplicates, s2.Final, n, n)
	}
	for _, tb := range tables {
		wantCount(t, sql, before[tb], `SELECT count(*) FROM `+tb)
	}
	checkCommittedOnce(t, sql, n)

	// Both runs are recorded, each with the summary it printed.
	wantCount(t, sql, 2, `SELECT count(*) FROM runs WHERE status = 'completed' AND finished_at IS NOT NULL`)
	var stored string
	if err := sql.QueryRow(`SELECT summary FROM runs WHERE id = ?`, s2.RunID).Scan(&stored); err != nil {
		t.Fatalf("run %s: %v", s2.RunID, err)
	}
	var s2db summary
	if err := json.Unmarshal([]byte(stored), &s2db); err != nil {
		t.Fatalf("stored summary of run %s: %v", s2.RunID, err)
	}
	if s2db.Committed != 0 || s2db.Attempts != 0 || s2db.AlreadyCommitted != n {
		t.Errorf("stored summary of the rerun: committed %d attempts %d already committed %d, want 0 0 %d",
			s2db.Committed, s2db.Attempts, s2db.AlreadyCommitted, n)
	}
}

// stderrLines returns the lines of stderr that mention s.
func stderrLines(r *result, s string) []string {
	var out []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

func TestExitCodesAndErrors(t *testing.T) {
	t.Parallel()

	t.Run("usage errors", func(t *testing.T) {
		t.Parallel()
		dir := writeDocs(t, map[string]string{"a.txt": genInvoice(5, 0).text})
		missing := filepath.Join(t.TempDir(), "no-such-dir")
		for _, tc := range []struct {
			name     string
			args     []string
			want     []string // substrings of the first stderr line
			wantTry  bool
			oneLiner bool
		}{
			{"missing dir", []string{"run", missing}, []string{missing, "no such file or directory"}, true, true},
			{"bad tenant", []string{"--tenant", "Bad Tenant", "run", dir}, []string{"--tenant", `"Bad Tenant"`}, true, true},
			{"no dir", []string{"run"}, []string{"missing DIR"}, true, true},
			{"bad concurrency", []string{"run", "--concurrency", "0", dir}, []string{"--concurrency 0"}, false, true},
			{"bad on-change", []string{"run", "--on-change", "replace", dir}, []string{"--on-change", "replace"}, false, true},
			{"unknown flag", []string{"run", "--no-such-flag", dir}, []string{"no-such-flag"}, true, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				db := dbPath(t)
				r := invx(t, append([]string{"--db", db}, tc.args...)...)
				mustExit(t, r, 2)
				if r.stdout != "" {
					t.Errorf("stdout %q, want nothing", r.stdout)
				}
				lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
				for _, w := range tc.want {
					if !strings.Contains(lines[0], w) {
						t.Errorf("first stderr line %q does not name %q", lines[0], w)
					}
				}
				if tc.wantTry && (len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-1], "Try: ")) {
					t.Errorf("stderr %q does not end with a Try: line", r.stderr)
				}
				if tc.oneLiner && len(lines) > 2 {
					t.Errorf("stderr has %d lines, want the error and at most a Try: line:\n%s", len(lines), r.stderr)
				}
				// A usage error touches nothing: not even an empty database.
				if _, err := os.Stat(db); !os.IsNotExist(err) {
					t.Errorf("usage error created the database file %s (stat: %v)", db, err)
				}
			})
		}
	})

	t.Run("files passed over", func(t *testing.T) {
		t.Parallel()
		// Small enough for --max-bytes 100.
		good := map[string]string{
			"good-1.txt": "Acme Tools Ltd\nInvoice No.: AT-0001\nTotal due: EUR 12,50\n",
			"good-2.txt": "Birch Paper Ltd\nInvoice No.: BP-0002\nPO Number: 4500012345\nTotal due: EUR 1.234,56\n",
		}
		for name, text := range good {
			if len(text) > 100 {
				t.Fatalf("%s is %d bytes, over --max-bytes 100", name, len(text))
			}
		}
		dir := writeDocs(t, good)
		outside := filepath.Join(t.TempDir(), "outside.txt")
		bad := map[string][]byte{
			"cp1252.txt":  []byte("Rechnung M\xfcller GmbH\nTotal due: EUR 5,00 \x81\n"), // 0x81: undefined
			"nul.txt":     []byte("Invoice\x00 NUL-0001\nTotal due: EUR 5,00\n"),
			"big.txt":     []byte("Big Invoice Ltd\nInvoice No.: BIG-1\n" + strings.Repeat("Line item ........ EUR 1,00\n", 5)),
			".hidden.txt": []byte("Hidden Ltd\nInvoice No.: H-1\nTotal due: EUR 3,00\n"),
		}
		for name, b := range bad {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(outside, []byte("Outside Ltd\nInvoice No.: O-1\nTotal due: EUR 4,00\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
			t.Fatal(err)
		}
		reasons := map[string]string{ // file -> what its stderr line must say
			"cp1252.txt":  "not valid windows-1252 (byte 0x81 is undefined) at byte 41",
			"nul.txt":     "NUL byte",
			"big.txt":     "over the 100 byte limit",
			".hidden.txt": "hidden",
			"link.txt":    "not a regular file",
		}
		db := dbPath(t)
		r := invx(t, "--db", db, "run", "--json", "--max-bytes", "100", dir)
		// Four invoices were not processed (undecodable, binary, oversized,
		// a link): the run says so with its exit code.
		mustExit(t, r, 3)
		for name, reason := range reasons {
			lines := stderrLines(r, filepath.Join(dir, name))
			if len(lines) != 1 || !strings.Contains(lines[0], reason) {
				t.Errorf("%s: stderr lines %q, want one naming the reason %q\n%s", name, lines, reason, r)
			}
		}
		s := parseSummary(t, r)
		wantSkipped := map[string]int{"undecodable": 1, "binary": 1, "oversized": 1, "hidden": 1, "not_regular": 1}
		for k, v := range wantSkipped {
			if s.Skipped[k] != v {
				t.Errorf("summary skipped[%s] = %d, want %d (skipped %v)", k, s.Skipped[k], v, s.Skipped)
			}
		}
		// files_seen counts every candidate: taken or skipped for a reason.
		if s.FilesSeen != len(good)+len(wantSkipped) || s.Committed != len(good) || s.Final.Succeeded != len(good) {
			t.Errorf("summary: files %d committed %d final %+v, want %d seen and %d committed", s.FilesSeen, s.Committed, s.Final,
				len(good)+len(wantSkipped), len(good))
		}
		sql := openDB(t, db)
		checkCommittedOnce(t, sql, len(good))
		var paths []string
		rows, err := sql.Query(`SELECT source_path FROM jobs ORDER BY source_path`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if strings.Join(paths, ",") != "good-1.txt,good-2.txt" {
			t.Errorf("jobs for %v, want only the good files", paths)
		}
		for _, text := range zsttest.Texts(t, sql, `SELECT coalesce(source_text, ''), (SELECT x.zst FROM job_texts x WHERE x.job_id = jobs.id) FROM jobs`) {
			if strings.Contains(text, "Outside Ltd") || strings.Contains(text, "Hidden Ltd") {
				t.Errorf("a job holds the text of a file outside the run: %.40q", text)
			}
		}
	})

	t.Run("changed document is held", func(t *testing.T) {
		t.Parallel()
		v1, v2 := genInvoice(6, 0).text, genInvoice(6, 1).text
		dir := writeDocs(t, map[string]string{"a.txt": v1, "b.txt": genInvoice(6, 2).text})
		db := dbPath(t)
		mustExit(t, invx(t, "--db", db, "run", "--quiet", dir), 0)
		sql := openDB(t, db)
		checkCommittedOnce(t, sql, 2)
		var oldKey []byte // as stored: 32 bytes (migration 015)
		if err := sql.QueryRow(`SELECT job_key FROM jobs WHERE source_path = 'a.txt'`).Scan(&oldKey); err != nil {
			t.Fatal(err)
		}
		attempts := count(t, sql, `SELECT count(*) FROM attempts`)
		outbox := count(t, sql, `SELECT count(*) FROM outbox`)

		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(v2), 0o644); err != nil {
			t.Fatal(err)
		}
		r := invx(t, "--db", db, "run", "--json", dir)
		mustExit(t, r, 3)
		s := parseSummary(t, r)
		if s.Final.Held != 1 || s.HeldChanged != 1 || s.Committed != 0 || s.Attempts != 0 || s.AlreadyCommitted != 1 {
			t.Errorf("changed run: held %d held_changed %d committed %d attempts %d already committed %d, want 1 1 0 0 1",
				s.Final.Held, s.HeldChanged, s.Committed, s.Attempts, s.AlreadyCommitted)
		}
		wantCount(t, sql, 2, `SELECT count(*) FROM results`)
		wantCount(t, sql, attempts, `SELECT count(*) FROM attempts`)
		wantCount(t, sql, outbox, `SELECT count(*) FROM outbox`)
		wantCount(t, sql, 1, `SELECT count(*) FROM jobs WHERE state = 'held' AND source_path = 'a.txt'
			AND held_reason = 'identity_conflict' AND prev_job_key = ? AND result_id IS NULL`, oldKey)
		wantCount(t, sql, 1, `SELECT count(*) FROM jobs WHERE job_key = ? AND state = 'succeeded'`, oldKey)
		// The path still points at the committed text until the change is accepted.
		wantCount(t, sql, 1, `SELECT count(*) FROM sources WHERE path = 'a.txt' AND job_id = (SELECT id FROM jobs WHERE job_key = ?)`, oldKey)

		// Asking for the change to be processed commits the held job beside
		// the old one.
		r = invx(t, "--db", db, "run", "--json", "--on-change", "process", dir)
		if r.code != 0 {
			t.Errorf("--on-change process after a hold: want exit 0 and the held job committed, got %s", r)
		}
		s = parseSummary(t, r)
		if s.Committed != 1 || s.Final.Held != 0 || s.Final.Succeeded != 2 {
			t.Errorf("--on-change process: committed %d final %+v, want 1 committed, 2 succeeded, 0 held", s.Committed, s.Final)
		}
		checkCommittedOnce(t, sql, 3)
		wantCount(t, sql, 0, `SELECT count(*) FROM jobs WHERE state = 'held'`)
		wantCount(t, sql, 1, `SELECT count(*) FROM sources WHERE path = 'a.txt' AND job_id <> (SELECT id FROM jobs WHERE job_key = ?)`, oldKey)
	})

	t.Run("changed document processed at once", func(t *testing.T) {
		t.Parallel()
		v1, v2 := genInvoice(8, 0).text, genInvoice(8, 1).text
		dir := writeDocs(t, map[string]string{"a.txt": v1})
		db := dbPath(t)
		mustExit(t, invx(t, "--db", db, "run", "--quiet", dir), 0)
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(v2), 0o644); err != nil {
			t.Fatal(err)
		}
		r := invx(t, "--db", db, "run", "--json", "--on-change", "process", dir)
		mustExit(t, r, 0)
		s := parseSummary(t, r)
		if s.NewJobs != 1 || s.HeldChanged != 0 || s.Committed != 1 || s.Final.Succeeded != 1 || s.Final.Held != 0 {
			t.Errorf("--on-change process: new %d held_changed %d committed %d final %+v, want 1 0 1, 1 succeeded",
				s.NewJobs, s.HeldChanged, s.Committed, s.Final)
		}
		sql := openDB(t, db)
		checkCommittedOnce(t, sql, 2)
		// The path now refers to the new text.
		if got := zsttest.Texts(t, sql, `SELECT coalesce(j.source_text, ''), (SELECT x.zst FROM job_texts x WHERE x.job_id = j.id) FROM sources s JOIN jobs j ON j.id = s.job_id
			WHERE s.path = 'a.txt'`); len(got) != 1 || got[0] != v2 {
			t.Errorf("a.txt refers to %d jobs, want 1 with the new text", len(got))
		}

		// And a plain rerun leaves it alone.
		r = invx(t, "--db", db, "run", "--json", dir)
		mustExit(t, r, 0)
		if s := parseSummary(t, r); s.AlreadyCommitted != 1 || s.Attempts != 0 {
			t.Errorf("rerun: already committed %d attempts %d, want 1 0", s.AlreadyCommitted, s.Attempts)
		}
	})
}

// A file given instead of a directory is the only document taken, under the
// same source reference a walk of its directory would give it.
func TestSingleFileArgument(t *testing.T) {
	t.Parallel()
	docs := genInvoices(t, 7, 3)
	dir := writeDocs(t, docs)
	db := dbPath(t)

	r := invx(t, "--db", db, "run", "--json", filepath.Join(dir, "inv-00001.txt"))
	mustExit(t, r, 0)
	s := parseSummary(t, r)
	if s.FilesSeen != 1 || s.NewJobs != 1 || s.Committed != 1 || s.Final.Succeeded != 1 {
		t.Errorf("single file: files %d new %d committed %d final %+v, want 1 each", s.FilesSeen, s.NewJobs, s.Committed, s.Final)
	}
	sql := openDB(t, db)
	checkCommittedOnce(t, sql, 1)
	var path, text string
	var zst []byte
	if err := sql.QueryRow(`SELECT source_path, coalesce(source_text, ''), (SELECT x.zst FROM job_texts x WHERE x.job_id = jobs.id) FROM jobs`).Scan(&path, &text, &zst); err != nil {
		t.Fatal(err)
	}
	text = zsttest.Unzst(t, zst, text)
	if path != "inv-00001.txt" || text != docs["inv-00001.txt"] {
		t.Errorf("job for %q with %d bytes of text, want inv-00001.txt with its %d bytes", path, len(text), len(docs["inv-00001.txt"]))
	}

	// Walking the directory afterwards finds that file already committed.
	r = invx(t, "--db", db, "run", "--json", dir)
	mustExit(t, r, 0)
	s = parseSummary(t, r)
	if s.FilesSeen != 3 || s.NewJobs != 2 || s.AlreadyCommitted != 1 || s.Committed != 2 {
		t.Errorf("directory after single file: files %d new %d already committed %d committed %d, want 3 2 1 2",
			s.FilesSeen, s.NewJobs, s.AlreadyCommitted, s.Committed)
	}
	checkCommittedOnce(t, sql, 3)
	wantCount(t, sql, 3, `SELECT count(*) FROM sources`)
}
