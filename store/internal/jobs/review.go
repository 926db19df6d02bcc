package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// openReasons opens a result's review reasons inside a correction's
// transaction: the caller's, then one per other live result with the same
// identity, as a group commit opens a member's (openMemberReasons). It
// returns every reason it opened. Of two commits of one invoice the second
// always sees the first: SQLite serialises write transactions, PostgreSQL
// takes the engine's invoice lock first.
func (c *Core) openReasons(ctx context.Context, tx Tx, tenant, jobKey string, resultID, jobID int64, id *store.DocIdentity,
	reasons []store.ReviewReason, now int64) ([]store.ReviewReason, error) {
	m := &member{p: &store.CommitParams{Tenant: tenant, JobKey: jobKey, JobID: jobID, Review: &store.CommitReview{Identity: id}},
		now: now, reasons: reasons, review: true, res: &store.CommitResult{ResultID: resultID}}
	if err := c.openMemberReasons(ctx, tx, []*member{m}); err != nil {
		return nil, err
	}
	return m.reasons, nil
}

// ListReview implements store.Store.
func (c *Core) ListReview(ctx context.Context, p *store.ListReviewParams) ([]*store.ReviewItem, error) {
	q := `SELECT v.id, v.tenant, v.job_key, v.result_id, r.revision, coalesce(j.display_path, j.source_path), r.schema_version,
			v.reason, v.detail, v.opened_at
		FROM review_reasons v JOIN results r ON r.id = v.result_id JOIN jobs j ON j.id = r.job_id
		WHERE v.state = 'open'`
	var args []any
	if !p.AllTenants {
		q += ` AND v.tenant = ?`
		args = append(args, p.Tenant)
	}
	if p.Reason != "" {
		q += ` AND v.reason = ?`
		args = append(args, p.Reason)
	}
	if len(p.JobKeys) > 0 {
		q += ` AND v.job_key IN (` + Placeholders(len(p.JobKeys)) + `)`
		for _, k := range p.JobKeys {
			args = append(args, bin(k))
		}
	}
	rows, err := c.E.Read().Query(ctx, q+` ORDER BY v.id`, args...)
	var out []*store.ReviewItem
	err = each(rows, err, func(r Rows) error {
		var it store.ReviewItem
		var detail string
		var opened *int64
		if err := r.Scan(&it.ID, &it.Tenant, keyOut(&it.JobKey), &it.ResultID, &it.Revision, &it.Path, &it.SchemaVersion,
			&it.Reason, &detail, &opened); err != nil {
			return err
		}
		it.Detail, it.OpenedAt = []byte(detail), fromMS(opened)
		out = append(out, &it)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list review: %w", err)
	}
	return out, nil
}

// CountReview implements store.Store. It reads review_reasons alone, by
// its (tenant, job_key, state) index: a reason always has its result and
// job (ListReview's joins drop nothing), so the counts are ListReview's
// without a jobs row read per item.
func (c *Core) CountReview(ctx context.Context, p *store.CountReviewParams) (*store.ReviewCounts, error) {
	out := &store.ReviewCounts{ByReason: map[string]int{}}
	if p.Has != nil {
		return c.countOpenReview(ctx, p, out)
	}
	if len(p.JobKeys) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(p.JobKeys)+1)
	args = append(args, p.Tenant)
	for _, k := range p.JobKeys {
		args = append(args, bin(k))
	}
	rows, err := c.E.Read().Query(ctx, `SELECT reason, count(*), count(DISTINCT job_key) FROM review_reasons
		WHERE tenant = ? AND state = 'open' AND job_key IN (`+Placeholders(len(p.JobKeys))+`) GROUP BY reason`, args...)
	err = each(rows, err, func(r Rows) error {
		var reason string
		var n, docs int
		if err := r.Scan(&reason, &n, &docs); err != nil {
			return err
		}
		out.ByReason[reason] += n
		out.Docs = docs
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count review reasons: %w", err)
	}
	if len(out.ByReason) <= 1 {
		return out, nil // one reason (the usual case): its jobs are the documents
	}
	err = c.E.Read().QueryRow(ctx, `SELECT count(DISTINCT job_key) FROM review_reasons
		WHERE tenant = ? AND state = 'open' AND job_key IN (`+Placeholders(len(p.JobKeys))+`)`, args...).Scan(&out.Docs)
	if err != nil {
		return nil, fmt.Errorf("count review reasons: %w", err)
	}
	return out, nil
}

// OpenReviewQuery lists a tenant's open review reasons in job key order
// (tenant as argument): from the partial index review_reasons_open alone
// (migration 019), with no probe of the table per reason.
const OpenReviewQuery = `SELECT job_key, reason FROM review_reasons WHERE tenant = ? AND state = 'open' ORDER BY job_key`

// countOpenReview is CountReview by Has: the tenant's open reasons, counted
// first from the (tenant, state, reason) index alone, then read once in job
// key order, so a job's reasons are adjacent and documents are counted
// without a set of them.
func (c *Core) countOpenReview(ctx context.Context, p *store.CountReviewParams, out *store.ReviewCounts) (*store.ReviewCounts, error) {
	var open int
	err := c.E.Read().QueryRow(ctx, `SELECT count(*) FROM review_reasons WHERE tenant = ? AND state = 'open'`, p.Tenant).Scan(&open)
	if err != nil {
		return nil, fmt.Errorf("count open review reasons: %w", err)
	}
	if open > p.MaxOpen {
		out.TooMany = true
		return out, nil
	}
	if open == 0 {
		return out, nil
	}
	rows, err := c.E.Read().Query(ctx, OpenReviewQuery, p.Tenant)
	last, lastHas := "", false
	err = each(rows, err, func(r Rows) error {
		var key, reason string
		if err := r.Scan(keyOut(&key), &reason); err != nil {
			return err
		}
		if key != last {
			last, lastHas = key, p.Has(key)
			if lastHas {
				out.Docs++
			}
		}
		if lastHas {
			out.ByReason[reason]++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count open review reasons: %w", err)
	}
	return out, nil
}

// closeReasons closes a job's open reasons as state and returns how many
// and the result they belong to; ErrNotFound when none was open.
func (c *Core) closeReasons(ctx context.Context, tx Tx, tenant, jobKey, state, actor, note string, now int64) (int, int64, error) {
	rows, err := tx.Query(ctx, `UPDATE review_reasons SET state = ?, closed_at = ?, actor = ?, note = ?
		WHERE tenant = ? AND job_key = ? AND state = 'open' RETURNING result_id`,
		state, now, c.E.Text(actor), c.E.Text(note), tenant, bin(jobKey))
	got, err := ids(rows, err)
	if err != nil {
		return 0, 0, fmt.Errorf("close review reasons: %w", err)
	}
	if len(got) == 0 {
		return 0, 0, store.ErrNotFound
	}
	return len(got), got[0], nil
}

// moveHeld moves a job's held events to state (pending or cancelled).
func moveHeld(ctx context.Context, tx Tx, tenant, jobKey, state string) (int, error) {
	n, err := tx.Exec(ctx, `UPDATE outbox SET state = ?
		WHERE result_id IN (SELECT id FROM results WHERE tenant = ? AND job_key = ?) AND state = 'held'`,
		state, tenant, bin(jobKey))
	if err != nil {
		return 0, fmt.Errorf("move held events to %s: %w", state, err)
	}
	return int(n), nil
}

// AcceptReview implements store.Store.
func (c *Core) AcceptReview(ctx context.Context, p *store.ReviewActionParams) (*store.ReviewActionResult, error) {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("accept review of %s: %w", p.JobKey, err)
	}
	var out store.ReviewActionResult
	err = c.write(ctx, regionReview, func(tx Tx) error {
		out = store.ReviewActionResult{}
		var err error
		if out.Reasons, _, err = c.closeReasons(ctx, tx, p.Tenant, p.JobKey, store.ReviewAccepted, p.Actor, p.Note, now); err != nil {
			return err
		}
		out.Events, err = moveHeld(ctx, tx, p.Tenant, p.JobKey, store.OutboxPending)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("accept review of %s: %w", p.JobKey, err)
	}
	return &out, nil
}

// DismissReview implements store.Store.
func (c *Core) DismissReview(ctx context.Context, p *store.ReviewActionParams) (*store.ReviewActionResult, error) {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("dismiss review of %s: %w", p.JobKey, err)
	}
	var out store.ReviewActionResult
	err = c.write(ctx, regionReview, func(tx Tx) error {
		out = store.ReviewActionResult{}
		var resultID int64
		var err error
		if out.Reasons, resultID, err = c.closeReasons(ctx, tx, p.Tenant, p.JobKey, store.ReviewDismissed, p.Actor, p.Note, now); err != nil {
			return err
		}
		if out.Events, err = moveHeld(ctx, tx, p.Tenant, p.JobKey, store.OutboxCancelled); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO outbox (tenant, event_suffix, result_id, action_id, kind, payload, payload_zst, created_at)
			VALUES (?, ?, ?, ?, ?, '', ?, ?) ON CONFLICT (result_id, event_suffix) DO NOTHING`,
			p.Tenant, eventSuffix(p.JobKey, store.DismissedEventKey(p.JobKey)), resultID, store.EventDismissed, store.EventDismissed,
			c.pack(kindEvent, driver.DismissedPayload(p)), now)
		if err != nil {
			return fmt.Errorf("insert %s event: %w", store.EventDismissed, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dismiss review of %s: %w", p.JobKey, err)
	}
	return &out, nil
}

// CorrectResult implements store.Store.
func (c *Core) CorrectResult(ctx context.Context, p *store.CorrectParams) (*store.CorrectResult, error) {
	var reasons []store.ReviewReason
	var err error
	if p.Review != nil {
		if reasons, err = driver.CheckReasons(p.Review.Reasons); err != nil {
			return nil, fmt.Errorf("correct result of %s: %w", p.JobKey, err)
		}
	}
	changes, err := driver.Changes(p.Changes)
	if err != nil {
		return nil, fmt.Errorf("correct result of %s: %w", p.JobKey, err)
	}
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("correct result of %s: %w", p.JobKey, err)
	}
	var out store.CorrectResult
	err = c.write(ctx, regionReview, func(tx Tx) error {
		out = store.CorrectResult{}
		id := driver.IdentityOf(p.Review, false)
		var jobID int64
		// The result's identity becomes the corrected one; the row's
		// result column keeps revision 0. Where writers run side by side
		// the row stays locked until the transaction ends, so two
		// corrections of one result take turns.
		err := tx.QueryRow(ctx, `UPDATE results SET revision = revision + 1, supplier_vat_key = ?, supplier_key = ?,
				number_key = ?, doc_total_minor = ?, doc_issue_date = ?
			WHERE tenant = ? AND job_key = ? AND NOT shadow AND superseded_by IS NULL
			RETURNING id, revision, job_id`,
			id.VATKey, id.NameKey, id.NumberKey, id.TotalMinor, id.IssueDate, p.Tenant, bin(p.JobKey)).
			Scan(&out.ResultID, &out.Revision, &jobID)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no result to correct: %w", store.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO result_revisions (tenant, job_key, result_id, revision, result, actor, reason,
				changes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.Tenant, bin(p.JobKey), out.ResultID, out.Revision, string(p.Result), c.E.Text(p.Actor), c.E.Text(p.Reason),
			string(changes), now); err != nil {
			return fmt.Errorf("insert revision %d: %w", out.Revision, err)
		}
		if _, _, err := c.closeReasons(ctx, tx, p.Tenant, p.JobKey, store.ReviewCorrected, p.Actor, p.Reason, now); err != nil &&
			!errors.Is(err, store.ErrNotFound) {
			return err
		}
		var ident *store.DocIdentity
		if p.Review != nil {
			ident = p.Review.Identity
		}
		open, err := c.openReasons(ctx, tx, p.Tenant, p.JobKey, out.ResultID, jobID, ident, reasons, now)
		if err != nil {
			return err
		}
		out.Open = driver.Reasons(open)
		if len(open) == 0 {
			if _, err := moveHeld(ctx, tx, p.Tenant, p.JobKey, store.OutboxPending); err != nil {
				return err
			}
		}
		payload, err := driver.CorrectedPayload(p, out.Revision)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO outbox (tenant, event_suffix, result_id, action_id, kind, payload, payload_zst, created_at, state)
			VALUES (?, ?, ?, ?, ?, '', ?, ?, ?)`,
			p.Tenant, eventSuffix(p.JobKey, store.CorrectedEventKey(p.JobKey, out.Revision)), out.ResultID, store.EventCorrected,
			store.EventCorrected, c.pack(kindEvent, payload), now, driver.EventState(len(open))); err != nil {
			return fmt.Errorf("insert %s event: %w", store.EventCorrected, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("correct result of %s: %w", p.JobKey, err)
	}
	return &out, nil
}

// ListRevisions implements store.Store.
func (c *Core) ListRevisions(ctx context.Context, p *store.ListRevisionsParams) ([]*store.Revision, error) {
	rows, err := c.E.Read().Query(ctx, `SELECT revision, result_id, result, actor, reason, changes, created_at
		FROM result_revisions WHERE tenant = ? AND job_key = ? ORDER BY revision`, p.Tenant, bin(p.JobKey))
	out := []*store.Revision{}
	err = each(rows, err, func(rs Rows) error {
		var r store.Revision
		var body, changes string
		var created *int64
		if err := rs.Scan(&r.Revision, &r.ResultID, &body, &r.Actor, &r.Reason, &changes, &created); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(changes), &r.Changes); err != nil {
			return fmt.Errorf("revision %d changes: %w", r.Revision, err)
		}
		r.JSON, r.CreatedAt = []byte(body), fromMS(created)
		out = append(out, &r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list revisions of %s: %w", p.JobKey, err)
	}
	return out, nil
}

// GetPolicy implements store.Store.
func (c *Core) GetPolicy(ctx context.Context, p *store.GetPolicyParams) (*store.Policy, error) {
	pol := store.Policy{Tenant: p.Tenant}
	var require string
	var updated *int64
	err := c.E.Read().QueryRow(ctx, `SELECT require, updated_at, actor FROM review_policy WHERE tenant = ?`, p.Tenant).
		Scan(&require, &updated, &pol.Actor)
	if err != nil {
		return nil, fmt.Errorf("get review policy of %s: %w", p.Tenant, err)
	}
	if err := json.Unmarshal([]byte(require), &pol.Require); err != nil {
		return nil, fmt.Errorf("get review policy of %s: %w", p.Tenant, err)
	}
	pol.UpdatedAt = fromMS(updated)
	return &pol, nil
}

// SetPolicy implements store.Store.
func (c *Core) SetPolicy(ctx context.Context, p *store.SetPolicyParams) error {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("set review policy of %s: %w", p.Tenant, err)
	}
	_, err = c.E.Writer().Exec(ctx, `INSERT INTO review_policy (tenant, require, updated_at, actor) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant) DO UPDATE SET require = excluded.require, updated_at = excluded.updated_at, actor = excluded.actor`,
		p.Tenant, string(driver.PolicyJSON(p.Require)), now, c.E.Text(p.Actor))
	if err != nil {
		return fmt.Errorf("set review policy of %s: %w", p.Tenant, err)
	}
	return nil
}
