package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/invx/invx/store"
)

// Renew implements store.Store.
func (c *Core) Renew(ctx context.Context, p *store.RenewParams) (time.Time, error) {
	nowT, _, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return time.Time{}, fmt.Errorf("renew lease of job %d: %w", p.JobID, err)
	}
	expires := nowT.Add(p.LeaseFor).UTC()
	n, err := c.E.Writer().Exec(ctx, `UPDATE jobs SET lease_expires_at = ? WHERE id = ? AND lease_token = ? AND state = 'running'`,
		ms(expires), p.JobID, p.Token)
	if err != nil {
		return time.Time{}, fmt.Errorf("renew lease of job %d: %w", p.JobID, err)
	}
	if n == 0 {
		return time.Time{}, fmt.Errorf("renew lease of job %d: %w", p.JobID, store.ErrStaleLease)
	}
	return expires, nil
}

// FinishAttempt implements store.Store.
func (c *Core) FinishAttempt(ctx context.Context, p *store.FinishAttemptParams) error {
	switch p.State {
	case store.StateQueued, store.StateRetryWait, store.StateRejected, store.StateFailed:
	default:
		return fmt.Errorf("finish attempt of job %d: bad next state %q", p.JobID, p.State)
	}
	nowT, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("finish attempt of job %d: %w", p.JobID, err)
	}
	next := later(p.NextAttemptAt, p.Now, nowT)
	t := c.E.Text
	err = c.write(ctx, regionFinish, func(tx Tx) error {
		// The fence: only the current lease holder moves the job on.
		n, err := tx.Exec(ctx, `UPDATE jobs SET state = ?, lease_owner = NULL, lease_expires_at = NULL,
				next_attempt_at = ?, last_error_class = ?, last_category = ?, last_error = ?, updated_at = ?
			WHERE id = ? AND lease_token = ? AND state = 'running' AND `+openAttempt,
			p.State, nullMS(next), t(p.Attempt.ErrorClass), t(p.Attempt.Category), t(p.Attempt.Message), now, p.JobID, p.Token,
			p.AttemptID)
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrStaleLease
		}
		return c.finishAttemptRow(ctx, tx, p.AttemptID, &p.Attempt, now)
	})
	if errors.Is(err, store.ErrStaleLease) {
		return c.RecordStale(ctx, "finish attempt of", p.JobID, p.AttemptID, p.Attempt, now)
	}
	if err != nil {
		return fmt.Errorf("finish attempt of job %d: %w", p.JobID, err)
	}
	return nil
}

// GiveBack implements store.Store. The attempt row stays, closed as
// not_started: deleting it would let SQLite hand its id to the next
// attempt, which a stale holder of the old id could then close.
func (c *Core) GiveBack(ctx context.Context, p *store.GiveBackParams) error {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("give back job %d: %w", p.JobID, err)
	}
	err = c.write(ctx, regionGiveBack, func(tx Tx) error {
		n, err := tx.Exec(ctx, `UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL,
				next_attempt_at = NULL, budget_base = budget_base + 1, updated_at = ?
			WHERE id = ? AND lease_token = ? AND state = 'running' AND `+openAttempt,
			now, p.JobID, p.Token, p.AttemptID)
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrStaleLease
		}
		return tx.Defer(ctx, `UPDATE attempts SET outcome = ?, finished_at = ? WHERE id = ?`,
			store.OutcomeNotStarted, now, p.AttemptID)
	})
	if err != nil {
		return fmt.Errorf("give back job %d: %w", p.JobID, err)
	}
	return nil
}

// NextAttempt implements store.Store.
func (c *Core) NextAttempt(ctx context.Context, p *store.NextAttemptParams) (*store.NextAttemptResult, error) {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("next attempt of job %d: %w", p.JobID, err)
	}
	var id int64
	var no int
	t := c.E.Text
	err = c.write(ctx, regionNextAttempt, func(tx Tx) error {
		var tenant string
		// The fence: only the current lease holder starts another attempt.
		err := tx.QueryRow(ctx, `UPDATE jobs SET attempts = attempts + 1, last_error_class = ?, last_category = ?,
				last_error = ?, updated_at = ?
			WHERE id = ? AND lease_token = ? AND state = 'running' AND `+openAttempt+` RETURNING attempts, tenant`,
			t(p.Attempt.ErrorClass), t(p.Attempt.Category), t(p.Attempt.Message), now, p.JobID, p.Token, p.AttemptID).Scan(&no, &tenant)
		if errors.Is(err, store.ErrNotFound) {
			return store.ErrStaleLease
		}
		if err != nil {
			return err
		}
		if err := c.finishAttemptRow(ctx, tx, p.AttemptID, &p.Attempt, now); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO attempts (job_id, tenant, attempt_no, run_id, owner, lease_token, started_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, p.JobID, tenant, no, p.RunID, p.Owner, p.Token, now).Scan(&id)
	})
	if errors.Is(err, store.ErrStaleLease) {
		return nil, c.RecordStale(ctx, "start next attempt of", p.JobID, p.AttemptID, p.Attempt, now)
	}
	if err != nil {
		return nil, fmt.Errorf("next attempt of job %d: %w", p.JobID, err)
	}
	return &store.NextAttemptResult{AttemptID: id, AttemptNo: no}, nil
}

// later moves t, a time the caller computed on its own clock, whose now was
// callerNow, to the same distance from now (the store's clock): a retry
// "in 30s" stays 30s away however far the caller's clock is off. Where the
// store keeps the caller's clock it is t itself.
func later(t, callerNow, now time.Time) time.Time {
	if t.IsZero() || callerNow.IsZero() {
		return t
	}
	return now.Add(t.Sub(callerNow))
}

// openAttempt is the second half of the fence on a job's lease: the attempt
// the caller answers must still be open. A lease token alone is shared by
// everyone who acts for the lease holder (the collectors of a batch, one
// after another), and a second settlement of one answer must not open a
// second re-ask or commit under an attempt already closed.
const openAttempt = `EXISTS (SELECT 1 FROM attempts a WHERE a.id = ? AND a.job_id = jobs.id AND a.outcome = '')`
