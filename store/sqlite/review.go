package sqlite

import (
	"context"
	"database/sql"
)

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
