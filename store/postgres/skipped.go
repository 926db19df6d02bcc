package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/invx/invx/store"
)

// RecordSkipped implements store.Store.
func (s *Store) RecordSkipped(ctx context.Context, p *store.RecordSkippedParams) error {
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("record skipped input %s: %w", p.Path, err)
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO skipped_inputs (tenant, source_system, path, reason, detail, size, run_id,
			first_seen, last_seen)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
		ON CONFLICT (tenant, source_system, path) DO UPDATE SET reason = EXCLUDED.reason, detail = EXCLUDED.detail,
			size = EXCLUDED.size, run_id = EXCLUDED.run_id, last_seen = EXCLUDED.last_seen,
			dismissed_at = NULL, dismiss_reason = NULL`,
		p.Tenant, text(p.SourceSystem), text(p.Path), text(p.Reason), text(p.Detail), p.Size, p.RunID, now)
	if err != nil {
		return fmt.Errorf("record skipped input %s: %w", p.Path, interpret(err))
	}
	return nil
}

// DismissSkipped implements store.Store.
func (s *Store) DismissSkipped(ctx context.Context, p *store.DismissSkippedParams) error {
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("dismiss skipped input %s: %w", p.Path, err)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE skipped_inputs SET dismissed_at = $1, dismiss_reason = $2
		WHERE tenant = $3 AND source_system = $4 AND path = $5 AND dismissed_at IS NULL`,
		now, text(p.Reason), p.Tenant, text(p.SourceSystem), text(p.Path))
	if err != nil {
		return fmt.Errorf("dismiss skipped input %s: %w", p.Path, interpret(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("dismiss skipped input %s: not open: %w", p.Path, store.ErrNotFound)
	}
	return nil
}

// ListSkipped implements store.Store.
func (s *Store) ListSkipped(ctx context.Context, p *store.ListSkippedParams) ([]store.SkippedInput, error) {
	var a args
	q := `SELECT tenant, source_system, path, reason, detail, size, run_id, first_seen, last_seen
		FROM skipped_inputs WHERE dismissed_at IS NULL`
	if !p.AllTenants {
		q += ` AND tenant = ` + a.add(p.Tenant)
	}
	q += ` ORDER BY first_seen, tenant, source_system, path`
	if p.Limit > 0 {
		q += ` LIMIT ` + a.add(p.Limit)
	}
	rows, err := s.pool.Query(ctx, q, a...)
	if err != nil {
		return nil, fmt.Errorf("list skipped inputs: %w", interpret(err))
	}
	var out []store.SkippedInput
	var in store.SkippedInput
	var first, last *int64
	_, err = pgx.ForEachRow(rows, []any{&in.Tenant, &in.SourceSystem, &in.Path, &in.Reason, &in.Detail, &in.Size, &in.RunID,
		&first, &last}, func() error {
		in.FirstSeen, in.LastSeen = fromMS(first), fromMS(last)
		out = append(out, in)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list skipped inputs: %w", interpret(err))
	}
	return out, nil
}
