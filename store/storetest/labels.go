package storetest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// Labels017 checks that a database written by the schema before migration
// 017 (the source system on every jobs and sources row, the read options
// on every sources row) reads back the same after it: jobs, listed
// results, source references with their stat and skip, and a rerun of the
// unchanged file is still settled without a new job. u.Exec runs on a
// database migrated up to 016 only.
func Labels017(t *testing.T, u Upgrade012) {
	t.Helper()
	ctx := context.Background()
	const opts = "encoding=auto;max_bytes=1048576"
	one := Doc("acme", "one.txt", "Invoice 1, committed before the upgrade\n")
	one.SourceSystem = "fs:/old"
	two := Doc("acme", "two.txt", "Invoice 2, queued before the upgrade\n")
	two.SourceSystem = "fs:/other folder"
	st := store.FileStat{Size: int64(len(one.Text)), MtimeNS: 1_700_000_000_123456789, Inode: 1<<63 + 7, ReadOpts: opts}

	// No explicit ids: PostgreSQL's sequences would not know of them.
	u.Exec(t, `INSERT INTO jobs (tenant, job_key, transformation, schema_version, source_digest, source_system,
			source_path, display_path, source_text, state, created_at, updated_at)
		VALUES ('acme', `+u.Key(one.JobKey)+`, 'invoice-summary', 'invoice-summary-v1', `+u.Key(one.Digest)+`, 'fs:/old',
				'one.txt', '/old/one.txt', `+lit(one.Text)+`, 'succeeded', 1, 1),
			('acme', `+u.Key(two.JobKey)+`, 'invoice-summary', 'invoice-summary-v1', `+u.Key(two.Digest)+`, 'fs:/other folder',
				'two.txt', NULL, `+lit(two.Text)+`, 'queued', 1, 1)`)
	jobID := func(key string) string { return `(SELECT id FROM jobs WHERE job_key = ` + u.Key(key) + `)` }
	u.Exec(t, `INSERT INTO results (tenant, job_key, job_id, schema_version, result, attempt_id, run_id, committed_at)
		VALUES ('acme', `+u.Key(one.JobKey)+`, `+jobID(one.JobKey)+`, 'invoice-summary-v1', `+lit(oldResult)+`, 1, 'r0', 5000)`)
	u.Exec(t, `UPDATE jobs SET result_id = (SELECT id FROM results WHERE job_key = `+u.Key(one.JobKey)+`) WHERE job_key = `+u.Key(one.JobKey))
	u.Exec(t, `INSERT INTO sources (tenant, source_system, path, digest, job_id, updated_at, file_size, file_mtime_ns, file_inode, read_opts)
		VALUES ('acme', 'fs:/old', 'one.txt', `+u.Key(one.Digest)+`, `+jobID(one.JobKey)+`, 1, `+
		itoa(st.Size)+`, `+itoa(st.MtimeNS)+`, `+itoa(int64(st.Inode))+`, `+lit(opts)+`),
			('acme', 'fs:/other folder', 'two.txt', `+u.Key(two.Digest)+`, `+jobID(two.JobKey)+`, 1, NULL, NULL, NULL, NULL)`)
	u.Exec(t, `INSERT INTO skipped_inputs (tenant, source_system, path, reason, first_seen, last_seen)
		VALUES ('acme', 'fs:/old', 'one.txt', 'unreadable', 1, 1)`)

	s := u.Open(t)
	defer s.Close()
	for _, d := range []store.Document{one, two} {
		j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "acme", Ref: d.JobKey})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "source system of "+d.Path, j.SourceSystem, d.SourceSystem)
		eq(t, "source path of "+d.Path, j.SourcePath, d.Path)
		eq(t, "text of "+d.Path, j.SourceText, d.Text)
	}
	listed := 0
	if err := s.ListResults(ctx, &store.ListResultsParams{Tenant: "acme"}, func(r *store.ResultRow) error {
		listed++
		eq(t, "listed source system", r.SourceSystem, one.SourceSystem)
		eq(t, "listed display path", r.DisplayPath, "/old/one.txt")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	eq(t, "listed results", listed, 1)

	known := func(system string, paths ...string) map[string]store.KnownFile {
		t.Helper()
		m, err := s.KnownFiles(ctx, &store.KnownFilesParams{Tenant: "acme", SourceSystem: system, Paths: paths})
		if err != nil {
			t.Fatalf("known files: %v", err)
		}
		return m
	}
	m := known("fs:/old", "one.txt", "two.txt")
	eq(t, "references under fs:/old", len(m), 1)
	eq(t, "digest", m["one.txt"].Digest, one.Digest)
	eq(t, "job key", m["one.txt"].JobKey, one.JobKey)
	eq(t, "skip recorded", m["one.txt"].Skipped, true)
	// Its stat columns are kept (counted below), but a stat recorded before
	// 018 has no status change time, so the stat check reads the file once
	// more rather than trust it.
	if m["one.txt"].Stat != nil {
		t.Errorf("one.txt: stat %+v from before 018, want none (no ctime)", *m["one.txt"].Stat)
	}
	eq(t, "the stat's columns kept", u.Count(t, `SELECT count(*) FROM sources WHERE file_size = `+itoa(st.Size)+
		` AND file_mtime_ns = `+itoa(st.MtimeNS)+` AND file_inode = `+itoa(int64(st.Inode))+` AND file_ctime_ns IS NULL`), int64(1))
	m = known("fs:/other folder", "two.txt")
	eq(t, "digest of two.txt", m["two.txt"].Digest, two.Digest)
	if m["two.txt"].Stat != nil {
		t.Errorf("two.txt: stat %+v, want none", *m["two.txt"].Stat)
	}
	eq(t, "references under an unknown source system", len(known("fs:/never", "one.txt")), 0)

	// The unchanged file read again: settled on the old job, no new one.
	one.Stat = &st
	res, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "acme", RunID: "r1", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", Docs: []store.Document{one}, Now: time.Now()})
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	eq(t, "rerun outcome", res[0].Outcome, store.EnqueueAlreadyCommitted)
	eq(t, "skip cleared", known("fs:/old", "one.txt")["one.txt"].Skipped, false)
	if got := known("fs:/old", "one.txt")["one.txt"].Stat; got == nil || *got != st {
		t.Errorf("one.txt after the rerun: stat %+v, want %+v", got, st)
	}
	for _, c := range []struct {
		what, q string
		want    int64
	}{
		{"jobs", `SELECT count(*) FROM jobs`, 2},
		{"one label per distinct string", `SELECT count(*) FROM labels`, 3},
		{"jobs name their source system by id", `SELECT count(*) FROM jobs j JOIN labels l ON l.id = j.system_id
			WHERE l.label IN ('fs:/old', 'fs:/other folder')`, 2},
		{"sources name the read options by id", `SELECT count(*) FROM sources s JOIN labels l ON l.id = s.read_opts_id
			WHERE l.label = ` + lit(opts), 1},
	} {
		eq(t, c.what, u.Count(t, c.q), c.want)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
