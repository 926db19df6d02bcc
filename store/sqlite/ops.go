package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
	"github.com/invx/invx/store/internal/jobs"
)

func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return "?" + strings.Repeat(",?", n-1)
}

// ListJobs implements store.Store.
func (s *Store) ListJobs(ctx context.Context, p *store.ListJobsParams) ([]*store.Job, error) {
	cols := strings.Replace(jobColumns, "coalesce(source_text, '')", "''", 1)
	q := `SELECT ` + cols + ` FROM jobs WHERE 1 = 1`
	var args []any
	if p.Tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	if len(p.States) > 0 {
		q += ` AND state IN (` + placeholders(len(p.States)) + `)`
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
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", interpret(err))
	}
	defer rows.Close()
	var out []*store.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", interpret(err))
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// ReleaseHeld implements store.Store.
func (s *Store) ReleaseHeld(ctx context.Context, p *store.JobActionParams) error {
	res, err := s.w.ExecContext(ctx, `UPDATE jobs SET state = 'queued', held_reason = NULL, updated_at = ?
		WHERE tenant = ? AND job_key = ? AND state = 'held'`, ms(p.Now), p.Tenant, p.JobKey)
	if err != nil {
		return fmt.Errorf("release held job %s: %w", p.JobKey, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("release job %s: not held: %w", p.JobKey, store.ErrNotFound)
	}
	return nil
}

// Dismiss implements store.Store.
func (s *Store) Dismiss(ctx context.Context, p *store.JobActionParams) error {
	res, err := s.w.ExecContext(ctx, `UPDATE jobs SET state = 'dismissed', dismiss_reason = ?, updated_at = ?
		WHERE tenant = ? AND job_key = ? AND state IN ('rejected', 'failed', 'held')`, p.Reason, ms(p.Now), p.Tenant, p.JobKey)
	if err != nil {
		return fmt.Errorf("dismiss job %s: %w", p.JobKey, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("dismiss job %s: not rejected, failed or held: %w", p.JobKey, store.ErrNotFound)
	}
	return nil
}

// Requeue implements store.Store.
func (s *Store) Requeue(ctx context.Context, p *store.RequeueParams) (int, error) {
	q := `UPDATE jobs SET state = 'queued', budget_base = attempts, recovery_base = lease_recoveries, next_attempt_at = NULL,
			updated_at = ?
		WHERE tenant = ? AND state IN ('failed', 'rejected') AND source_text IS NOT NULL`
	args := []any{ms(p.Now), p.Tenant}
	switch {
	case len(p.Keys) > 0:
		q += ` AND job_key IN (` + placeholders(len(p.Keys)) + `)`
		for _, k := range p.Keys {
			args = append(args, k)
		}
	case len(p.States) > 0:
		q += ` AND state IN (` + placeholders(len(p.States)) + `)`
		for _, st := range p.States {
			args = append(args, st)
		}
	default:
		return 0, fmt.Errorf("requeue: name job keys or states")
	}
	res, err := s.w.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("requeue jobs: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ListResults implements store.Store.
func (s *Store) ListResults(ctx context.Context, p *store.ListResultsParams, fn func(*store.ResultRow) error) error {
	q := `SELECT r.id, r.tenant, r.job_key, r.job_id, r.schema_version, coalesce((SELECT v.result FROM result_revisions v WHERE v.tenant = r.tenant AND v.job_key = r.job_key AND v.revision = r.revision), r.result),
			r.attempt_id, r.run_id, r.shadow, r.committed_at, coalesce(r.superseded_by, 0), j.source_system, j.source_path,
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
		q += ` AND r.shadow = 0`
	}
	q += ` ORDER BY r.committed_at, r.id`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("list results: %w", interpret(err))
	}
	defer rows.Close()
	for rows.Next() {
		var r store.ResultRow
		var body string
		var shadow int
		var committed sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Tenant, &r.JobKey, &r.JobID, &r.SchemaVersion, &body, &r.AttemptID, &r.RunID, &shadow,
			&committed, &r.SupersededBy, &r.SourceSystem, &r.SourcePath, &r.SourceDigest, &r.DisplayPath, &r.Revision); err != nil {
			return fmt.Errorf("list results: %w", interpret(err))
		}
		r.JSON, r.Shadow, r.CommittedAt = []byte(body), shadow != 0, fromMS(committed)
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Stats implements store.Store. Each figure is one query, fed row by row to
// a driver.StatsBuilder, which derives the same figures in both drivers.
func (s *Store) Stats(ctx context.Context, p *store.StatsParams) ([]*store.TenantStats, error) {
	q := &statsQuery{db: s.r, since: ms(p.Since), tenant: p.Tenant}
	steps := driver.StatsSteps{Jobs: q.jobs, Attempts: q.attempts, Results: q.commits, Runs: q.runs, Queue: q.queue, Outbox: q.outbox,
		Review: q.review}
	if err := driver.RunStats(ctx, steps); err != nil {
		return nil, err
	}
	return q.b.Build(), nil
}

// statsQuery runs the queries of one Stats call, one method per figure.
type statsQuery struct {
	db     *sql.DB
	since  int64
	tenant string // empty: all tenants
	b      driver.StatsBuilder
}

// window is "col >= since" and the tenant filter on tenantCol, with their
// arguments.
func (q *statsQuery) window(col, tenantCol string) (string, []any) {
	w, a := col+` >= ?`, []any{q.since}
	if q.tenant != "" {
		w, a = w+` AND `+tenantCol+` = ?`, append(a, q.tenant)
	}
	return w, a
}

// tenantOnly is the tenant filter alone, for figures that ignore the window.
func (q *statsQuery) tenantOnly() (string, []any) {
	if q.tenant == "" {
		return "", nil
	}
	return ` AND tenant = ?`, []any{q.tenant}
}

// each runs query and hands each row to scan.
func (q *statsQuery) each(ctx context.Context, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := q.db.QueryContext(ctx, query, args...)
	if err != nil {
		return interpret(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return interpret(err)
		}
	}
	return interpret(rows.Err())
}

// jobs counts jobs touched in the window by state, rejected ones by
// category, and their lease recoveries.
func (q *statsQuery) jobs(ctx context.Context) error {
	w, args := q.window("updated_at", "tenant")
	return q.each(ctx, `SELECT tenant, state, coalesce(nullif(last_category, ''), last_error_class, ''), count(*), sum(lease_recoveries)
		FROM jobs WHERE `+w+` GROUP BY 1, 2, 3`, args, func(r *sql.Rows) error {
		var t, st, cat string
		var n, rec int
		if err := r.Scan(&t, &st, &cat, &n, &rec); err != nil {
			return err
		}
		q.b.AddJobs(t, st, cat, n, rec)
		return nil
	})
}

// attempts counts attempts by outcome, provider and model: tokens,
// rejections, stale leases.
func (q *statsQuery) attempts(ctx context.Context) error {
	w, args := q.window("a.started_at", "a.tenant")
	return q.each(ctx, `SELECT a.tenant, a.outcome, a.provider, a.model, j.schema_version, count(*), sum(a.input_tokens), sum(a.output_tokens)
		FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE `+w+`
		GROUP BY 1, 2, 3, 4, 5`, args, func(r *sql.Rows) error {
		var t, outcome, prov, model, version string
		var n int
		var in, out int64
		if err := r.Scan(&t, &outcome, &prov, &model, &version, &n, &in, &out); err != nil {
			return err
		}
		q.b.AddAttempts(t, outcome, prov, model, version, n, in, out)
		return nil
	})
}

// commits counts commits and their enqueue-to-commit latency.
func (q *statsQuery) commits(ctx context.Context) error {
	w, args := q.window("r.committed_at", "r.tenant")
	return q.each(ctx, `SELECT r.tenant, r.committed_at - j.created_at FROM results r JOIN jobs j ON j.id = r.job_id
		WHERE r.shadow = 0 AND `+w, args, func(r *sql.Rows) error {
		var t string
		var d int64
		if err := r.Scan(&t, &d); err != nil {
			return err
		}
		q.b.AddCommit(t, d)
		return nil
	})
}

// runs sums documents seen and duplicates from the runs' summaries.
func (q *statsQuery) runs(ctx context.Context) error {
	w, args := q.window("started_at", "tenant")
	return q.each(ctx, `SELECT tenant, summary FROM runs WHERE summary IS NOT NULL AND `+w, args, func(r *sql.Rows) error {
		var t, body string
		if err := r.Scan(&t, &body); err != nil {
			return err
		}
		_ = q.b.AddRunSummary(t, []byte(body)) // a summary that is not JSON counts nothing
		return nil
	})
}

// queue finds the oldest queued job, at any time: a stuck queue is what
// this figure is for.
func (q *statsQuery) queue(ctx context.Context) error {
	w, args := q.tenantOnly()
	return q.each(ctx, `SELECT tenant, min(created_at) FROM jobs WHERE state IN ('queued', 'retry_wait')`+w+` GROUP BY tenant`, args,
		func(r *sql.Rows) error {
			var t string
			var at sql.NullInt64
			if err := r.Scan(&t, &at); err != nil {
				return err
			}
			q.b.SetOldestQueued(t, fromMS(at))
			return nil
		})
}

// outbox counts undelivered outbox events, with the oldest pending one.
func (q *statsQuery) outbox(ctx context.Context) error {
	w, args := q.tenantOnly()
	return q.each(ctx, `SELECT tenant, state, count(*), min(created_at) FROM outbox WHERE state IN ('pending', 'failed')`+w+` GROUP BY 1, 2`,
		args, func(r *sql.Rows) error {
			var t, st string
			var n int
			var at sql.NullInt64
			if err := r.Scan(&t, &st, &n, &at); err != nil {
				return err
			}
			q.b.SetOutbox(t, st, n, fromMS(at))
			return nil
		})
}

const outboxColumns = `id, tenant, event_key, job_key, action_id, kind, payload, state, attempts, created_at, delivered_at,
	next_try_at, coalesce(last_error, ''), lease_token`

func scanOutbox(r interface{ Scan(...any) error }) (*store.OutboxEvent, error) {
	var e store.OutboxEvent
	var created, delivered, next sql.NullInt64
	var payload string
	if err := r.Scan(&e.ID, &e.Tenant, &e.EventKey, &e.JobKey, &e.ActionID, &e.Kind, &payload, &e.State, &e.Attempts,
		&created, &delivered, &next, &e.LastError, &e.Token); err != nil {
		return nil, err
	}
	e.Payload = []byte(payload)
	e.CreatedAt, e.DeliveredAt, e.NextTryAt = fromMS(created), fromMS(delivered), fromMS(next)
	return &e, nil
}

// ListOutbox implements store.Store.
func (s *Store) ListOutbox(ctx context.Context, p *store.ListOutboxParams) ([]*store.OutboxEvent, error) {
	q := `SELECT ` + outboxColumns + ` FROM outbox WHERE 1 = 1`
	var args []any
	if p.Tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	if p.JobKey != "" {
		q += ` AND job_key = ?`
		args = append(args, p.JobKey)
	}
	if p.Pending {
		q += ` AND state IN ('pending', 'held', 'failed')`
	}
	q += ` ORDER BY id`
	if p.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, p.Limit)
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list outbox: %w", interpret(err))
	}
	defer rows.Close()
	var out []*store.OutboxEvent
	for rows.Next() {
		e, err := scanOutbox(rows)
		if err != nil {
			return nil, fmt.Errorf("list outbox: %w", interpret(err))
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ClaimOutbox implements store.Store.
func (s *Store) ClaimOutbox(ctx context.Context, p *store.ClaimOutboxParams) ([]*store.OutboxEvent, error) {
	if p.Limit <= 0 {
		return nil, nil
	}
	now := ms(p.Now)
	var out []*store.OutboxEvent
	err := s.tx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		q := `SELECT id FROM outbox WHERE state = 'pending' AND coalesce(next_try_at, 0) <= ? AND coalesce(lease_expires_at, 0) <= ?`
		args := []any{now, now}
		if p.Tenant != "" {
			q += ` AND tenant = ?`
			args = append(args, p.Tenant)
		}
		q += ` ORDER BY id LIMIT ?`
		args = append(args, p.Limit)
		ids, err := queryIDs(ctx, tx, q, args...)
		if err != nil {
			return err
		}
		for _, id := range ids {
			e, err := scanOutbox(tx.QueryRowContext(ctx, `UPDATE outbox SET lease_owner = ?, lease_token = lease_token + 1,
					lease_expires_at = ?, attempts = attempts + 1
				WHERE id = ? RETURNING `+outboxColumns, p.Owner, ms(p.Now.Add(p.LeaseFor)), id))
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, err // the caller names the claim
	}
	return out, nil
}

// FinishOutbox implements store.Store.
func (s *Store) FinishOutbox(ctx context.Context, p *store.FinishOutboxParams) error {
	switch p.State {
	case store.OutboxDelivered, store.OutboxPending, store.OutboxFailed:
	default:
		return fmt.Errorf("finish outbox event %d: bad state %q", p.ID, p.State)
	}
	var delivered sql.NullInt64
	if p.State == store.OutboxDelivered {
		delivered = nullMS(p.Now)
	}
	res, err := s.w.ExecContext(ctx, `UPDATE outbox SET state = ?, next_try_at = ?, last_error = ?, delivered_at = ?,
			lease_owner = NULL, lease_expires_at = NULL
		WHERE id = ? AND lease_token = ? AND state = 'pending'`,
		p.State, nullMS(p.NextTryAt), p.Error, delivered, p.ID, p.Token)
	if err != nil {
		return fmt.Errorf("finish outbox event %d: %w", p.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("finish outbox event %d: %w", p.ID, store.ErrStaleLease)
	}
	return nil
}

// RequeueOutbox implements store.Store.
func (s *Store) RequeueOutbox(ctx context.Context, p *store.RequeueOutboxParams) (int, error) {
	q := `UPDATE outbox SET state = 'pending', attempts = 0, next_try_at = NULL, lease_owner = NULL, lease_expires_at = NULL
		WHERE state = 'failed'`
	var args []any
	if p.Tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	if len(p.EventKeys) > 0 {
		q += ` AND event_key IN (` + placeholders(len(p.EventKeys)) + `)`
		for _, k := range p.EventKeys {
			args = append(args, k)
		}
	}
	res, err := s.w.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("requeue outbox events: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Prune implements store.Store.
func (s *Store) Prune(ctx context.Context, p *store.PruneParams) (*store.PruneResult, error) {
	var r store.PruneResult
	terminal := `state IN ('succeeded', 'rejected', 'failed', 'dismissed') AND updated_at < ?`
	args := []any{ms(p.Before)}
	if p.Tenant != "" {
		terminal += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(CAST(source_text AS BLOB))), 0) FROM jobs
			WHERE source_text IS NOT NULL AND `+terminal, args...).Scan(&r.Jobs, &r.TextBytes); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(output)), 0) FROM attempts
			WHERE (output IS NOT NULL OR message <> '') AND job_id IN (SELECT id FROM jobs WHERE `+terminal+`)`, args...).
			Scan(&r.Attempts, &r.OutputBytes); err != nil {
			return err
		}
		if p.DryRun {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE attempts SET output = NULL, message = ''
			WHERE (output IS NOT NULL OR message <> '') AND job_id IN (SELECT id FROM jobs WHERE `+terminal+`)`, args...); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE jobs SET source_text = NULL WHERE source_text IS NOT NULL AND `+terminal, args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	return &r, nil
}

const jobColumns = jobs.JobColumns

func scanJob(row interface{ Scan(...any) error }) (*store.Job, error) {
	j, err := jobs.ScanJob(row)
	return j, interpret(err)
}

func queryIDs(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func msDuration(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
