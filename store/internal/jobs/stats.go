package jobs

import (
	"context"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// Stats implements store.Store. Each figure is one query, fed row by row to
// a driver.StatsBuilder.
func (c *Core) Stats(ctx context.Context, p *store.StatsParams) ([]*store.TenantStats, error) {
	q := &statsQuery{db: c.E.Read(), since: ms(p.Since), tenant: p.Tenant}
	steps := driver.StatsSteps{Jobs: q.jobs, Attempts: q.attempts, Results: q.commits, Runs: q.runs, Queue: q.queue, Outbox: q.outbox,
		Review: q.review, Batch: q.batch}
	if err := driver.RunStats(ctx, steps); err != nil {
		return nil, err
	}
	return q.b.Build(), nil
}

// statsQuery runs the queries of one Stats call, one method per figure.
type statsQuery struct {
	db     Querier
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

// each runs query, scanning each row into dest before calling fn.
func (q *statsQuery) each(ctx context.Context, query string, args []any, dest []any, fn func()) error {
	rows, err := q.db.Query(ctx, query, args...)
	return each(rows, err, func(r Rows) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		fn()
		return nil
	})
}

// jobs counts jobs touched in the window by state, rejected ones by
// category, and their lease recoveries.
func (q *statsQuery) jobs(ctx context.Context) error {
	w, args := q.window("updated_at", "tenant")
	var t, st, cat string
	var n, rec int
	return q.each(ctx, `SELECT tenant, state, coalesce(nullif(last_category, ''), last_error_class, ''), count(*),
			CAST(sum(lease_recoveries) AS BIGINT)
		FROM jobs WHERE `+w+` GROUP BY 1, 2, 3`, args, []any{&t, &st, &cat, &n, &rec},
		func() { q.b.AddJobs(t, st, cat, n, rec) })
}

// attempts counts attempts by outcome, provider and model: tokens,
// rejections, stale leases.
func (q *statsQuery) attempts(ctx context.Context) error {
	w, args := q.window("a.started_at", "a.tenant")
	var t, outcome, prov, model, version string
	var n int
	var in, out int64
	return q.each(ctx, `SELECT a.tenant, a.outcome, a.provider, a.model, j.schema_version, count(*),
			CAST(sum(a.input_tokens) AS BIGINT), CAST(sum(a.output_tokens) AS BIGINT)
		FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE a.outcome <> '`+store.OutcomeNotStarted+`' AND `+w+`
		GROUP BY 1, 2, 3, 4, 5`, args, []any{&t, &outcome, &prov, &model, &version, &n, &in, &out},
		func() { q.b.AddAttempts(t, outcome, prov, model, version, n, in, out) })
}

// commits counts commits and their enqueue-to-commit latency.
func (q *statsQuery) commits(ctx context.Context) error {
	w, args := q.window("r.committed_at", "r.tenant")
	var t string
	var d int64
	return q.each(ctx, `SELECT r.tenant, r.committed_at - j.created_at FROM results r JOIN jobs j ON j.id = r.job_id
		WHERE NOT r.shadow AND `+w, args, []any{&t, &d}, func() { q.b.AddCommit(t, d) })
}

// runs sums documents seen and duplicates from the runs' JSON summaries,
// one row per run (a run is one invocation: there are few).
func (q *statsQuery) runs(ctx context.Context) error {
	w, args := q.window("started_at", "tenant")
	var t, body string
	return q.each(ctx, `SELECT tenant, summary FROM runs WHERE summary IS NOT NULL AND `+w, args, []any{&t, &body},
		func() { _ = q.b.AddRunSummary(t, []byte(body)) }) // a summary that is not JSON counts nothing
}

// queue finds the oldest queued job, at any time: a stuck queue is what
// this figure is for.
func (q *statsQuery) queue(ctx context.Context) error {
	w, args := q.tenantOnly()
	var t string
	var at *int64
	return q.each(ctx, `SELECT tenant, min(created_at) FROM jobs WHERE state IN ('queued', 'retry_wait')`+w+` GROUP BY tenant`, args,
		[]any{&t, &at}, func() { q.b.SetOldestQueued(t, fromMS(at)) })
}

// outbox counts undelivered outbox events, with the oldest pending one.
func (q *statsQuery) outbox(ctx context.Context) error {
	w, args := q.tenantOnly()
	var t, st string
	var n int
	var at *int64
	return q.each(ctx, `SELECT tenant, state, count(*), min(created_at) FROM outbox WHERE state IN ('pending', 'failed')`+w+` GROUP BY 1, 2`,
		args, []any{&t, &st, &n, &at}, func() { q.b.SetOutbox(t, st, n, fromMS(at)) })
}

// review counts open review reasons by reason, at any time: an open item
// is work waiting, however old.
func (q *statsQuery) review(ctx context.Context) error {
	w, args := q.tenantOnly()
	var t, reason string
	var n int
	return q.each(ctx, `SELECT tenant, reason, count(*) FROM review_reasons WHERE state = 'open'`+w+` GROUP BY 1, 2`, args,
		[]any{&t, &reason, &n}, func() { q.b.AddReviewOpen(t, reason, n) })
}

// batch sums the tokens of batch attempts started in the window, which the
// caller prices at the batch discount.
func (q *statsQuery) batch(ctx context.Context) error {
	w, args := q.window("started_at", "tenant")
	var t, prov, model string
	var in, out int64
	return q.each(ctx, `SELECT tenant, provider, model, CAST(sum(input_tokens) AS BIGINT), CAST(sum(output_tokens) AS BIGINT)
		FROM attempts WHERE batch_id IS NOT NULL AND `+w+` GROUP BY 1, 2, 3`, args, []any{&t, &prov, &model, &in, &out},
		func() { q.b.AddBatchTokens(t, prov, model, in, out) })
}
