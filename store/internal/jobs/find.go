package jobs

import (
	"context"
	"fmt"
	"strings"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// listColumns are JobColumns without the source text, for listings.
var listColumns = strings.Replace(JobColumns, "coalesce(source_text, ''), (SELECT x.zst FROM job_texts x WHERE x.job_id = jobs.id)", "'', NULL", 1)

// FindJobs implements store.Store. Each arm walks one index: (tenant,
// source_path) and (tenant, display_path) for a path, (tenant, job_key)
// and (tenant, display_path) as ranges for a prefix (both engines compare
// these columns bytewise, so a range is a prefix).
func (c *Core) FindJobs(ctx context.Context, p *store.FindJobsParams) ([]*store.Job, error) {
	limit := driver.FindLimit(p.Limit)
	states := ""
	var stateArgs []any
	if len(p.States) > 0 {
		states = ` AND state IN (` + Placeholders(len(p.States)) + `)`
		for _, st := range p.States {
			stateArgs = append(stateArgs, st)
		}
	}
	if p.Path != "" {
		args := append(append(append([]any{p.Tenant, p.Path}, stateArgs...), p.Tenant, p.Path), stateArgs...)
		jobs, err := ScanJobs(c.E.Read().Query(ctx, FindAtPathQuery(states), append(args, limit)...))
		if err != nil {
			return nil, fmt.Errorf("find jobs at %s: %w", p.Path, err)
		}
		return driver.MergeFound(limit, jobs), nil
	}
	end := driver.PrefixEnd(p.Prefix)
	q := `SELECT * FROM (SELECT ` + listColumns + ` FROM jobs WHERE tenant = ? AND display_path >= ? AND display_path < ?` + states + `
		ORDER BY display_path LIMIT ?) AS by_path`
	args := append(append([]any{p.Tenant, p.Prefix, end}, stateArgs...), limit)
	if driver.IsHexPrefix(p.Prefix) {
		lo, hi := keyRange(p.Prefix)
		q = `SELECT * FROM (SELECT ` + listColumns + ` FROM jobs WHERE tenant = ? AND job_key >= ? AND job_key <= ?` + states + `
			ORDER BY job_key LIMIT ?) AS by_key UNION ALL ` + q
		args = append(append(append([]any{p.Tenant, lo, hi}, stateArgs...), limit), args...)
	}
	jobs, err := ScanJobs(c.E.Read().Query(ctx, q, args...))
	if err != nil {
		return nil, fmt.Errorf("find jobs by prefix %q: %w", p.Prefix, err)
	}
	return driver.MergeFound(limit, jobs), nil
}

// FindAtPathQuery lists the jobs whose source or display path is the
// argument (tenant, path, states..., tenant, path, states..., limit): one
// arm per index, because SQLite answers `source_path = ? OR display_path
// = ?` by walking every job of the tenant.
func FindAtPathQuery(states string) string {
	return `SELECT * FROM (SELECT ` + listColumns + ` FROM jobs WHERE tenant = ? AND source_path = ?` + states + `
		UNION SELECT ` + listColumns + ` FROM jobs WHERE tenant = ? AND display_path = ?` + states + `) AS at_path
		ORDER BY id DESC LIMIT ?`
}

// GetResults implements store.Store.
func (c *Core) GetResults(ctx context.Context, p *store.GetResultsParams) (map[int64]*store.Result, error) {
	out := make(map[int64]*store.Result, len(p.IDs))
	for start := 0; start < len(p.IDs); start += stateBatch {
		chunk := p.IDs[start:min(start+stateBatch, len(p.IDs))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := c.E.Read().Query(ctx, `SELECT r.id, r.tenant, r.job_key, r.job_id, r.schema_version, `+resultBody+`,
				r.attempt_id, r.run_id, r.shadow, r.committed_at, coalesce(r.superseded_by, 0), r.revision
			FROM results r WHERE r.id IN (`+Placeholders(len(chunk))+`)`, args...)
		err = each(rows, err, func(rs Rows) error {
			var r store.Result
			var body resultScan
			var committed *int64
			if err := rs.Scan(append(append([]any{&r.ID, &r.Tenant, keyOut(&r.JobKey), &r.JobID, &r.SchemaVersion}, body.dest()...),
				&r.AttemptID, &r.RunID, &r.Shadow, &committed, &r.SupersededBy, &r.Revision)...); err != nil {
				return err
			}
			var err error
			if r.JSON, err = body.json(); err != nil {
				return fmt.Errorf("result %d: %w", r.ID, err)
			}
			r.CommittedAt = fromMS(committed)
			out[r.ID] = &r
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("get results: %w", err)
		}
	}
	return out, nil
}
