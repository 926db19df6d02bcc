package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/invx/invx/store"
)

// RecordSkipped implements store.Store.
func (s *Store) RecordSkipped(ctx context.Context, p *store.RecordSkippedParams) error {
	now := ms(p.Now)
	_, err := s.w.ExecContext(ctx, `INSERT INTO skipped_inputs (tenant, source_system, path, reason, detail, size, run_id,
			first_seen, last_seen)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tenant, source_system, path) DO UPDATE SET reason = excluded.reason, detail = excluded.detail,
			size = excluded.size, run_id = excluded.run_id, last_seen = excluded.last_seen,
			dismissed_at = NULL, dismiss_reason = NULL`,
		p.Tenant, p.SourceSystem, p.Path, p.Reason, p.Detail, p.Size, p.RunID, now, now)
	if err != nil {
		return fmt.Errorf("record skipped input %s: %w", p.Path, interpret(err))
	}
	return nil
}

// DismissSkipped implements store.Store.
func (s *Store) DismissSkipped(ctx context.Context, p *store.DismissSkippedParams) error {
	res, err := s.w.ExecContext(ctx, `UPDATE skipped_inputs SET dismissed_at = ?, dismiss_reason = ?
		WHERE tenant = ? AND source_system = ? AND path = ? AND dismissed_at IS NULL`,
		ms(p.Now), p.Reason, p.Tenant, p.SourceSystem, p.Path)
	if err != nil {
		return fmt.Errorf("dismiss skipped input %s: %w", p.Path, interpret(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("dismiss skipped input %s: not open: %w", p.Path, store.ErrNotFound)
	}
	return nil
}

// ListSkipped implements store.Store.
func (s *Store) ListSkipped(ctx context.Context, p *store.ListSkippedParams) ([]store.SkippedInput, error) {
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
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list skipped inputs: %w", interpret(err))
	}
	defer rows.Close()
	var out []store.SkippedInput
	for rows.Next() {
		var in store.SkippedInput
		var first, last sql.NullInt64
		if err := rows.Scan(&in.Tenant, &in.SourceSystem, &in.Path, &in.Reason, &in.Detail, &in.Size, &in.RunID,
			&first, &last); err != nil {
			return nil, fmt.Errorf("list skipped inputs: %w", interpret(err))
		}
		in.FirstSeen, in.LastSeen = fromMS(first), fromMS(last)
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list skipped inputs: %w", interpret(err))
	}
	return out, nil
}
