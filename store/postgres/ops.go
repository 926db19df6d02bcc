package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
	"github.com/invx/invx/store/internal/jobs"
)

// ListJobs implements store.Store.
func (s *Store) ListJobs(ctx context.Context, p *store.ListJobsParams) ([]*store.Job, error) {
	cols := strings.Replace(jobColumns, "coalesce(source_text, '')", "''", 1)
	var a args
	q := `SELECT ` + cols + ` FROM jobs WHERE true`
	if p.Tenant != "" {
		q += ` AND tenant = ` + a.add(p.Tenant)
	}
	if len(p.States) > 0 {
		q += ` AND state = ANY(` + a.add(p.States) + `)`
	}
	if !p.Since.IsZero() {
		q += ` AND updated_at >= ` + a.add(ms(p.Since))
	}
	q += ` ORDER BY updated_at DESC, id DESC`
	if p.Limit > 0 {
		q += ` LIMIT ` + a.add(p.Limit)
	}
	rows, err := s.pool.Query(ctx, q, a...)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", interpret(err))
	}
	jobs, err := scanJobs(rows)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return jobs, nil
}

// ReleaseHeld implements store.Store.
func (s *Store) ReleaseHeld(ctx context.Context, p *store.JobActionParams) error {
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("release held job %s: %w", p.JobKey, err)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET state = 'queued', held_reason = NULL, updated_at = $1
		WHERE tenant = $2 AND job_key = $3 AND state = 'held'`, now, p.Tenant, p.JobKey)
	if err != nil {
		return fmt.Errorf("release held job %s: %w", p.JobKey, interpret(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("release job %s: not held: %w", p.JobKey, store.ErrNotFound)
	}
	return nil
}

// Dismiss implements store.Store.
func (s *Store) Dismiss(ctx context.Context, p *store.JobActionParams) error {
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("dismiss job %s: %w", p.JobKey, err)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET state = 'dismissed', dismiss_reason = $1, updated_at = $2
		WHERE tenant = $3 AND job_key = $4 AND state IN ('rejected', 'failed', 'held')`, text(p.Reason), now, p.Tenant, p.JobKey)
	if err != nil {
		return fmt.Errorf("dismiss job %s: %w", p.JobKey, interpret(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("dismiss job %s: not rejected, failed or held: %w", p.JobKey, store.ErrNotFound)
	}
	return nil
}

// Requeue implements store.Store.
func (s *Store) Requeue(ctx context.Context, p *store.RequeueParams) (int, error) {
	if len(p.Keys) == 0 && len(p.States) == 0 {
		return 0, errors.New("requeue: name job keys or states")
	}
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return 0, fmt.Errorf("requeue jobs: %w", err)
	}
	var a args
	q := `UPDATE jobs SET state = 'queued', budget_base = attempts, recovery_base = lease_recoveries, next_attempt_at = NULL,
			updated_at = ` + a.add(now) + `
		WHERE tenant = ` + a.add(p.Tenant) + ` AND state IN ('failed', 'rejected') AND source_text IS NOT NULL`
	if len(p.Keys) > 0 {
		q += ` AND job_key = ANY(` + a.add(p.Keys) + `)`
	} else {
		q += ` AND state = ANY(` + a.add(p.States) + `)`
	}
	tag, err := s.pool.Exec(ctx, q, a...)
	if err != nil {
		return 0, fmt.Errorf("requeue jobs: %w", interpret(err))
	}
	return int(tag.RowsAffected()), nil
}

// ListResults implements store.Store.
func (s *Store) ListResults(ctx context.Context, p *store.ListResultsParams, fn func(*store.ResultRow) error) error {
	var a args
	q := `SELECT r.id, r.tenant, r.job_key, r.job_id, r.schema_version, coalesce((SELECT v.result FROM result_revisions v WHERE v.tenant = r.tenant AND v.job_key = r.job_key AND v.revision = r.revision), r.result),
			r.attempt_id, r.run_id, r.shadow, r.committed_at, coalesce(r.superseded_by, 0), j.source_system, j.source_path,
			j.source_digest, coalesce(j.display_path, ''), r.revision
		FROM results r JOIN jobs j ON j.id = r.job_id WHERE true`
	if p.Tenant != "" {
		q += ` AND r.tenant = ` + a.add(p.Tenant)
	}
	if p.SchemaVersion != "" {
		q += ` AND r.schema_version = ` + a.add(p.SchemaVersion)
	}
	if !p.Since.IsZero() {
		q += ` AND r.committed_at >= ` + a.add(ms(p.Since))
	}
	if !p.IncludeSuperseded {
		q += ` AND r.superseded_by IS NULL`
	}
	if !p.IncludeShadow {
		q += ` AND NOT r.shadow`
	}
	q += ` ORDER BY r.committed_at, r.id`
	rows, err := s.pool.Query(ctx, q, a...)
	if err != nil {
		return fmt.Errorf("list results: %w", interpret(err))
	}
	defer rows.Close()
	for rows.Next() {
		var r store.ResultRow
		var body string
		var committed *int64
		if err := rows.Scan(&r.ID, &r.Tenant, &r.JobKey, &r.JobID, &r.SchemaVersion, &body, &r.AttemptID, &r.RunID, &r.Shadow,
			&committed, &r.SupersededBy, &r.SourceSystem, &r.SourcePath, &r.SourceDigest, &r.DisplayPath, &r.Revision); err != nil {
			return fmt.Errorf("list results: %w", interpret(err))
		}
		r.JSON, r.CommittedAt = []byte(body), fromMS(committed)
		if err := fn(&r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list results: %w", interpret(err))
	}
	return nil
}

// Stats implements store.Store. Each figure is one query, fed row by row to
// a driver.StatsBuilder, which derives the same figures in both drivers.
func (s *Store) Stats(ctx context.Context, p *store.StatsParams) ([]*store.TenantStats, error) {
	q := &statsQuery{pool: s.pool, since: ms(p.Since), tenant: p.Tenant}
	steps := driver.StatsSteps{Jobs: q.jobs, Attempts: q.attempts, Results: q.commits, Runs: q.runs, Queue: q.queue, Outbox: q.outbox,
		Review: q.review}
	if err := driver.RunStats(ctx, steps); err != nil {
		return nil, err
	}
	return q.b.Build(), nil
}

// statsQuery runs the queries of one Stats call, one method per figure.
type statsQuery struct {
	pool   *pgxpool.Pool
	since  int64
	tenant string // empty: all tenants
	b      driver.StatsBuilder
}

// window is "col >= since" plus the tenant filter on tenantCol.
func (q *statsQuery) window(a *args, col, tenantCol string) string {
	w := col + ` >= ` + a.add(q.since)
	if q.tenant != "" {
		w += ` AND ` + tenantCol + ` = ` + a.add(q.tenant)
	}
	return w
}

// tenantOnly is the tenant filter alone, for figures that ignore the window.
func (q *statsQuery) tenantOnly(a *args) string {
	if q.tenant == "" {
		return ""
	}
	return ` AND tenant = ` + a.add(q.tenant)
}

// each runs query, scanning each row into dest before calling fn.
func (q *statsQuery) each(ctx context.Context, query string, a args, dest []any, fn func() error) error {
	rows, err := q.pool.Query(ctx, query, a...)
	if err != nil {
		return interpret(err)
	}
	_, err = pgx.ForEachRow(rows, dest, fn)
	return interpret(err)
}

// jobs counts jobs touched in the window by state, rejected ones by
// category, and their lease recoveries.
func (q *statsQuery) jobs(ctx context.Context) error {
	var a args
	var t, st, cat string
	var n, rec int
	return q.each(ctx, `SELECT tenant, state, coalesce(nullif(last_category, ''), last_error_class, ''), count(*),
			sum(lease_recoveries)::bigint
		FROM jobs WHERE `+q.window(&a, "updated_at", "tenant")+` GROUP BY 1, 2, 3`, a,
		[]any{&t, &st, &cat, &n, &rec}, func() error {
			q.b.AddJobs(t, st, cat, n, rec)
			return nil
		})
}

// attempts counts attempts by outcome, provider and model: tokens,
// rejections, stale leases.
func (q *statsQuery) attempts(ctx context.Context) error {
	var a args
	var t, outcome, prov, model, version string
	var n int
	var in, out int64
	return q.each(ctx, `SELECT a.tenant, a.outcome, a.provider, a.model, j.schema_version, count(*),
			sum(a.input_tokens)::bigint, sum(a.output_tokens)::bigint
		FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE `+q.window(&a, "a.started_at", "a.tenant")+`
		GROUP BY 1, 2, 3, 4, 5`, a, []any{&t, &outcome, &prov, &model, &version, &n, &in, &out}, func() error {
		q.b.AddAttempts(t, outcome, prov, model, version, n, in, out)
		return nil
	})
}

// commits counts commits and their enqueue-to-commit latency.
func (q *statsQuery) commits(ctx context.Context) error {
	var a args
	var t string
	var d int64
	return q.each(ctx, `SELECT r.tenant, r.committed_at - j.created_at FROM results r JOIN jobs j ON j.id = r.job_id
		WHERE NOT r.shadow AND `+q.window(&a, "r.committed_at", "r.tenant"), a, []any{&t, &d}, func() error {
		q.b.AddCommit(t, d)
		return nil
	})
}

// runs sums documents seen and duplicates from the runs' JSON summaries
// (FinishRun stores only valid JSON, so the cast cannot fail).
func (q *statsQuery) runs(ctx context.Context) error {
	var a args
	var t string
	var seen, dups int64
	return q.each(ctx, `SELECT tenant,
			coalesce(sum((summary::jsonb ->> 'files_seen')::numeric), 0)::bigint,
			coalesce(sum((summary::jsonb ->> 'duplicates_suppressed')::numeric), 0)::bigint
		FROM runs WHERE summary IS NOT NULL AND `+q.window(&a, "started_at", "tenant")+` GROUP BY tenant`, a,
		[]any{&t, &seen, &dups}, func() error {
			q.b.AddRuns(t, int(seen), int(dups))
			return nil
		})
}

// queue finds the oldest queued job, at any time: a stuck queue is what
// this figure is for.
func (q *statsQuery) queue(ctx context.Context) error {
	var a args
	var t string
	var at *int64
	return q.each(ctx, `SELECT tenant, min(created_at) FROM jobs WHERE state IN ('queued', 'retry_wait')`+q.tenantOnly(&a)+
		` GROUP BY tenant`, a, []any{&t, &at}, func() error {
		q.b.SetOldestQueued(t, fromMS(at))
		return nil
	})
}

// outbox counts undelivered outbox events, with the oldest pending one.
func (q *statsQuery) outbox(ctx context.Context) error {
	var a args
	var t, st string
	var n int
	var at *int64
	return q.each(ctx, `SELECT tenant, state, count(*), min(created_at) FROM outbox WHERE state IN ('pending', 'failed')`+
		q.tenantOnly(&a)+` GROUP BY 1, 2`, a, []any{&t, &st, &n, &at}, func() error {
		q.b.SetOutbox(t, st, n, fromMS(at))
		return nil
	})
}

const outboxColumns = `id, tenant, event_key, job_key, action_id, kind, payload, state, attempts, created_at, delivered_at,
	next_try_at, coalesce(last_error, ''), lease_token`

func scanOutbox(r pgx.Row) (*store.OutboxEvent, error) {
	var e store.OutboxEvent
	var created, delivered, next *int64
	var payload string
	if err := r.Scan(&e.ID, &e.Tenant, &e.EventKey, &e.JobKey, &e.ActionID, &e.Kind, &payload, &e.State, &e.Attempts,
		&created, &delivered, &next, &e.LastError, &e.Token); err != nil {
		return nil, interpret(err)
	}
	e.Payload = []byte(payload)
	e.CreatedAt, e.DeliveredAt, e.NextTryAt = fromMS(created), fromMS(delivered), fromMS(next)
	return &e, nil
}

func scanOutboxRows(rows pgx.Rows) ([]*store.OutboxEvent, error) {
	defer rows.Close()
	var out []*store.OutboxEvent
	for rows.Next() {
		e, err := scanOutbox(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, interpret(rows.Err())
}

// ListOutbox implements store.Store.
func (s *Store) ListOutbox(ctx context.Context, p *store.ListOutboxParams) ([]*store.OutboxEvent, error) {
	var a args
	q := `SELECT ` + outboxColumns + ` FROM outbox WHERE true`
	if p.Tenant != "" {
		q += ` AND tenant = ` + a.add(p.Tenant)
	}
	if p.JobKey != "" {
		q += ` AND job_key = ` + a.add(p.JobKey)
	}
	if p.Pending {
		q += ` AND state IN ('pending', 'held', 'failed')`
	}
	q += ` ORDER BY id`
	if p.Limit > 0 {
		q += ` LIMIT ` + a.add(p.Limit)
	}
	rows, err := s.pool.Query(ctx, q, a...)
	if err != nil {
		return nil, fmt.Errorf("list outbox: %w", interpret(err))
	}
	out, err := scanOutboxRows(rows)
	if err != nil {
		return nil, fmt.Errorf("list outbox: %w", err)
	}
	return out, nil
}

// ClaimOutbox implements store.Store. Like job claims, events are taken
// with FOR UPDATE SKIP LOCKED, so concurrent deliverers never take one
// event twice.
func (s *Store) ClaimOutbox(ctx context.Context, p *store.ClaimOutboxParams) ([]*store.OutboxEvent, error) {
	if p.Limit <= 0 {
		return nil, nil
	}
	nowT, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return nil, err // the caller names the claim
	}
	var out []*store.OutboxEvent
	err = s.tx(ctx, func(tx pgx.Tx) error {
		out = out[:0]
		var a args
		n := a.add(now)
		q := `SELECT id FROM outbox WHERE state = 'pending' AND coalesce(next_try_at, 0) <= ` + n +
			` AND coalesce(lease_expires_at, 0) <= ` + n
		if p.Tenant != "" {
			q += ` AND tenant = ` + a.add(p.Tenant)
		}
		q += ` ORDER BY id LIMIT ` + a.add(p.Limit) + ` FOR UPDATE SKIP LOCKED`
		rows, err := tx.Query(ctx, q, a...)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil || len(ids) == 0 {
			return err
		}
		rows, err = tx.Query(ctx, `UPDATE outbox SET lease_owner = $1, lease_token = lease_token + 1,
				lease_expires_at = $2, attempts = attempts + 1
			WHERE id = ANY($3) RETURNING `+outboxColumns, p.Owner, ms(nowT.Add(p.LeaseFor)), ids)
		if err != nil {
			return err
		}
		if out, err = scanOutboxRows(rows); err != nil {
			return err
		}
		// RETURNING has no order: give them back oldest first.
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
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
	var delivered *int64
	next := p.NextTryAt
	if p.State == store.OutboxDelivered || !next.IsZero() {
		nowT, now, err := s.clock(ctx, p.Now)
		if err != nil {
			return fmt.Errorf("finish outbox event %d: %w", p.ID, err)
		}
		next = later(next, p.Now, nowT)
		if p.State == store.OutboxDelivered {
			delivered = &now
		}
	}
	tag, err := s.pool.Exec(ctx, `UPDATE outbox SET state = $1, next_try_at = $2, last_error = $3, delivered_at = $4,
			lease_owner = NULL, lease_expires_at = NULL
		WHERE id = $5 AND lease_token = $6 AND state = 'pending'`,
		p.State, nullMS(next), text(p.Error), delivered, p.ID, p.Token)
	if err != nil {
		return fmt.Errorf("finish outbox event %d: %w", p.ID, interpret(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("finish outbox event %d: %w", p.ID, store.ErrStaleLease)
	}
	return nil
}

// RequeueOutbox implements store.Store.
func (s *Store) RequeueOutbox(ctx context.Context, p *store.RequeueOutboxParams) (int, error) {
	var a args
	q := `UPDATE outbox SET state = 'pending', attempts = 0, next_try_at = NULL, lease_owner = NULL, lease_expires_at = NULL
		WHERE state = 'failed'`
	if p.Tenant != "" {
		q += ` AND tenant = ` + a.add(p.Tenant)
	}
	if len(p.EventKeys) > 0 {
		q += ` AND event_key = ANY(` + a.add(p.EventKeys) + `)`
	}
	tag, err := s.pool.Exec(ctx, q, a...)
	if err != nil {
		return 0, fmt.Errorf("requeue outbox events: %w", interpret(err))
	}
	return int(tag.RowsAffected()), nil
}

// Prune implements store.Store.
func (s *Store) Prune(ctx context.Context, p *store.PruneParams) (*store.PruneResult, error) {
	var r store.PruneResult
	terminal := `state IN ('succeeded', 'rejected', 'failed', 'dismissed') AND updated_at < $1`
	a := args{ms(p.Before)}
	if p.Tenant != "" {
		terminal += ` AND tenant = ` + a.add(p.Tenant)
	}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(octet_length(source_text)), 0)::bigint FROM jobs
			WHERE source_text IS NOT NULL AND `+terminal, a...).Scan(&r.Jobs, &r.TextBytes); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(octet_length(output)), 0)::bigint FROM attempts
			WHERE (output IS NOT NULL OR message <> '') AND job_id IN (SELECT id FROM jobs WHERE `+terminal+`)`, a...).
			Scan(&r.Attempts, &r.OutputBytes); err != nil {
			return err
		}
		if p.DryRun {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE attempts SET output = NULL, message = ''
			WHERE (output IS NOT NULL OR message <> '') AND job_id IN (SELECT id FROM jobs WHERE `+terminal+`)`, a...); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE jobs SET source_text = NULL WHERE source_text IS NOT NULL AND `+terminal, a...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	return &r, nil
}

const jobColumns = jobs.JobColumns

func scanJobs(r pgx.Rows) ([]*store.Job, error) {
	return jobs.ScanJobs(rows{r}, nil)
}
