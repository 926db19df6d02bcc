package jobs

import (
	"context"
	"fmt"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// member is one commit of a group as its writes see it: the caller's
// params and commit time in, the outcome out.
type member struct {
	p   *store.CommitParams
	now int64
	// ord is the member's place in its group: results are inserted, and
	// duplicates seen, in this order, as if the members committed one
	// after another.
	ord int

	packed *packed // the compressed result and events

	reasons          []store.ReviewReason // the caller's, checked
	shadow, replaces bool                 // from the fence
	review           bool                 // reasons and duplicates are opened
	res              *store.CommitResult
	err              error
}

// packed is what a commit writes compressed: its result and its events'
// payloads, each without the copy of the result it repeats (cutResult).
type packed struct {
	result []byte
	events []packedEvent
}

type packedEvent struct {
	body []byte
	at   *int64 // where the result goes back into body; nil: nowhere
}

// packCommit compresses what p writes. Commit calls it in the caller's
// goroutine, before the hand-over: compression is most of a commit's CPU
// outside the database, and done there it runs on every core at once, not
// in the one goroutine that writes the groups, inside their transactions.
func (c *Core) packCommit(p *store.CommitParams) *packed {
	out := &packed{result: c.pack(kindResult, p.Result), events: make([]packedEvent, len(p.Outbox))}
	for i := range p.Outbox {
		body, at := cutResult(p.Outbox[i].Payload, p.Result)
		out.events[i] = packedEvent{body: c.pack(kindEvent, body), at: at}
	}
	return out
}

// commitMembers writes the commits of ms inside tx, each table with one
// statement for all of them (commitstmt.go): the fence, the results
// (inserted or the existing ones returned), review reasons, the outbox
// events, the links from jobs to results and the attempt rows. A member
// that failed the fence wrote nothing; its attempt is recorded stale_lease
// and its err wraps store.ErrStaleLease. A member whose review reasons are
// malformed gets that error and is left out. Every other member gets its
// res. An error returned is the statements' own: what they wrote must be
// rolled back, and no member's outcome holds.
func (c *Core) commitMembers(ctx context.Context, tx Tx, ms []*member) error {
	live := make([]*member, 0, len(ms))
	for _, m := range ms {
		m.res, m.err, m.reasons = nil, nil, nil
		if m.p.Review != nil {
			// Checked before anything is written: a bad reason is a bug.
			if m.reasons, m.err = driver.CheckReasons(m.p.Review.Reasons); m.err != nil {
				continue
			}
		}
		live = append(live, m)
	}
	if len(live) == 0 {
		return nil
	}
	fenced, err := c.fence(ctx, tx, live)
	if err != nil {
		return fmt.Errorf("fence: %w", err)
	}
	var ok, stale []*member
	for _, m := range live {
		f, in := fenced[m.p.JobID]
		if !in {
			stale = append(stale, m)
			continue
		}
		// A shadow run's job stays shadow whoever commits it.
		m.shadow, m.replaces = m.p.Shadow || f.shadow, f.replaces
		// A shadow result publishes nothing, so nothing of it is held for
		// review.
		m.review = m.p.Review != nil && !m.shadow
		if !m.review {
			m.reasons = nil
		}
		ok = append(ok, m)
	}
	if err := c.markStaleMembers(ctx, tx, stale); err != nil {
		return fmt.Errorf("record stale attempts: %w", err)
	}
	for _, m := range stale {
		m.err = fmt.Errorf("commit job %d: %w", m.p.JobID, store.ErrStaleLease)
	}
	if len(ok) == 0 {
		return tx.Flush(ctx)
	}
	if err := c.insertResults(ctx, tx, ok); err != nil {
		return fmt.Errorf("insert results: %w", err)
	}
	if err := c.openMemberReasons(ctx, tx, ok); err != nil {
		return err
	}
	// The remaining writes depend only on the result ids: deferred, so an
	// engine may send them together.
	if err := c.writeCommitted(ctx, tx, ok); err != nil {
		return fmt.Errorf("write results, outbox and attempts: %w", err)
	}
	return nil
}

// writeCommitted links the jobs to their results, supersedes the results
// their texts replace, moves their source references, writes the outbox
// events (held while reasons are open) and finishes the attempt rows.
func (c *Core) writeCommitted(ctx context.Context, tx Tx, ms []*member) error {
	if err := c.linkResults(ctx, tx, ms); err != nil {
		return err
	}
	for _, m := range ms {
		// Both statements below match nothing for a job that replaces no
		// earlier text (nearly every job): skipped then.
		if m.res.Existing || !m.replaces {
			continue
		}
		if err := c.replacePrevious(ctx, tx, m); err != nil {
			return err
		}
	}
	if err := c.insertOutbox(ctx, tx, ms); err != nil {
		return err
	}
	if err := c.finishMembers(ctx, tx, ms); err != nil {
		return err
	}
	return tx.Flush(ctx)
}

// replacePrevious is for a job that replaces the text committed at its
// path (a held change accepted in review): it supersedes that result (the
// old result keeps its outbox events, which are never sent again) and
// moves the source reference to the job. Rare, so one member at a time.
func (c *Core) replacePrevious(ctx context.Context, tx Tx, m *member) error {
	p, id := m.p, m.res.ResultID
	if err := tx.Defer(ctx, `UPDATE results SET superseded_by = ?
		WHERE tenant = ? AND superseded_by IS NULL AND id <> ?
			AND job_key = (SELECT prev_job_key FROM jobs WHERE id = ? AND prev_job_key IS NOT NULL)`,
		id, p.Tenant, id, p.JobID); err != nil {
		return fmt.Errorf("supersede previous result: %w", err)
	}
	if err := tx.Defer(ctx, `UPDATE sources SET digest = j.source_digest, job_id = j.id, updated_at = ?
		FROM (SELECT id, tenant, source_digest, prev_job_key, system_id, source_path FROM jobs WHERE id = ?) AS j
		WHERE sources.tenant = ? AND sources.system_id = j.system_id AND sources.path = j.source_path
			AND sources.job_id = (SELECT p.id FROM jobs p WHERE p.tenant = j.tenant AND p.job_key = j.prev_job_key)`,
		m.now, p.JobID, p.Tenant); err != nil {
		return fmt.Errorf("move source reference: %w", err)
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

// markStale writes a fenced-out attempt's outcome on q.
func (c *Core) markStale(ctx context.Context, q Querier, attemptID int64, a store.AttemptInfo, now int64) error {
	// Only an attempt still open (or closed by a lease recovery) becomes
	// stale_lease: a replayed call must not rewrite a finished attempt.
	_, err := q.Exec(ctx, `UPDATE attempts SET outcome = ?, finished_at = ?, error_class = ?, message = ?,
			provider = ?, model = ?, duration_ms = ?, input_tokens = ?, output_tokens = ?, prompt_hash = ?, batch_id = ?, custom_id = ?
		WHERE id = ? AND outcome IN ('', ?)`,
		store.OutcomeStaleLease, now, c.E.Text(a.ErrorClass), c.E.Text(a.Message), c.E.Text(a.Provider), c.E.Text(a.Model),
		a.Duration.Milliseconds(), a.InputTokens, a.OutputTokens, bin(a.PromptHash), c.nullText(a.BatchID), c.nullText(a.CustomID),
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
		a.Duration.Milliseconds(), a.InputTokens, a.OutputTokens, a.NextDelay.Milliseconds(), bin(a.PromptHash), a.Output,
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
