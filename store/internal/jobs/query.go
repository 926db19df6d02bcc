package jobs

import (
	"context"
	"fmt"
	"strings"

	"github.com/invx/invx/store"
)

// Pending implements store.Store.
func (c *Core) Pending(ctx context.Context, p *store.PendingParams) (*store.PendingInfo, error) {
	// Jobs a batch holds are counted apart: see store.PendingInfo.InBatch.
	q := `SELECT state, CASE WHEN state = 'running' AND lease_owner LIKE '` + store.BatchOwnerPrefix + `%' THEN 1 ELSE 0 END,
			count(*), min(next_attempt_at), min(lease_expires_at) FROM jobs
		WHERE state IN ('queued', 'running', 'retry_wait')`
	var args []any
	if p.Tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	if p.SchemaVersion != "" {
		q += ` AND schema_version = ?`
		args = append(args, p.SchemaVersion)
	}
	rows, err := c.E.Read().Query(ctx, q+` GROUP BY 1, 2`, args...)
	var info store.PendingInfo
	err = each(rows, err, func(r Rows) error {
		var state string
		var inBatch, n int
		var next, lease *int64
		if err := r.Scan(&state, &inBatch, &n, &next, &lease); err != nil {
			return err
		}
		if inBatch == 1 {
			info.InBatch = n
			return nil
		}
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
		return nil, fmt.Errorf("count pending jobs: %w", err)
	}
	return &info, nil
}

// stateBatch bounds the keys one JobStates query names.
const stateBatch = 500

// JobStates implements store.Store.
func (c *Core) JobStates(ctx context.Context, p *store.JobStatesParams) (map[string]store.JobState, error) {
	out := make(map[string]store.JobState, len(p.Keys))
	for start := 0; start < len(p.Keys); start += stateBatch {
		chunk := p.Keys[start:min(start+stateBatch, len(p.Keys))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, p.Tenant)
		for _, k := range chunk {
			args = append(args, bin(k))
		}
		rows, err := c.E.Read().Query(ctx, `SELECT job_key, state, coalesce(result_id, 0), coalesce(nullif(last_category, ''), last_error_class, '')
			FROM jobs WHERE tenant = ? AND job_key IN (`+Placeholders(len(chunk))+`)`, args...)
		err = each(rows, err, func(r Rows) error {
			var k string
			var st store.JobState
			if err := r.Scan(keyOut(&k), &st.State, &st.ResultID, &st.Category); err != nil {
				return err
			}
			out[k] = st
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read job states: %w", err)
		}
	}
	return out, nil
}

// Placeholders is n placeholders for an IN list: "?, ?, ?".
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return "?" + strings.Repeat(", ?", n-1)
}

// JobColumns are the columns ScanJob reads, in its order.
const JobColumns = `id, tenant, job_key, transformation, schema_version, source_digest,
	(SELECT l.label FROM labels l WHERE l.id = jobs.system_id), source_path,
	coalesce(source_text, ''), (SELECT x.zst FROM job_texts x WHERE x.job_id = jobs.id), state, attempts, coalesce(lease_owner, ''), lease_token, lease_expires_at, next_attempt_at,
	coalesce(held_reason, ''), coalesce(prev_job_key, ''), coalesce(last_error_class, ''), coalesce(last_category, ''),
	coalesce(last_error, ''), lease_recoveries, coalesce(result_id, 0), created_at, updated_at, coalesce(first_run_id, ''), shadow, coalesce(dismiss_reason, ''),
	coalesce(display_path, ''), coalesce(source_encoding, ''),
	coalesce(source_format, ''), coalesce(route, '')`

// ScanJob reads a row of JobColumns.
func ScanJob(row Row) (*store.Job, error) {
	var j store.Job
	var lease, next, created, updated *int64
	var zst []byte
	err := row.Scan(&j.ID, &j.Tenant, keyOut(&j.JobKey), &j.Transformation, &j.SchemaVersion, keyOut(&j.SourceDigest), &j.SourceSystem,
		&j.SourcePath, &j.SourceText, &zst, &j.State, &j.Attempts, &j.LeaseOwner, &j.LeaseToken, &lease, &next,
		&j.HeldReason, keyOut(&j.PrevJobKey), &j.LastErrorClass, &j.LastCategory, &j.LastError, &j.LeaseRecoveries,
		&j.ResultID, &created, &updated, &j.FirstRunID, &j.Shadow, &j.DismissReason, &j.DisplayPath, &j.SourceEncoding,
		&j.SourceFormat, &j.Route)
	if err != nil {
		return nil, err
	}
	if j.SourceText, err = unpack(zst, j.SourceText); err != nil {
		return nil, fmt.Errorf("text of job %d: %w", j.ID, err)
	}
	j.LeaseExpiresAt, j.NextAttemptAt = fromMS(lease), fromMS(next)
	j.CreatedAt, j.UpdatedAt = fromMS(created), fromMS(updated)
	return &j, nil
}

// ScanJobs reads every row of a query of JobColumns.
func ScanJobs(rows Rows, err error) ([]*store.Job, error) {
	var out []*store.Job
	err = each(rows, err, func(r Rows) error {
		j, err := ScanJob(r)
		if err != nil {
			return err
		}
		out = append(out, j)
		return nil
	})
	return out, err
}

// GetJob implements store.Store.
func (c *Core) GetJob(ctx context.Context, p *store.GetJobParams) (*store.Job, error) {
	if store.IsKeyPrefix(p.Ref) {
		// job_key compares bytewise: the prefix is a range of the unique index.
		lo, hi := keyRange(p.Ref)
		jobs, err := ScanJobs(c.E.Read().Query(ctx, `SELECT `+JobColumns+` FROM jobs WHERE tenant = ? AND job_key >= ? AND job_key <= ?
			ORDER BY id LIMIT 2`, p.Tenant, lo, hi))
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
	j, err := ScanJob(c.E.Read().QueryRow(ctx, `SELECT `+JobColumns+` FROM jobs WHERE tenant = ? AND source_path = ?
		ORDER BY id DESC LIMIT 1`, p.Tenant, p.Ref))
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", p.Ref, err)
	}
	return j, nil
}

// ListAttempts implements store.Store.
func (c *Core) ListAttempts(ctx context.Context, p *store.ListAttemptsParams) ([]*store.Attempt, error) {
	rows, err := c.E.Read().Query(ctx, `SELECT id, job_id, attempt_no, run_id, owner, lease_token, started_at, finished_at,
			outcome, error_class, category, message, provider, model, http_status, request_id, duration_ms,
			input_tokens, output_tokens, next_delay_ms, prompt_hash, output, coalesce(batch_id, ''), coalesce(custom_id, '')
		FROM attempts WHERE job_id = ? ORDER BY attempt_no, id`, p.JobID)
	var out []*store.Attempt
	err = each(rows, err, func(r Rows) error {
		var a store.Attempt
		var started, finished *int64
		var durMS, delayMS int64
		if err := r.Scan(&a.ID, &a.JobID, &a.AttemptNo, &a.RunID, &a.Owner, &a.LeaseToken, &started, &finished,
			&a.Outcome, &a.ErrorClass, &a.Category, &a.Message, &a.Provider, &a.Model, &a.HTTPStatus, &a.RequestID,
			&durMS, &a.InputTokens, &a.OutputTokens, &delayMS, keyOut(&a.PromptHash), &a.Output,
			&a.BatchID, &a.CustomID); err != nil {
			return err
		}
		a.StartedAt, a.FinishedAt = fromMS(started), fromMS(finished)
		a.Duration = msDuration(durMS)
		a.NextDelay = msDuration(delayMS)
		out = append(out, &a)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list attempts of job %d: %w", p.JobID, err)
	}
	return out, nil
}

// GetResult implements store.Store.
func (c *Core) GetResult(ctx context.Context, p *store.GetResultParams) (*store.Result, error) {
	var r store.Result
	var committed, superseded *int64
	var body resultScan
	err := c.E.Read().QueryRow(ctx, `SELECT r.id, r.tenant, r.job_key, r.job_id, r.schema_version, `+resultBody+`,
			r.attempt_id, r.run_id, r.shadow, r.committed_at, r.superseded_by, r.revision
		FROM results r WHERE r.tenant = ? AND r.job_key = ?`, p.Tenant, bin(p.JobKey)).
		Scan(append(append([]any{&r.ID, &r.Tenant, keyOut(&r.JobKey), &r.JobID, &r.SchemaVersion}, body.dest()...),
			&r.AttemptID, &r.RunID, &r.Shadow, &committed, &superseded, &r.Revision)...)
	if err == nil {
		r.JSON, err = body.json()
	}
	if err != nil {
		return nil, fmt.Errorf("get result %s: %w", p.JobKey, err)
	}
	r.CommittedAt = fromMS(committed)
	if superseded != nil {
		r.SupersededBy = *superseded
	}
	return &r, nil
}
