package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/invx/invx/store"
)

// Pending implements store.Store.
func (s *Store) Pending(ctx context.Context, p *store.PendingParams) (*store.PendingInfo, error) {
	tenant := p.Tenant
	var a args
	q := `SELECT state, count(*), min(next_attempt_at), min(lease_expires_at) FROM jobs
		WHERE state IN ('queued', 'running', 'retry_wait')`
	if tenant != "" {
		q += ` AND tenant = ` + a.add(tenant)
	}
	q += withVersion(&a, p.SchemaVersion)
	rows, err := s.pool.Query(ctx, q+` GROUP BY state`, a...)
	if err != nil {
		return nil, fmt.Errorf("count pending jobs: %w", interpret(err))
	}
	var info store.PendingInfo
	var state string
	var n int
	var next, lease *int64
	_, err = pgx.ForEachRow(rows, []any{&state, &n, &next, &lease}, func() error {
		var wake *int64
		switch state {
		case store.StateQueued:
			info.Queued = n
		case store.StateRunning:
			info.Running = n
			wake = lease
		case store.StateRetryWait:
			info.RetryWait = n
			wake = next
		}
		if t := fromMS(wake); !t.IsZero() && (info.NextWake.IsZero() || t.Before(info.NextWake)) {
			info.NextWake = t
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count pending jobs: %w", interpret(err))
	}
	return &info, nil
}

// JobStates implements store.Store.
func (s *Store) JobStates(ctx context.Context, p *store.JobStatesParams) (map[string]store.JobState, error) {
	tenant, keys := p.Tenant, p.Keys
	out := make(map[string]store.JobState, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT job_key, state, coalesce(result_id, 0), coalesce(nullif(last_category, ''), last_error_class, '')
		FROM jobs WHERE tenant = $1 AND job_key = ANY($2)`, tenant, keys)
	if err != nil {
		return nil, fmt.Errorf("read job states: %w", interpret(err))
	}
	var k string
	var st store.JobState
	_, err = pgx.ForEachRow(rows, []any{&k, &st.State, &st.ResultID, &st.Category}, func() error {
		out[k] = st
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read job states: %w", interpret(err))
	}
	return out, nil
}

const jobColumns = `id, tenant, job_key, transformation, schema_version, source_digest, source_system, source_path,
	coalesce(source_text, ''), state, attempts, coalesce(lease_owner, ''), lease_token, lease_expires_at, next_attempt_at,
	coalesce(held_reason, ''), coalesce(prev_job_key, ''), coalesce(last_error_class, ''), coalesce(last_category, ''),
	coalesce(last_error, ''), lease_recoveries, coalesce(result_id, 0), created_at, updated_at, coalesce(first_run_id, ''), shadow, coalesce(dismiss_reason, ''),
	coalesce(display_path, ''), coalesce(source_encoding, ''),
	coalesce(source_format, ''), coalesce(route, '')`

func scanJob(row pgx.Row) (*store.Job, error) {
	var j store.Job
	var lease, next, created, updated *int64
	err := row.Scan(&j.ID, &j.Tenant, &j.JobKey, &j.Transformation, &j.SchemaVersion, &j.SourceDigest, &j.SourceSystem,
		&j.SourcePath, &j.SourceText, &j.State, &j.Attempts, &j.LeaseOwner, &j.LeaseToken, &lease, &next,
		&j.HeldReason, &j.PrevJobKey, &j.LastErrorClass, &j.LastCategory, &j.LastError, &j.LeaseRecoveries,
		&j.ResultID, &created, &updated, &j.FirstRunID, &j.Shadow, &j.DismissReason, &j.DisplayPath, &j.SourceEncoding,
		&j.SourceFormat, &j.Route)
	if err != nil {
		return nil, interpret(err)
	}
	j.LeaseExpiresAt, j.NextAttemptAt = fromMS(lease), fromMS(next)
	j.CreatedAt, j.UpdatedAt = fromMS(created), fromMS(updated)
	return &j, nil
}

func scanJobs(rows pgx.Rows) ([]*store.Job, error) {
	defer rows.Close()
	var out []*store.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, interpret(rows.Err())
}

// GetJob implements store.Store.
func (s *Store) GetJob(ctx context.Context, p *store.GetJobParams) (*store.Job, error) {
	if store.IsKeyPrefix(p.Ref) {
		// job_key is COLLATE "C": the prefix is a range of the unique index.
		rows, err := s.pool.Query(ctx, `SELECT `+jobColumns+` FROM jobs WHERE tenant = $1 AND job_key >= $2 AND job_key < $3
			ORDER BY id LIMIT 2`, p.Tenant, p.Ref, p.Ref+"g")
		if err != nil {
			return nil, fmt.Errorf("get job %s: %w", p.Ref, interpret(err))
		}
		jobs, err := scanJobs(rows)
		if err != nil {
			return nil, fmt.Errorf("get job %s: %w", p.Ref, err)
		}
		if len(jobs) == 1 {
			return jobs[0], nil
		}
		if len(jobs) > 1 {
			return nil, fmt.Errorf("get job %s: key prefix is ambiguous: %w", p.Ref, store.ErrNotFound)
		}
	}
	// A path may have had several texts over time; the newest job is the
	// one a person means.
	j, err := scanJob(s.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE tenant = $1 AND source_path = $2
		ORDER BY id DESC LIMIT 1`, p.Tenant, p.Ref))
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", p.Ref, err)
	}
	return j, nil
}

// ListAttempts implements store.Store.
func (s *Store) ListAttempts(ctx context.Context, p *store.ListAttemptsParams) ([]*store.Attempt, error) {
	jobID := p.JobID
	rows, err := s.pool.Query(ctx, `SELECT id, job_id, attempt_no, run_id, owner, lease_token, started_at, finished_at,
			outcome, error_class, category, message, provider, model, http_status, request_id, duration_ms,
			input_tokens, output_tokens, next_delay_ms, prompt_hash, output
		FROM attempts WHERE job_id = $1 ORDER BY attempt_no, id`, jobID)
	if err != nil {
		return nil, fmt.Errorf("list attempts of job %d: %w", jobID, interpret(err))
	}
	defer rows.Close()
	var out []*store.Attempt
	for rows.Next() {
		var a store.Attempt
		var started, finished *int64
		var durMS, delayMS int64
		if err := rows.Scan(&a.ID, &a.JobID, &a.AttemptNo, &a.RunID, &a.Owner, &a.LeaseToken, &started, &finished,
			&a.Outcome, &a.ErrorClass, &a.Category, &a.Message, &a.Provider, &a.Model, &a.HTTPStatus, &a.RequestID,
			&durMS, &a.InputTokens, &a.OutputTokens, &delayMS, &a.PromptHash, &a.Output); err != nil {
			return nil, fmt.Errorf("list attempts of job %d: %w", jobID, interpret(err))
		}
		a.StartedAt, a.FinishedAt = fromMS(started), fromMS(finished)
		a.Duration = msDuration(durMS)
		a.NextDelay = msDuration(delayMS)
		out = append(out, &a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list attempts of job %d: %w", jobID, interpret(err))
	}
	return out, nil
}

// GetResult implements store.Store.
func (s *Store) GetResult(ctx context.Context, p *store.GetResultParams) (*store.Result, error) {
	tenant, jobKey := p.Tenant, p.JobKey
	var r store.Result
	var committed, superseded *int64
	var body string
	err := s.pool.QueryRow(ctx, `SELECT r.id, r.tenant, r.job_key, r.job_id, r.schema_version, coalesce((SELECT v.result FROM result_revisions v WHERE v.tenant = r.tenant AND v.job_key = r.job_key AND v.revision = r.revision), r.result),
			r.attempt_id, r.run_id, r.shadow, r.committed_at, r.superseded_by, r.revision
		FROM results r WHERE r.tenant = $1 AND r.job_key = $2`, tenant, jobKey).
		Scan(&r.ID, &r.Tenant, &r.JobKey, &r.JobID, &r.SchemaVersion, &body, &r.AttemptID, &r.RunID, &r.Shadow, &committed, &superseded, &r.Revision)
	if err != nil {
		return nil, fmt.Errorf("get result %s: %w", jobKey, interpret(err))
	}
	r.JSON = []byte(body)
	r.CommittedAt = fromMS(committed)
	if superseded != nil {
		r.SupersededBy = *superseded
	}
	return &r, nil
}
