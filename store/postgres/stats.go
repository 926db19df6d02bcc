package postgres

import (
	"context"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

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

// review counts open review reasons by reason, at any time: an open item
// is work waiting, however old.
func (q *statsQuery) review(ctx context.Context) error {
	var a args
	var t, reason string
	var n int
	return q.each(ctx, `SELECT tenant, reason, count(*) FROM review_reasons WHERE state = 'open'`+q.tenantOnly(&a)+` GROUP BY 1, 2`,
		a, []any{&t, &reason, &n}, func() error {
			q.b.AddReviewOpen(t, reason, n)
			return nil
		})
}
