package jobs

import (
	"context"
	"fmt"

	"github.com/invx/invx/store"
)

// RecordSkipped implements store.Store.
func (c *Core) RecordSkipped(ctx context.Context, p *store.RecordSkippedParams) error {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("record skipped input %s: %w", p.Path, err)
	}
	t := c.E.Text
	_, err = c.E.Writer().Exec(ctx, `INSERT INTO skipped_inputs (tenant, source_system, path, reason, detail, size, run_id,
			first_seen, last_seen)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tenant, source_system, path) DO UPDATE SET reason = excluded.reason, detail = excluded.detail,
			size = excluded.size, run_id = excluded.run_id, last_seen = excluded.last_seen,
			dismissed_at = NULL, dismiss_reason = NULL`,
		p.Tenant, t(p.SourceSystem), t(p.Path), t(p.Reason), t(p.Detail), p.Size, p.RunID, now, now)
	if err != nil {
		return fmt.Errorf("record skipped input %s: %w", p.Path, err)
	}
	return nil
}

// DismissSkipped implements store.Store.
func (c *Core) DismissSkipped(ctx context.Context, p *store.DismissSkippedParams) error {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("dismiss skipped input %s: %w", p.Path, err)
	}
	t := c.E.Text
	n, err := c.E.Writer().Exec(ctx, `UPDATE skipped_inputs SET dismissed_at = ?, dismiss_reason = ?
		WHERE tenant = ? AND source_system = ? AND path = ? AND dismissed_at IS NULL`,
		now, t(p.Reason), p.Tenant, t(p.SourceSystem), t(p.Path))
	if err != nil {
		return fmt.Errorf("dismiss skipped input %s: %w", p.Path, err)
	}
	if n == 0 {
		return fmt.Errorf("dismiss skipped input %s: not open: %w", p.Path, store.ErrNotFound)
	}
	return nil
}

// ListSkipped implements store.Store.
func (c *Core) ListSkipped(ctx context.Context, p *store.ListSkippedParams) ([]store.SkippedInput, error) {
	q := `SELECT tenant, source_system, path, reason, detail, size, run_id, first_seen, last_seen
		FROM skipped_inputs WHERE dismissed_at IS NULL`
	var args []any
	if !p.AllTenants {
		q += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	q += ` ORDER BY first_seen, tenant, source_system, path`
	if p.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, p.Limit)
	}
	rows, err := c.E.Read().Query(ctx, q, args...)
	var out []store.SkippedInput
	err = each(rows, err, func(r Rows) error {
		var in store.SkippedInput
		var first, last *int64
		if err := r.Scan(&in.Tenant, &in.SourceSystem, &in.Path, &in.Reason, &in.Detail, &in.Size, &in.RunID,
			&first, &last); err != nil {
			return err
		}
		in.FirstSeen, in.LastSeen = fromMS(first), fromMS(last)
		out = append(out, in)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list skipped inputs: %w", err)
	}
	return out, nil
}
