package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// FindJobs implements store.Store. Each arm walks one index: (tenant,
// source_path) and (tenant, display_path) for a path, (tenant, job_key)
// and (tenant, display_path) as ranges for a prefix (both columns are
// COLLATE "C", so a range is a bytewise prefix).
func (s *Store) FindJobs(ctx context.Context, p *store.FindJobsParams) ([]*store.Job, error) {
	cols := strings.Replace(jobColumns, "coalesce(source_text, '')", "''", 1)
	limit := driver.FindLimit(p.Limit)
	var a args
	states := func() string {
		if len(p.States) == 0 {
			return ""
		}
		ph := make([]string, len(p.States))
		for i, st := range p.States {
			ph[i] = a.add(st)
		}
		return ` AND state IN (` + strings.Join(ph, ", ") + `)`
	}
	if p.Path != "" {
		q := `SELECT ` + cols + ` FROM jobs WHERE tenant = ` + a.add(p.Tenant) + ` AND (source_path = ` + a.add(p.Path) +
			` OR display_path = ` + a.add(p.Path) + `)` + states() + ` ORDER BY id DESC LIMIT ` + a.add(limit)
		rows, err := s.pool.Query(ctx, q, a...)
		if err != nil {
			return nil, fmt.Errorf("find jobs at %s: %w", p.Path, interpret(err))
		}
		jobs, err := scanJobs(rows)
		if err != nil {
			return nil, fmt.Errorf("find jobs at %s: %w", p.Path, err)
		}
		return driver.MergeFound(limit, jobs), nil
	}
	end := driver.PrefixEnd(p.Prefix)
	var q string
	if driver.IsHexPrefix(p.Prefix) {
		q = `(SELECT ` + cols + ` FROM jobs WHERE tenant = ` + a.add(p.Tenant) + ` AND job_key >= ` + a.add(p.Prefix) +
			` AND job_key < ` + a.add(end) + states() + ` ORDER BY job_key LIMIT ` + a.add(limit) + `) UNION ALL `
	}
	q += `(SELECT ` + cols + ` FROM jobs WHERE tenant = ` + a.add(p.Tenant) + ` AND display_path >= ` + a.add(p.Prefix) +
		` AND display_path < ` + a.add(end) + states() + ` ORDER BY display_path LIMIT ` + a.add(limit) + `)`
	rows, err := s.pool.Query(ctx, q, a...)
	if err != nil {
		return nil, fmt.Errorf("find jobs by prefix %q: %w", p.Prefix, interpret(err))
	}
	jobs, err := scanJobs(rows)
	if err != nil {
		return nil, fmt.Errorf("find jobs by prefix %q: %w", p.Prefix, err)
	}
	return driver.MergeFound(limit, jobs), nil
}

// GetResults implements store.Store.
func (s *Store) GetResults(ctx context.Context, p *store.GetResultsParams) (map[int64]*store.Result, error) {
	ids := p.IDs
	out := make(map[int64]*store.Result, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT r.id, r.tenant, r.job_key, r.job_id, r.schema_version, coalesce((SELECT v.result FROM result_revisions v WHERE v.tenant = r.tenant AND v.job_key = r.job_key AND v.revision = r.revision), r.result),
			r.attempt_id, r.run_id, r.shadow, r.committed_at, coalesce(r.superseded_by, 0), r.revision
		FROM results r WHERE r.id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("get results: %w", interpret(err))
	}
	var r store.Result
	var body string
	var committed *int64
	_, err = pgx.ForEachRow(rows, []any{&r.ID, &r.Tenant, &r.JobKey, &r.JobID, &r.SchemaVersion, &body, &r.AttemptID, &r.RunID,
		&r.Shadow, &committed, &r.SupersededBy, &r.Revision}, func() error {
		c := r
		c.JSON, c.CommittedAt = []byte(body), fromMS(committed)
		out[c.ID] = &c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("get results: %w", interpret(err))
	}
	return out, nil
}
