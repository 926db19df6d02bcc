package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// openReasons opens a result's review reasons, inside the commit's (or the
// correction's) transaction: the caller's, then one per other live result
// with the same identity. It returns every reason it opened.
func openReasons(ctx context.Context, tx pgx.Tx, tenant, jobKey string, resultID, jobID int64, id *store.DocIdentity,
	reasons []store.ReviewReason, now int64) ([]store.ReviewReason, error) {
	if driver.Matchable(id) {
		// Two processes committing the same invoice at once would each miss
		// the other's uncommitted row (READ COMMITTED). The lock, held to
		// the end of the transaction, makes the second wait and then see
		// the first: exactly one of them is flagged. It is per invoice
		// number, not per supplier, because the supplier match is not one
		// key (VAT keys, else names).
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || E'\x1f' || $2, 0))`,
			tenant, id.NumberKey); err != nil {
			return nil, fmt.Errorf("lock invoice number: %w", err)
		}
		dups, err := findDuplicates(ctx, tx, tenant, resultID, jobID, id)
		if err != nil {
			return nil, err
		}
		for _, c := range dups {
			reasons = append(reasons, driver.DuplicateReason(c, id))
		}
	}
	if len(reasons) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	for _, r := range reasons {
		b.Queue(`INSERT INTO review_reasons (tenant, job_key, result_id, reason, detail, state, opened_at)
			VALUES ($1, $2, $3, $4, $5, 'open', $6)`, tenant, jobKey, resultID, r.Reason, string(r.Detail), now)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("open review reasons: %w", err)
	}
	return reasons, nil
}

// findDuplicates is the one index lookup (results_identity) for other live,
// non-shadow results of the tenant with the same invoice number and
// supplier (VAT keys when both have one, else name keys), leaving out the
// result itself, results of the same text (another schema version) and
// the result this job's text replaces (a held change accepted in review).
func findDuplicates(ctx context.Context, tx pgx.Tx, tenant string, resultID, jobID int64, id *store.DocIdentity) ([]driver.Candidate, error) {
	rows, err := tx.Query(ctx, `SELECT r.id, r.job_key, coalesce(j.display_path, j.source_path), r.schema_version,
			r.doc_total_minor, r.doc_issue_date
		FROM results r JOIN jobs j ON j.id = r.job_id
		WHERE r.tenant = $1 AND r.number_key = $2 AND r.superseded_by IS NULL AND NOT r.shadow AND r.id <> $3
			AND r.source_digest <> (SELECT source_digest FROM results WHERE id = $3)
			AND r.job_key <> coalesce((SELECT prev_job_key FROM jobs WHERE id = $4), '')
			AND CASE WHEN r.supplier_vat_key IS NOT NULL AND $5 <> '' THEN r.supplier_vat_key = $5 ELSE r.supplier_key = $6 END
		ORDER BY r.id LIMIT $7`,
		tenant, id.NumberKey, resultID, jobID, id.VATKey, id.NameKey, driver.MaxDuplicates)
	if err != nil {
		return nil, fmt.Errorf("look for duplicates: %w", err)
	}
	var c driver.Candidate
	var out []driver.Candidate
	_, err = pgx.ForEachRow(rows, []any{&c.ResultID, &c.JobKey, &c.Path, &c.SchemaVersion, &c.TotalMinor, &c.IssueDate},
		func() error {
			out = append(out, c)
			c = driver.Candidate{}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("look for duplicates: %w", err)
	}
	return out, nil
}

// ListReview implements store.Store.
func (s *Store) ListReview(ctx context.Context, p *store.ListReviewParams) ([]*store.ReviewItem, error) {
	var a args
	q := `SELECT v.id, v.tenant, v.job_key, v.result_id, r.revision, coalesce(j.display_path, j.source_path), r.schema_version,
			v.reason, v.detail, v.opened_at
		FROM review_reasons v JOIN results r ON r.id = v.result_id JOIN jobs j ON j.id = r.job_id
		WHERE v.state = 'open'`
	if !p.AllTenants {
		q += ` AND v.tenant = ` + a.add(p.Tenant)
	}
	if p.Reason != "" {
		q += ` AND v.reason = ` + a.add(p.Reason)
	}
	rows, err := s.pool.Query(ctx, q+` ORDER BY v.id`, a...)
	if err != nil {
		return nil, fmt.Errorf("list review: %w", interpret(err))
	}
	var it store.ReviewItem
	var detail string
	var opened *int64
	var out []*store.ReviewItem
	_, err = pgx.ForEachRow(rows, []any{&it.ID, &it.Tenant, &it.JobKey, &it.ResultID, &it.Revision, &it.Path, &it.SchemaVersion,
		&it.Reason, &detail, &opened}, func() error {
		c := it
		c.Detail, c.OpenedAt = []byte(detail), fromMS(opened)
		out = append(out, &c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list review: %w", interpret(err))
	}
	return out, nil
}

// closeReasons closes a job's open reasons as state and returns how many
// and the result they belong to; ErrNotFound when none was open.
func closeReasons(ctx context.Context, tx pgx.Tx, tenant, jobKey, state, actor, note string, now int64) (int, int64, error) {
	rows, err := tx.Query(ctx, `UPDATE review_reasons SET state = $1, closed_at = $2, actor = $3, note = $4
		WHERE tenant = $5 AND job_key = $6 AND state = 'open' RETURNING result_id`, state, now, text(actor), text(note), tenant, jobKey)
	if err != nil {
		return 0, 0, fmt.Errorf("close review reasons: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, 0, fmt.Errorf("close review reasons: %w", err)
	}
	if len(ids) == 0 {
		return 0, 0, store.ErrNotFound
	}
	return len(ids), ids[0], nil
}

// moveHeld moves a job's held events to state (pending or cancelled).
func moveHeld(ctx context.Context, tx pgx.Tx, tenant, jobKey, state string) (int, error) {
	tag, err := tx.Exec(ctx, `UPDATE outbox SET state = $1 WHERE tenant = $2 AND job_key = $3 AND state = 'held'`,
		state, tenant, jobKey)
	if err != nil {
		return 0, fmt.Errorf("move held events to %s: %w", state, err)
	}
	return int(tag.RowsAffected()), nil
}

// AcceptReview implements store.Store.
func (s *Store) AcceptReview(ctx context.Context, p *store.ReviewActionParams) (*store.ReviewActionResult, error) {
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("accept review of %s: %w", p.JobKey, err)
	}
	var out store.ReviewActionResult
	err = s.tx(ctx, func(tx pgx.Tx) error {
		out = store.ReviewActionResult{}
		var err error
		if out.Reasons, _, err = closeReasons(ctx, tx, p.Tenant, p.JobKey, store.ReviewAccepted, p.Actor, p.Note, now); err != nil {
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
func (s *Store) DismissReview(ctx context.Context, p *store.ReviewActionParams) (*store.ReviewActionResult, error) {
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("dismiss review of %s: %w", p.JobKey, err)
	}
	var out store.ReviewActionResult
	err = s.tx(ctx, func(tx pgx.Tx) error {
		out = store.ReviewActionResult{}
		var resultID int64
		var err error
		if out.Reasons, resultID, err = closeReasons(ctx, tx, p.Tenant, p.JobKey, store.ReviewDismissed, p.Actor, p.Note, now); err != nil {
			return err
		}
		if out.Events, err = moveHeld(ctx, tx, p.Tenant, p.JobKey, store.OutboxCancelled); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (tenant, event_key) DO NOTHING`,
			p.Tenant, store.DismissedEventKey(p.JobKey), p.JobKey, resultID, store.EventDismissed, store.EventDismissed,
			string(driver.DismissedPayload(p)), now)
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
func (s *Store) CorrectResult(ctx context.Context, p *store.CorrectParams) (*store.CorrectResult, error) {
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
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("correct result of %s: %w", p.JobKey, err)
	}
	var out store.CorrectResult
	err = s.tx(ctx, func(tx pgx.Tx) error {
		out = store.CorrectResult{}
		id := driver.IdentityOf(p.Review, false)
		var jobID int64
		// The result's identity becomes the corrected one; the row's
		// result column keeps revision 0. The row stays locked until the
		// transaction ends, so two corrections of one result take turns.
		err := tx.QueryRow(ctx, `UPDATE results SET revision = revision + 1, supplier_vat_key = $1, supplier_key = $2,
				number_key = $3, doc_total_minor = $4, doc_issue_date = $5,
				source_digest = coalesce(source_digest, (SELECT source_digest FROM jobs WHERE id = results.job_id))
			WHERE tenant = $6 AND job_key = $7 AND NOT shadow AND superseded_by IS NULL
			RETURNING id, revision, job_id`,
			id.VATKey, id.NameKey, id.NumberKey, id.TotalMinor, id.IssueDate, p.Tenant, p.JobKey).
			Scan(&out.ResultID, &out.Revision, &jobID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("no result to correct: %w", store.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO result_revisions (tenant, job_key, result_id, revision, result, actor, reason,
				changes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			p.Tenant, p.JobKey, out.ResultID, out.Revision, string(p.Result), text(p.Actor), text(p.Reason), string(changes), now); err != nil {
			return fmt.Errorf("insert revision %d: %w", out.Revision, err)
		}
		if _, _, err := closeReasons(ctx, tx, p.Tenant, p.JobKey, store.ReviewCorrected, p.Actor, p.Reason, now); err != nil &&
			!errors.Is(err, store.ErrNotFound) {
			return err
		}
		var ident *store.DocIdentity
		if p.Review != nil {
			ident = p.Review.Identity
		}
		open, err := openReasons(ctx, tx, p.Tenant, p.JobKey, out.ResultID, jobID, ident, reasons, now)
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
		if _, err := tx.Exec(ctx, `INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, created_at, state)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			p.Tenant, store.CorrectedEventKey(p.JobKey, out.Revision), p.JobKey, out.ResultID, store.EventCorrected,
			store.EventCorrected, string(payload), now, driver.EventState(len(open))); err != nil {
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
func (s *Store) ListRevisions(ctx context.Context, p *store.ListRevisionsParams) ([]*store.Revision, error) {
	rows, err := s.pool.Query(ctx, `SELECT revision, result_id, result, actor, reason, changes, created_at
		FROM result_revisions WHERE tenant = $1 AND job_key = $2 ORDER BY revision`, p.Tenant, p.JobKey)
	if err != nil {
		return nil, fmt.Errorf("list revisions of %s: %w", p.JobKey, interpret(err))
	}
	var r store.Revision
	var body, changes string
	var created *int64
	out := []*store.Revision{}
	_, err = pgx.ForEachRow(rows, []any{&r.Revision, &r.ResultID, &body, &r.Actor, &r.Reason, &changes, &created}, func() error {
		c := r
		c.Changes = nil
		if err := json.Unmarshal([]byte(changes), &c.Changes); err != nil {
			return fmt.Errorf("revision %d changes: %w", c.Revision, err)
		}
		c.JSON, c.CreatedAt = []byte(body), fromMS(created)
		out = append(out, &c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list revisions of %s: %w", p.JobKey, interpret(err))
	}
	return out, nil
}

// GetPolicy implements store.Store.
func (s *Store) GetPolicy(ctx context.Context, p *store.GetPolicyParams) (*store.Policy, error) {
	pol := store.Policy{Tenant: p.Tenant}
	var require string
	var updated *int64
	err := s.pool.QueryRow(ctx, `SELECT require, updated_at, actor FROM review_policy WHERE tenant = $1`, p.Tenant).
		Scan(&require, &updated, &pol.Actor)
	if err != nil {
		return nil, fmt.Errorf("get review policy of %s: %w", p.Tenant, interpret(err))
	}
	if err := json.Unmarshal([]byte(require), &pol.Require); err != nil {
		return nil, fmt.Errorf("get review policy of %s: %w", p.Tenant, err)
	}
	pol.UpdatedAt = fromMS(updated)
	return &pol, nil
}

// SetPolicy implements store.Store.
func (s *Store) SetPolicy(ctx context.Context, p *store.SetPolicyParams) error {
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("set review policy of %s: %w", p.Tenant, err)
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO review_policy (tenant, require, updated_at, actor) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant) DO UPDATE SET require = EXCLUDED.require, updated_at = EXCLUDED.updated_at, actor = EXCLUDED.actor`,
		p.Tenant, string(driver.PolicyJSON(p.Require)), now, text(p.Actor))
	if err != nil {
		return fmt.Errorf("set review policy of %s: %w", p.Tenant, interpret(err))
	}
	return nil
}

// review counts open review reasons by reason, at any time: an open item
// is work waiting, however old.
func (q *statsQuery) review(ctx context.Context) error {
	var a args
	var t, reason string
	var n int
	return q.each(ctx, `SELECT tenant, reason, count(*) FROM review_reasons WHERE state = 'open'`+q.tenantOnly(&a)+` GROUP BY 1, 2`,
		a, []any{&t, &reason, &n}, func() error {
			q.b.AddReviewOpen(t, reason, n)
			return nil
		})
}
