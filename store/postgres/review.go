package postgres

import "context"

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
