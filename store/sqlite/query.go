package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/invx/invx/store"
)

// Pending implements store.Store.
func (s *Store) Pending(ctx context.Context, p *store.PendingParams) (*store.PendingInfo, error) {
	tenant := p.Tenant
	q := `SELECT state, count(*), min(next_attempt_at), min(lease_expires_at) FROM jobs
		WHERE state IN ('queued', 'running', 'retry_wait')`
	var args []any
	if tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, tenant)
	}
	if p.SchemaVersion != "" {
		q += ` AND schema_version = ?`
		args = append(args, p.SchemaVersion)
	}
	q += ` GROUP BY state`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("count pending jobs: %w", interpret(err))
	}
	defer rows.Close()
	var info store.PendingInfo
	for rows.Next() {
		var state string
		var n int
		var next, lease sql.NullInt64
		if err := rows.Scan(&state, &n, &next, &lease); err != nil {
			return nil, fmt.Errorf("count pending jobs: %w", interpret(err))
		}
		var wake sql.NullInt64
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
	}
	return &info, rows.Err()
}

// JobStates implements store.Store.
func (s *Store) JobStates(ctx context.Context, p *store.JobStatesParams) (map[string]store.JobState, error) {
	tenant, keys := p.Tenant, p.Keys
	out := make(map[string]store.JobState, len(keys))
	for start := 0; start < len(keys); start += enqueueBatch {
		chunk := keys[start:min(start+enqueueBatch, len(keys))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, tenant)
		for _, k := range chunk {
			args = append(args, k)
		}
		q := `SELECT job_key, state, coalesce(result_id, 0), coalesce(nullif(last_category, ''), last_error_class, '')
			FROM jobs WHERE tenant = ? AND job_key IN (?` + strings.Repeat(",?", len(chunk)-1) + `)`
		rows, err := s.r.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("read job states: %w", interpret(err))
		}
		for rows.Next() {
			var k string
			var st store.JobState
			if err := rows.Scan(&k, &st.State, &st.ResultID, &st.Category); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read job states: %w", interpret(err))
			}
			out[k] = st
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read job states: %w", interpret(err))
		}
	}
	return out, nil
}

const jobColumns = `id, tenant, job_key, transformation, schema_version, source_digest, source_system, source_path,
	coalesce(source_text, ''), state, attempts, coalesce(lease_owner, ''), lease_token, lease_expires_at, next_attempt_at,
	coalesce(held_reason, ''), coalesce(prev_job_key, ''), coalesce(last_error_class, ''), coalesce(last_category, ''),
	coalesce(last_error, ''), lease_recoveries, coalesce(result_id, 0), created_at, updated_at, coalesce(first_run_id, ''), shadow, coalesce(dismiss_reason, ''),
	coalesce(display_path, ''), coalesce(source_encoding, ''),
	coalesce(source_format, ''), coalesce(route, '')`

func scanJob(row interface{ Scan(...any) error }) (*store.Job, error) {
	var j store.Job
	var lease, next, created, updated sql.NullInt64
	var shadow int
	err := row.Scan(&j.ID, &j.Tenant, &j.JobKey, &j.Transformation, &j.SchemaVersion, &j.SourceDigest, &j.SourceSystem,
		&j.SourcePath, &j.SourceText, &j.State, &j.Attempts, &j.LeaseOwner, &j.LeaseToken, &lease, &next,
		&j.HeldReason, &j.PrevJobKey, &j.LastErrorClass, &j.LastCategory, &j.LastError, &j.LeaseRecoveries,
		&j.ResultID, &created, &updated, &j.FirstRunID, &shadow, &j.DismissReason, &j.DisplayPath, &j.SourceEncoding,
		&j.SourceFormat, &j.Route)
	if err != nil {
		return nil, interpret(err)
	}
	j.LeaseExpiresAt, j.NextAttemptAt = fromMS(lease), fromMS(next)
	j.CreatedAt, j.UpdatedAt = fromMS(created), fromMS(updated)
	j.Shadow = shadow != 0
	return &j, nil
}

// GetJob implements store.Store.
func (s *Store) GetJob(ctx context.Context, p *store.GetJobParams) (*store.Job, error) {
	if store.IsKeyPrefix(p.Ref) {
		rows, err := s.r.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE tenant = ? AND job_key >= ? AND job_key < ? ORDER BY id LIMIT 2`,
			p.Tenant, p.Ref, p.Ref+"g")
		if err != nil {
			return nil, fmt.Errorf("get job %s: %w", p.Ref, err)
		}
		var jobs []*store.Job
		for rows.Next() {
			j, err := scanJob(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("get job %s: %w", p.Ref, err)
			}
			jobs = append(jobs, j)
		}
		rows.Close()
		if len(jobs) == 1 {
			return jobs[0], nil
		}
		if len(jobs) > 1 {
			return nil, fmt.Errorf("get job %s: key prefix is ambiguous: %w", p.Ref, store.ErrNotFound)
		}
	}
	// A path may have had several texts over time; the newest job is the
	// one a person means.
	j, err := scanJob(s.r.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE tenant = ? AND source_path = ? ORDER BY id DESC LIMIT 1`,
		p.Tenant, p.Ref))
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", p.Ref, err)
	}
	return j, nil
}

// ListAttempts implements store.Store.
func (s *Store) ListAttempts(ctx context.Context, p *store.ListAttemptsParams) ([]*store.Attempt, error) {
	jobID := p.JobID
	rows, err := s.r.QueryContext(ctx, `SELECT id, job_id, attempt_no, run_id, owner, lease_token, started_at, finished_at,
			outcome, error_class, category, message, provider, model, http_status, request_id, duration_ms,
			input_tokens, output_tokens, next_delay_ms, prompt_hash, output
		FROM attempts WHERE job_id = ? ORDER BY attempt_no, id`, jobID)
	if err != nil {
		return nil, fmt.Errorf("list attempts of job %d: %w", jobID, interpret(err))
	}
	defer rows.Close()
	var out []*store.Attempt
	for rows.Next() {
		var a store.Attempt
		var started, finished sql.NullInt64
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
	return out, rows.Err()
}

// GetResult implements store.Store.
func (s *Store) GetResult(ctx context.Context, p *store.GetResultParams) (*store.Result, error) {
	tenant, jobKey := p.Tenant, p.JobKey
	var r store.Result
	var committed sql.NullInt64
	var superseded sql.NullInt64
	var shadow int
	var body string
	err := s.r.QueryRowContext(ctx, `SELECT r.id, r.tenant, r.job_key, r.job_id, r.schema_version, coalesce((SELECT v.result FROM result_revisions v WHERE v.tenant = r.tenant AND v.job_key = r.job_key AND v.revision = r.revision), r.result),
			r.attempt_id, r.run_id, r.shadow, r.committed_at, r.superseded_by, r.revision
		FROM results r WHERE r.tenant = ? AND r.job_key = ?`, tenant, jobKey).
		Scan(&r.ID, &r.Tenant, &r.JobKey, &r.JobID, &r.SchemaVersion, &body, &r.AttemptID, &r.RunID, &shadow, &committed, &superseded, &r.Revision)
	if err != nil {
		return nil, fmt.Errorf("get result %s: %w", jobKey, interpret(err))
	}
	r.JSON = []byte(body)
	r.Shadow = shadow != 0
	r.CommittedAt = fromMS(committed)
	r.SupersededBy = superseded.Int64
	return &r, nil
}
