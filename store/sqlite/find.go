package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// FindJobs implements store.Store. Each arm walks one index: (tenant,
// source_path) and (tenant, display_path) for a path, (tenant, job_key)
// and (tenant, display_path) as ranges for a prefix.
func (s *Store) FindJobs(ctx context.Context, p *store.FindJobsParams) ([]*store.Job, error) {
	cols := strings.Replace(jobColumns, "coalesce(source_text, '')", "''", 1)
	limit := driver.FindLimit(p.Limit)
	states := ""
	var stateArgs []any
	if len(p.States) > 0 {
		states = ` AND state IN (` + placeholders(len(p.States)) + `)`
		for _, st := range p.States {
			stateArgs = append(stateArgs, st)
		}
	}
	query := func(q string, args ...any) ([]*store.Job, error) {
		rows, err := s.r.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []*store.Job
		for rows.Next() {
			j, err := scanJob(rows)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, rows.Err()
	}
	if p.Path != "" {
		args := append([]any{p.Tenant, p.Path, p.Path}, stateArgs...)
		jobs, err := query(`SELECT `+cols+` FROM jobs WHERE tenant = ? AND (source_path = ? OR display_path = ?)`+states+`
			ORDER BY id DESC LIMIT ?`, append(args, limit)...)
		if err != nil {
			return nil, fmt.Errorf("find jobs at %s: %w", p.Path, interpret(err))
		}
		return driver.MergeFound(limit, jobs), nil
	}
	end := driver.PrefixEnd(p.Prefix)
	q := `SELECT * FROM (SELECT ` + cols + ` FROM jobs WHERE tenant = ? AND display_path >= ? AND display_path < ?` + states + `
		ORDER BY display_path LIMIT ?)`
	args := append(append([]any{p.Tenant, p.Prefix, end}, stateArgs...), limit)
	if driver.IsHexPrefix(p.Prefix) {
		q = `SELECT * FROM (SELECT ` + cols + ` FROM jobs WHERE tenant = ? AND job_key >= ? AND job_key < ?` + states + `
			ORDER BY job_key LIMIT ?) UNION ALL ` + q
		args = append(append(append([]any{p.Tenant, p.Prefix, end}, stateArgs...), limit), args...)
	}
	jobs, err := query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("find jobs by prefix %q: %w", p.Prefix, interpret(err))
	}
	return driver.MergeFound(limit, jobs), nil
}

// GetResults implements store.Store.
func (s *Store) GetResults(ctx context.Context, p *store.GetResultsParams) (map[int64]*store.Result, error) {
	ids := p.IDs
	out := make(map[int64]*store.Result, len(ids))
	for start := 0; start < len(ids); start += enqueueBatch {
		chunk := ids[start:min(start+enqueueBatch, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := s.r.QueryContext(ctx, `SELECT r.id, r.tenant, r.job_key, r.job_id, r.schema_version, coalesce((SELECT v.result FROM result_revisions v WHERE v.tenant = r.tenant AND v.job_key = r.job_key AND v.revision = r.revision), r.result),
				r.attempt_id, r.run_id, r.shadow, r.committed_at, coalesce(r.superseded_by, 0), r.revision
			FROM results r WHERE r.id IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("get results: %w", interpret(err))
		}
		for rows.Next() {
			var r store.Result
			var body string
			var shadow int
			var committed sql.NullInt64
			if err := rows.Scan(&r.ID, &r.Tenant, &r.JobKey, &r.JobID, &r.SchemaVersion, &body, &r.AttemptID, &r.RunID, &shadow,
				&committed, &r.SupersededBy, &r.Revision); err != nil {
				rows.Close()
				return nil, fmt.Errorf("get results: %w", interpret(err))
			}
			r.JSON, r.Shadow, r.CommittedAt = []byte(body), shadow != 0, fromMS(committed)
			out[r.ID] = &r
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("get results: %w", interpret(err))
		}
	}
	return out, nil
}
