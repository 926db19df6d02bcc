package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/invx/invx/store"
)

// ListJobs implements store.Store.
func (c *Core) ListJobs(ctx context.Context, p *store.ListJobsParams) ([]*store.Job, error) {
	q := `SELECT ` + listColumns + ` FROM jobs WHERE 1 = 1`
	var args []any
	if p.Tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	if len(p.States) > 0 {
		q += ` AND state IN (` + Placeholders(len(p.States)) + `)`
		for _, st := range p.States {
			args = append(args, st)
		}
	}
	if !p.Since.IsZero() {
		q += ` AND updated_at >= ?`
		args = append(args, ms(p.Since))
	}
	q += ` ORDER BY updated_at DESC, id DESC`
	if p.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, p.Limit)
	}
	jobs, err := ScanJobs(c.E.Read().Query(ctx, q, args...))
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return jobs, nil
}

// ReleaseHeld implements store.Store.
func (c *Core) ReleaseHeld(ctx context.Context, p *store.JobActionParams) error {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("release held job %s: %w", p.JobKey, err)
	}
	n, err := c.E.Writer().Exec(ctx, `UPDATE jobs SET state = 'queued', held_reason = NULL, updated_at = ?
		WHERE tenant = ? AND job_key = ? AND state = 'held'`, now, p.Tenant, bin(p.JobKey))
	if err != nil {
		return fmt.Errorf("release held job %s: %w", p.JobKey, err)
	}
	if n == 0 {
		return fmt.Errorf("release job %s: not held: %w", p.JobKey, store.ErrNotFound)
	}
	return nil
}

// Dismiss implements store.Store.
func (c *Core) Dismiss(ctx context.Context, p *store.JobActionParams) error {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("dismiss job %s: %w", p.JobKey, err)
	}
	n, err := c.E.Writer().Exec(ctx, `UPDATE jobs SET state = 'dismissed', dismiss_reason = ?, updated_at = ?
		WHERE tenant = ? AND job_key = ? AND state IN ('rejected', 'failed', 'held')`, c.E.Text(p.Reason), now, p.Tenant, bin(p.JobKey))
	if err != nil {
		return fmt.Errorf("dismiss job %s: %w", p.JobKey, err)
	}
	if n == 0 {
		return fmt.Errorf("dismiss job %s: not rejected, failed or held: %w", p.JobKey, store.ErrNotFound)
	}
	return nil
}

// Requeue implements store.Store. A job whose text was pruned cannot be
// run again, so it is left as it is.
func (c *Core) Requeue(ctx context.Context, p *store.RequeueParams) (int, error) {
	if len(p.Keys) == 0 && len(p.States) == 0 {
		return 0, errors.New("requeue: name job keys or states")
	}
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return 0, fmt.Errorf("requeue jobs: %w", err)
	}
	q := `UPDATE jobs SET state = 'queued', budget_base = attempts, recovery_base = lease_recoveries, next_attempt_at = NULL,
			updated_at = ?
		WHERE tenant = ? AND state IN ('failed', 'rejected') AND ` + hasText + ``
	args := []any{now, p.Tenant}
	if len(p.Keys) > 0 {
		q += ` AND job_key IN (` + Placeholders(len(p.Keys)) + `)`
		for _, k := range p.Keys {
			args = append(args, bin(k))
		}
	} else {
		q += ` AND state IN (` + Placeholders(len(p.States)) + `)`
		for _, st := range p.States {
			args = append(args, st)
		}
	}
	n, err := c.E.Writer().Exec(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("requeue jobs: %w", err)
	}
	return int(n), nil
}

// ListResults implements store.Store.
func (c *Core) ListResults(ctx context.Context, p *store.ListResultsParams, fn func(*store.ResultRow) error) error {
	q := `SELECT r.id, r.tenant, r.job_key, r.job_id, r.schema_version, ` + resultBody + `,
			r.attempt_id, r.run_id, r.shadow, r.committed_at, coalesce(r.superseded_by, 0),
			(SELECT l.label FROM labels l WHERE l.id = j.system_id), j.source_path,
			j.source_digest, coalesce(j.display_path, ''), r.revision
		FROM results r JOIN jobs j ON j.id = r.job_id WHERE 1 = 1`
	var args []any
	if p.Tenant != "" {
		q += ` AND r.tenant = ?`
		args = append(args, p.Tenant)
	}
	if p.SchemaVersion != "" {
		q += ` AND r.schema_version = ?`
		args = append(args, p.SchemaVersion)
	}
	if !p.Since.IsZero() {
		q += ` AND r.committed_at >= ?`
		args = append(args, ms(p.Since))
	}
	if !p.IncludeSuperseded {
		q += ` AND r.superseded_by IS NULL`
	}
	if !p.IncludeShadow {
		q += ` AND NOT r.shadow`
	}
	q += ` ORDER BY r.committed_at, r.id`
	rows, err := c.E.Read().Query(ctx, q, args...)
	var fnErr error
	err = each(rows, err, func(rs Rows) error {
		var r store.ResultRow
		var body resultScan
		var committed *int64
		if err := rs.Scan(append(append([]any{&r.ID, &r.Tenant, keyOut(&r.JobKey), &r.JobID, &r.SchemaVersion}, body.dest()...),
			&r.AttemptID, &r.RunID, &r.Shadow, &committed, &r.SupersededBy, &r.SourceSystem, &r.SourcePath, keyOut(&r.SourceDigest),
			&r.DisplayPath, &r.Revision)...); err != nil {
			return err
		}
		var err error
		if r.JSON, err = body.json(); err != nil {
			return fmt.Errorf("result %d: %w", r.ID, err)
		}
		r.CommittedAt = fromMS(committed)
		fnErr = fn(&r)
		return fnErr
	})
	if fnErr != nil {
		return fnErr // the caller's own error, as it is
	}
	if err != nil {
		return fmt.Errorf("list results: %w", err)
	}
	return nil
}

// Prune implements store.Store: the source text of finished jobs and the
// provider output of their attempts go; jobs, attempts and results stay.
// A job in an unfinished batch keeps both until the batch ends: its item
// may still be collected (and re-asked) under its lease.
func (c *Core) Prune(ctx context.Context, p *store.PruneParams) (*store.PruneResult, error) {
	var r store.PruneResult
	terminal := `state IN ('succeeded', 'rejected', 'failed', 'dismissed') AND updated_at < ?
		AND NOT EXISTS (SELECT 1 FROM batch_items bi JOIN batches b ON b.id = bi.batch_id
			WHERE bi.job_id = jobs.id AND b.state IN ('preparing', 'submitted'))`
	args := []any{ms(p.Before)}
	if p.Tenant != "" {
		terminal += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	err := c.write(ctx, regionPrune, func(tx Tx) error {
		r = store.PruneResult{}
		if err := pruneTextBytes(ctx, tx, terminal, args, &r); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*), CAST(coalesce(sum(octet_length(output)), 0) AS BIGINT) FROM attempts
			WHERE (output IS NOT NULL OR message <> '') AND job_id IN (SELECT id FROM jobs WHERE `+terminal+`)`, args...).
			Scan(&r.Attempts, &r.OutputBytes); err != nil {
			return err
		}
		if p.DryRun {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE attempts SET output = NULL, message = ''
			WHERE (output IS NOT NULL OR message <> '') AND job_id IN (SELECT id FROM jobs WHERE `+terminal+`)`, args...); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM job_texts WHERE job_id IN (SELECT id FROM jobs WHERE `+terminal+`)`, args...); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE jobs SET source_text = NULL, source_zst = NULL WHERE `+hasText+` AND `+terminal, args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	return &r, nil
}

// hasText is true of a job whose source text is still stored: in
// job_texts (since 016), or in a column of the row (before; a prune clears
// them all).
const hasText = `(source_text IS NOT NULL OR source_zst IS NOT NULL OR EXISTS (SELECT 1 FROM job_texts x WHERE x.job_id = jobs.id))`

// pruneTextBytes counts the jobs whose text a prune clears and the bytes of
// that text as it was read (not as stored): older rows by their TEXT
// column, newer ones by their compressed frames' recorded sizes.
func pruneTextBytes(ctx context.Context, tx Tx, terminal string, args []any, r *store.PruneResult) error {
	if err := tx.QueryRow(ctx, `SELECT count(*), CAST(coalesce(sum(octet_length(source_text)), 0) AS BIGINT) FROM jobs
		WHERE `+hasText+` AND `+terminal, args...).Scan(&r.Jobs, &r.TextBytes); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT x.zst FROM job_texts x JOIN jobs ON jobs.id = x.job_id WHERE `+terminal, args...)
	return each(rows, err, func(rs Rows) error {
		var zst []byte
		if err := rs.Scan(&zst); err != nil {
			return err
		}
		n, err := unpackedSize(zst)
		r.TextBytes += n
		return err
	})
}
