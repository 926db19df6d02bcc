package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// CommitOne writes one job's commit inside tx: the fenced state change,
// the result (insert or return the existing one), review reasons, the
// outbox events and the attempt row. It returns store.ErrStaleLease, having
// written nothing the caller must keep, when the lease was lost: the
// caller rolls back (the whole transaction, or its savepoint) and records
// the attempt stale. now is the commit's time.
func (c *Core) CommitOne(ctx context.Context, tx Tx, p *store.CommitParams, now int64) (*store.CommitResult, error) {
	var out store.CommitResult
	var reasons []store.ReviewReason
	if p.Review != nil {
		// Checked before anything is written: a bad reason is a bug.
		var err error
		if reasons, err = driver.CheckReasons(p.Review.Reasons); err != nil {
			return nil, err
		}
	}
	// The fence: only the current lease holder moves the job on. Where
	// writers run side by side, the row stays locked until the transaction
	// ends, so no claimer can take the job over meanwhile.
	var jobShadow, replaces bool
	err := tx.QueryRow(ctx, `UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_expires_at = NULL,
			next_attempt_at = NULL, updated_at = ?
		WHERE id = ? AND lease_token = ? AND state = 'running' AND `+openAttempt+`
		RETURNING shadow, prev_job_key IS NOT NULL`,
		now, p.JobID, p.Token, p.AttemptID).Scan(&jobShadow, &replaces)
	if errors.Is(err, store.ErrNotFound) {
		return nil, store.ErrStaleLease
	}
	if err != nil {
		return nil, err
	}
	// A shadow run's job stays shadow whoever commits it.
	shadow := p.Shadow || jobShadow
	// A shadow result publishes nothing, so nothing of it is held for review.
	review := p.Review != nil && !shadow
	if !review {
		reasons = nil
	}
	id := driver.IdentityOf(p.Review, shadow)
	// Insert or return the existing result, atomically, in this
	// transaction: the no-op update makes RETURNING yield the row that was
	// already there.
	var attemptID int64
	err = tx.QueryRow(ctx, `INSERT INTO results (tenant, job_key, job_id, schema_version, result, result_zst, attempt_id, run_id, shadow, committed_at,
			supplier_vat_key, supplier_key, number_key, doc_total_minor, doc_issue_date, source_digest)
		VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN ? THEN (SELECT source_digest FROM jobs WHERE id = ?) END)
		ON CONFLICT (tenant, job_key) DO UPDATE SET tenant = excluded.tenant
		RETURNING id, attempt_id`,
		p.Tenant, p.JobKey, p.JobID, p.SchemaVersion, c.pack(kindResult, p.Result), p.AttemptID, p.RunID, shadow, now,
		id.VATKey, id.NameKey, id.NumberKey, id.TotalMinor, id.IssueDate, id.Digest, p.JobID).
		Scan(&out.ResultID, &attemptID)
	if err != nil {
		return nil, fmt.Errorf("insert result: %w", err)
	}
	out.Existing = attemptID != p.AttemptID
	if review && !out.Existing {
		if reasons, err = c.openReasons(ctx, tx, p.Tenant, p.JobKey, out.ResultID, p.JobID, p.Review.Identity, reasons, now); err != nil {
			return nil, err
		}
		out.Reasons = driver.Reasons(reasons)
	}
	// The remaining writes depend only on the result id: deferred, so an
	// engine may send them together.
	if err := c.writeCommitted(ctx, tx, p, &out, shadow, replaces, len(reasons), now); err != nil {
		return nil, fmt.Errorf("write result, outbox and attempt: %w", err)
	}
	return &out, nil
}

// writeCommitted links the job to its result, supersedes the result its
// text replaces (replaces: the job has a prev_job_key), moves the source
// reference, writes the outbox events (held while reasons are open) and
// finishes the attempt row.
func (c *Core) writeCommitted(ctx context.Context, tx Tx, p *store.CommitParams, out *store.CommitResult, shadow, replaces bool,
	open int, now int64) error {
	if err := tx.Defer(ctx, `UPDATE jobs SET result_id = ? WHERE id = ?`, out.ResultID, p.JobID); err != nil {
		return err
	}
	// Both statements below match nothing for a job that replaces no
	// earlier text (nearly every job): skipped then.
	if !out.Existing && replaces {
		// A job that replaces the text committed at its path (a held change
		// accepted in review) supersedes that result; the old result keeps
		// its outbox events, which are never sent again.
		if err := tx.Defer(ctx, `UPDATE results SET superseded_by = ?
			WHERE tenant = ? AND superseded_by IS NULL AND id <> ?
				AND job_key = (SELECT prev_job_key FROM jobs WHERE id = ? AND prev_job_key IS NOT NULL)`,
			out.ResultID, p.Tenant, out.ResultID, p.JobID); err != nil {
			return fmt.Errorf("supersede previous result: %w", err)
		}
		if err := tx.Defer(ctx, `UPDATE sources SET digest = j.source_digest, job_key = j.job_key, updated_at = ?
			FROM (SELECT source_digest, job_key, prev_job_key, source_system, source_path FROM jobs WHERE id = ?) AS j
			WHERE sources.tenant = ? AND sources.source_system = j.source_system AND sources.path = j.source_path
				AND sources.job_key = j.prev_job_key`, now, p.JobID, p.Tenant); err != nil {
			return fmt.Errorf("move source reference: %w", err)
		}
	}
	if !shadow && !out.Existing {
		if err := c.insertOutbox(ctx, tx, p, out.ResultID, driver.EventState(open), now); err != nil {
			return err
		}
	}
	if err := c.finishAttemptRow(ctx, tx, p.AttemptID, &p.Attempt, now); err != nil {
		return err
	}
	return tx.Flush(ctx)
}

// outboxBatch bounds the events one insert statement names.
const outboxBatch = 50

// insertOutbox writes the commit's outbox events, several per statement.
func (c *Core) insertOutbox(ctx context.Context, tx Tx, p *store.CommitParams, resultID int64, state string, now int64) error {
	for start := 0; start < len(p.Outbox); start += outboxBatch {
		evs := p.Outbox[start:min(start+outboxBatch, len(p.Outbox))]
		values := make([]string, len(evs))
		args := make([]any, 0, 9*len(evs))
		for i := range evs {
			ev := &evs[i]
			body, at := cutResult(ev.Payload, p.Result)
			values[i] = `(?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?)`
			args = append(args, p.Tenant, store.EventKey(p.JobKey, ev), p.JobKey, resultID, ev.ActionID, ev.Kind, c.pack(kindEvent, body), at,
				now, state)
		}
		if err := tx.Defer(ctx, `INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, payload_zst,
				payload_result_at, created_at, state)
			VALUES `+strings.Join(values, ", ")+` ON CONFLICT (tenant, event_key) DO NOTHING`, args...); err != nil {
			return fmt.Errorf("insert outbox events of job %s: %w", p.JobKey, err)
		}
	}
	return nil
}

// RecordStale marks a fenced-out attempt; op names the fenced operation
// (commit, finish attempt of, start next attempt of) for the error. It runs
// on its own because the fenced transaction was rolled back whole. The
// error it returns always wraps store.ErrStaleLease.
func (c *Core) RecordStale(ctx context.Context, op string, jobID, attemptID int64, a store.AttemptInfo, now int64) error {
	if err := c.markStale(ctx, c.E.Writer(), attemptID, a, now); err != nil {
		return fmt.Errorf("record stale attempt of job %d: %w (after %w)", jobID, err, store.ErrStaleLease)
	}
	return fmt.Errorf("%s job %d: %w", op, jobID, store.ErrStaleLease)
}

// markStale writes a fenced-out attempt's outcome on q: the writer, or the
// transaction of a group commit, whose member was rolled back to its
// savepoint.
func (c *Core) markStale(ctx context.Context, q Querier, attemptID int64, a store.AttemptInfo, now int64) error {
	// Only an attempt still open (or closed by a lease recovery) becomes
	// stale_lease: a replayed call must not rewrite a finished attempt.
	_, err := q.Exec(ctx, `UPDATE attempts SET outcome = ?, finished_at = ?, error_class = ?, message = ?,
			provider = ?, model = ?, duration_ms = ?, input_tokens = ?, output_tokens = ?, prompt_hash = ?, batch_id = ?, custom_id = ?
		WHERE id = ? AND outcome IN ('', ?)`,
		store.OutcomeStaleLease, now, c.E.Text(a.ErrorClass), c.E.Text(a.Message), c.E.Text(a.Provider), c.E.Text(a.Model),
		a.Duration.Milliseconds(), a.InputTokens, a.OutputTokens, c.E.Text(a.PromptHash), c.nullText(a.BatchID), c.nullText(a.CustomID),
		attemptID, store.OutcomeLeaseExpired)
	return err
}

// finishAttemptRow writes an attempt's outcome (deferred).
func (c *Core) finishAttemptRow(ctx context.Context, tx Tx, attemptID int64, a *store.AttemptInfo, now int64) error {
	t := c.E.Text
	err := tx.Defer(ctx, `UPDATE attempts SET outcome = ?, finished_at = ?, error_class = ?, category = ?, message = ?,
			provider = ?, model = ?, http_status = ?, request_id = ?, duration_ms = ?, input_tokens = ?, output_tokens = ?,
			next_delay_ms = ?, prompt_hash = ?, output = ?, batch_id = ?, custom_id = ?
		WHERE id = ?`,
		t(a.Outcome), now, t(a.ErrorClass), t(a.Category), t(a.Message), t(a.Provider), t(a.Model), a.HTTPStatus, t(a.RequestID),
		a.Duration.Milliseconds(), a.InputTokens, a.OutputTokens, a.NextDelay.Milliseconds(), t(a.PromptHash), a.Output,
		c.nullText(a.BatchID), c.nullText(a.CustomID), attemptID)
	if err != nil {
		return fmt.Errorf("finish attempt %d: %w", attemptID, err)
	}
	return nil
}

// nullText is s fitted to a TEXT column, NULL when empty: a synchronous
// attempt has no batch, and stats tell batch attempts by a non-NULL batch_id.
func (c *Core) nullText(s string) *string {
	if s == "" {
		return nil
	}
	s = c.E.Text(s)
	return &s
}
