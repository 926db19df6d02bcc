package sqlite

import (
	"context"
	"database/sql"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

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

// review counts open review reasons by reason, at any time: an open item
// is work waiting, however old.
func (q *statsQuery) review(ctx context.Context) error {
	w, args := q.tenantOnly()
	return q.each(ctx, `SELECT tenant, reason, count(*) FROM review_reasons WHERE state = 'open'`+w+` GROUP BY 1, 2`, args,
		func(r *sql.Rows) error {
			var t, reason string
			var n int
			if err := r.Scan(&t, &reason, &n); err != nil {
				return err
			}
			q.b.AddReviewOpen(t, reason, n)
			return nil
		})
}
