package jobs

import (
	"context"
	"fmt"

	"github.com/invx/invx/store"
)

// Fresh documents: a new path whose text no job has yet, the whole of a
// first run. Their enqueue decides nothing that needs the database (no
// reference to compare, so no held change; no job to report on), so
// consecutive ones are written together, a statement per table for the
// run of them (values.go) rather than three statements each: on a first
// run of 10k documents the per-document statements were about a tenth of
// the CPU.

// freshRows is the input of the jobs insert; the columns the per-document
// insert (insertJob) sets to constants or NULL for a fresh document (state,
// held_reason, prev_job_key) are not in it.
var freshRows = newTable(`ord, tn, jk, tr, sv, dg, sys, sp, run, at, dp, enc, shad, fmt, rte`,
	colInt, colText, colBytes, colText, colText, colBytes, colText, colText, colText, colInt, colText, colText, colBool,
	colText, colText)

var textRows = newTable(`jid, zst`, colInt, colBytes)

var sourceRows = newTable(`tn, sys, pth, dg, jid, at, fs, fm, fc, fi, ro`,
	colText, colText, colText, colBytes, colInt, colInt, colInt, colInt, colInt, colInt, colText)

// fresh reports whether d, not settled by the batch's lookup k, can join a
// run of fresh documents: its path has no reference the lookup found and
// no earlier document of the batch wrote (touched), and neither the lookup
// nor the run so far has a job with its key (a second path of one text
// takes the full path, after the run is written, and finds the first).
func (k *known) fresh(d *store.Document, touched map[sourceRef]bool, run map[string]bool) bool {
	ref := sourceRef{d.SourceSystem, d.Path}
	if d.Unread || touched[ref] || k.sources[ref].digest != "" || run[d.JobKey] {
		return false
	}
	_, exists := k.jobs[d.JobKey]
	return !exists
}

// insertFresh enqueues the fresh documents idx (in order) inside the
// batch's transaction, as enqueueOne would one after another: their jobs
// are inserted queued, in order (so job ids follow it), each inserted job
// gets its text, and each path its reference. A job another writer
// inserted meanwhile (PostgreSQL: the lookup ran before its commit) is
// reported as enqueueOne reports an existing job.
func (c *Core) insertFresh(ctx context.Context, tx Tx, p *store.EnqueueParams, pre packedTexts, idx []int, now int64, out []store.EnqueueResult) error {
	if len(idx) == 0 {
		return nil
	}
	jr := rowArgs{t: freshRows}
	for ord, i := range idx {
		d := &p.Docs[i]
		jr.add(ord, p.Tenant, bin(d.JobKey), p.Transformation, p.SchemaVersion, bin(d.Digest), d.SourceSystem, d.Path, p.RunID,
			now, d.DisplayPath, d.Encoding, p.Shadow, d.Format, d.Route)
	}
	ids := make(map[string]int64, len(idx))
	err := jr.chunks(func(rows int, args []any) error {
		q := c.multi(freshRows, rows, `INSERT INTO jobs (tenant, job_key, transformation, schema_version, source_digest,
				system_id, source_path, state, first_run_id, created_at, updated_at, display_path, source_encoding, shadow,
				source_format, route)
			SELECT v.tn, v.jk, v.tr, v.sv, v.dg, (SELECT id FROM labels WHERE label = v.sys), v.sp, 'queued', v.run, v.at, v.at,
				nullif(v.dp, ''), nullif(v.enc, ''), v.shad, nullif(v.fmt, ''), nullif(v.rte, '')
			FROM v WHERE v.jk IS NOT NULL ORDER BY v.ord
			ON CONFLICT (tenant, job_key) DO NOTHING RETURNING id, job_key`)
		rows2, err := tx.Query(ctx, q, args...)
		return each(rows2, err, func(r Rows) error {
			var id int64
			var key string
			if err := r.Scan(&id, keyOut(&key)); err != nil {
				return err
			}
			ids[key] = id
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("insert jobs: %w", err)
	}
	tr, sr := rowArgs{t: textRows}, rowArgs{t: sourceRows}
	for _, i := range idx {
		d := &p.Docs[i]
		res := store.EnqueueResult{JobKey: d.JobKey}
		if id, ok := ids[d.JobKey]; ok {
			res.JobID, res.Outcome = id, store.EnqueueNew
			tr.add(id, c.text(pre, d))
		} else if err := existingJob(ctx, tx, p, d, now, &res); err != nil {
			return fmt.Errorf("enqueue %s: %w", d.Path, err)
		}
		out[i] = res
		// As recordSource: a held job leaves the reference where it is.
		if res.Outcome != store.EnqueueHeld {
			size, mtime, ctime, inode, opts := statArgs(d.Stat)
			sr.add(p.Tenant, d.SourceSystem, d.Path, bin(d.Digest), res.JobID, now, size, mtime, ctime, inode, opts)
		}
	}
	err = tr.chunks(func(rows int, args []any) error {
		return tx.Defer(ctx, c.multi(textRows, rows, `INSERT INTO job_texts (job_id, zst)
			SELECT v.jid, v.zst FROM v WHERE v.jid IS NOT NULL`), args...)
	})
	if err != nil {
		return fmt.Errorf("insert texts: %w", err)
	}
	// The upsert of recordSource, for a path another writer may have
	// given a reference since the lookup.
	err = sr.chunks(func(rows int, args []any) error {
		return tx.Defer(ctx, c.multi(sourceRows, rows, `INSERT INTO sources (tenant, system_id, path, digest, job_id, updated_at,
				file_size, file_mtime_ns, file_ctime_ns, file_inode, read_opts_id)
			SELECT v.tn, (SELECT id FROM labels WHERE label = v.sys), v.pth, v.dg, v.jid, v.at, v.fs, v.fm, v.fc, v.fi,
				(SELECT id FROM labels WHERE label = v.ro)
			FROM v WHERE v.tn IS NOT NULL
			`+sourcesUpsert), args...)
	})
	if err != nil {
		return fmt.Errorf("record sources: %w", err)
	}
	return nil
}
