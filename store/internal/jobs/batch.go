package jobs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/invx/invx/store"
)

// openBatch is the condition of a batch still polled or collected.
const openBatch = `state IN ('preparing', 'submitted')`

// batchColumns are the columns scanBatch reads, in its order.
const batchColumns = `id, provider, model, coalesce(remote_id, ''), coalesce(input_file_id, ''), state, remote_status, requests,
	done, failed, coalesce(owner, ''), token, lease_expires_at, run_id, coalesce(parent_id, 0), created_at, submitted_at,
	ended_at, message`

func scanBatch(r Row) (*store.Batch, error) {
	var b store.Batch
	var lease, created, submitted, ended *int64
	if err := r.Scan(&b.ID, &b.Provider, &b.Model, &b.RemoteID, &b.InputFileID, &b.State, &b.RemoteStatus, &b.Requests,
		&b.Done, &b.Failed, &b.Owner, &b.Token, &lease, &b.RunID, &b.Parent, &created, &submitted, &ended, &b.Message); err != nil {
		return nil, err
	}
	b.LeaseExpires, b.CreatedAt, b.SubmittedAt, b.EndedAt = fromMS(lease), fromMS(created), fromMS(submitted), fromMS(ended)
	return &b, nil
}

func scanBatches(rows Rows, err error) ([]*store.Batch, error) {
	var out []*store.Batch
	err = each(rows, err, func(r Rows) error {
		b, err := scanBatch(r)
		if err != nil {
			return err
		}
		out = append(out, b)
		return nil
	})
	return out, err
}

// emptyBatch is the message of a batch none of whose jobs still held its
// lease when it was recorded.
const emptyBatch = "no item's job held its lease: nothing to submit"

// itemBatch bounds the items one statement of CreateBatch names.
const itemBatch = 200

// CreateBatch implements store.Store. The batch row, the extended job
// leases and the items are one transaction: a batch is either recorded with
// every job it holds, or not at all.
func (c *Core) CreateBatch(ctx context.Context, p *store.CreateBatchParams) (*store.CreateBatchResult, error) {
	nowT, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("create batch: %w", err)
	}
	hold := later(p.HoldUntil, p.Now, nowT)
	var res *store.CreateBatchResult
	err = c.write(ctx, regionBatch, func(tx Tx) error {
		res = &store.CreateBatchResult{}
		var err error
		var parent *int64
		if p.Parent != 0 {
			parent = &p.Parent
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO batches (provider, model, state, owner, token, lease_expires_at, run_id, parent_id,
				created_at, requests)
			VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, 0) RETURNING id`,
			p.Provider, p.Model, store.BatchPreparing, p.Owner, ms(nowT.Add(p.LeaseFor)), p.RunID, parent, now).Scan(&id); err != nil {
			return fmt.Errorf("insert batch: %w", err)
		}
		kept := 0
		for start := 0; start < len(p.Items); start += itemBatch {
			items := p.Items[start:min(start+itemBatch, len(p.Items))]
			held, err := c.holdItems(ctx, tx, items, hold)
			if err != nil {
				return err
			}
			var values []string
			var args []any
			for _, it := range items {
				if !held[it.JobID] {
					res.Dropped = append(res.Dropped, it.JobID)
					continue
				}
				values = append(values, `(?, ?, ?, ?, ?)`)
				args = append(args, id, it.CustomID, it.JobID, it.Token, it.AttemptID)
			}
			if len(values) == 0 {
				continue
			}
			if err := tx.Defer(ctx, `INSERT INTO batch_items (batch_id, custom_id, job_id, token, attempt_id) VALUES `+
				strings.Join(values, ", "), args...); err != nil {
				return fmt.Errorf("insert batch items: %w", err)
			}
			kept += len(values)
		}
		if kept == 0 {
			// Nothing to send: recorded as ended, so no collector ever
			// takes it for one that died before submitting.
			err = tx.Defer(ctx, `UPDATE batches SET state = ?, ended_at = ?, lease_expires_at = NULL, message = ? WHERE id = ?`,
				store.BatchCancelled, now, emptyBatch, id)
		} else {
			err = tx.Defer(ctx, `UPDATE batches SET requests = ? WHERE id = ?`, kept, id)
		}
		if err != nil {
			return err
		}
		if err := tx.Flush(ctx); err != nil {
			return fmt.Errorf("insert batch items: %w", err)
		}
		res.Batch, err = scanBatch(tx.QueryRow(ctx, `SELECT `+batchColumns+` FROM batches WHERE id = ?`, id))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create batch: %w", err)
	}
	return res, nil
}

// holdItems extends the job lease of each item whose job still holds the
// item's token (running) to hold, and reports which jobs it extended: the
// job lease fence, as a worker's Renew, one statement for many jobs.
func (c *Core) holdItems(ctx context.Context, tx Tx, items []store.BatchItemInput, hold time.Time) (map[int64]bool, error) {
	conds := make([]string, len(items))
	args := []any{ms(hold), ms(hold)}
	for i, it := range items {
		conds[i] = `(id = ? AND lease_token = ?)`
		args = append(args, it.JobID, it.Token)
	}
	// Never shortened: a lease already held longer keeps its time.
	got, err := ids(tx.Query(ctx, `UPDATE jobs SET lease_expires_at = CASE WHEN lease_expires_at < ? THEN ? ELSE lease_expires_at END
		WHERE state = 'running' AND (`+
		strings.Join(conds, " OR ")+`) RETURNING id`, args...))
	if err != nil {
		return nil, fmt.Errorf("hold batch jobs: %w", err)
	}
	held := make(map[int64]bool, len(got))
	for _, id := range got {
		held[id] = true
	}
	return held, nil
}

// fenced runs a write to one batch that only its lease holder may make:
// q must end in "WHERE id = ? AND token = ?" (and may add conditions after
// it, with their args in more). No row changed means the token is stale.
func (c *Core) fenced(ctx context.Context, q Querier, op string, id, token int64, stmt string, args []any, more ...any) error {
	args = append(append(args, id, token), more...)
	n, err := q.Exec(ctx, stmt, args...)
	if err != nil {
		return fmt.Errorf("%s batch %d: %w", op, id, err)
	}
	if n == 0 {
		return fmt.Errorf("%s batch %d: %w", op, id, store.ErrStaleLease)
	}
	return nil
}

// SubmittedBatch implements store.Store. Recording the same acceptance
// again (a retried call) is harmless.
func (c *Core) SubmittedBatch(ctx context.Context, p *store.SubmittedBatchParams) error {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("record submitted batch %d: %w", p.ID, err)
	}
	t := c.E.Text
	return c.fenced(ctx, c.E.Writer(), "record submitted", p.ID, p.Token,
		`UPDATE batches SET state = ?, remote_id = ?, input_file_id = ?, remote_status = ?, submitted_at = coalesce(submitted_at, ?)
		WHERE id = ? AND token = ? AND `+openBatch,
		[]any{store.BatchSubmitted, c.nullText(p.RemoteID), c.nullText(p.InputFileID), t(p.Status), now})
}

// ClaimBatches implements store.Store. The engine's LockRows keeps two
// collectors from taking one batch (and from waiting for each other).
func (c *Core) ClaimBatches(ctx context.Context, p *store.ClaimBatchesParams) ([]*store.Batch, error) {
	nowT, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("claim batches: %w", err)
	}
	hold := later(p.HoldUntil, p.Now, nowT)
	var out []*store.Batch
	err = c.write(ctx, regionBatch, func(tx Tx) error {
		out = nil
		q := `SELECT id FROM batches WHERE ` + openBatch + ` AND (lease_expires_at IS NULL OR lease_expires_at <= ?)`
		args := []any{now}
		if p.Provider != "" {
			q += ` AND provider = ?`
			args = append(args, p.Provider)
		}
		if len(p.IDs) > 0 {
			q += ` AND id IN (` + Placeholders(len(p.IDs)) + `)`
			for _, id := range p.IDs {
				args = append(args, id)
			}
		}
		q += ` ORDER BY id`
		if p.Limit > 0 {
			q += ` LIMIT ?`
			args = append(args, p.Limit)
		}
		picked, err := ids(tx.Query(ctx, q+c.E.LockRows(), args...))
		if err != nil {
			return fmt.Errorf("find claimable batches: %w", err)
		}
		if len(picked) == 0 {
			return nil
		}
		in := make([]any, len(picked))
		for i, id := range picked {
			in[i] = id
		}
		if out, err = scanBatches(tx.Query(ctx, `UPDATE batches SET owner = ?, token = token + 1, lease_expires_at = ?
			WHERE id IN (`+Placeholders(len(in))+`) RETURNING `+batchColumns,
			append([]any{p.Owner, ms(nowT.Add(p.LeaseFor))}, in...)...)); err != nil {
			return fmt.Errorf("lease batches: %w", err)
		}
		if hold.IsZero() {
			return nil
		}
		// Only jobs that still hold their item's token: a job settled or
		// taken over since is someone else's.
		if _, err := tx.Exec(ctx, `UPDATE jobs SET lease_expires_at = ?
			WHERE state = 'running' AND lease_expires_at < ? AND EXISTS (SELECT 1 FROM batch_items bi
				WHERE bi.batch_id IN (`+Placeholders(len(in))+`) AND bi.job_id = jobs.id AND bi.token = jobs.lease_token)`,
			append([]any{ms(hold), ms(hold)}, in...)...); err != nil {
			return fmt.Errorf("hold batch jobs: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim batches: %w", err)
	}
	// RETURNING promises no order.
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// RenewBatch implements store.Store.
func (c *Core) RenewBatch(ctx context.Context, p *store.RenewBatchParams) (time.Time, error) {
	nowT, _, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return time.Time{}, fmt.Errorf("renew batch %d: %w", p.ID, err)
	}
	expires := nowT.Add(p.LeaseFor).UTC()
	err = c.fenced(ctx, c.E.Writer(), "renew", p.ID, p.Token,
		`UPDATE batches SET lease_expires_at = ?, remote_status = ?, done = ?, failed = ?
		WHERE id = ? AND token = ? AND `+openBatch,
		[]any{ms(expires), c.E.Text(p.RemoteStatus), p.Done, p.Failed})
	if err != nil {
		return time.Time{}, err
	}
	return expires, nil
}

// FinishBatch implements store.Store. Finishing a batch again in the same
// state (a retried call) is harmless; moving a finished batch to another
// state is not allowed.
func (c *Core) FinishBatch(ctx context.Context, p *store.FinishBatchParams) error {
	switch p.State {
	case store.BatchCollected, store.BatchCancelled, store.BatchFailed:
	default:
		return fmt.Errorf("finish batch %d: bad state %q", p.ID, p.State)
	}
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("finish batch %d: %w", p.ID, err)
	}
	t := c.E.Text
	return c.fenced(ctx, c.E.Writer(), "finish", p.ID, p.Token,
		`UPDATE batches SET state = ?, remote_status = CASE WHEN ? = '' THEN remote_status ELSE ? END, message = ?,
			ended_at = coalesce(ended_at, ?), lease_expires_at = NULL
		WHERE id = ? AND token = ? AND (`+openBatch+` OR state = ?)`,
		[]any{p.State, t(p.RemoteStatus), t(p.RemoteStatus), t(p.Message), now}, p.State)
}

// BatchItems implements store.Store. A held item's Lease is read exactly as
// Claim reads one (leaseColumns), with the item's attempt.
func (c *Core) BatchItems(ctx context.Context, p *store.BatchItemsParams) ([]*store.BatchItem, error) {
	q := `SELECT bi.batch_id, bi.custom_id, bi.token, bi.attempt_id, a.attempt_no, a.outcome,
			j.state = 'running' AND j.lease_token = bi.token, j.lease_expires_at, ` + leaseColumns("j.") + `
		FROM batch_items bi JOIN jobs j ON j.id = bi.job_id JOIN attempts a ON a.id = bi.attempt_id
		WHERE bi.batch_id = ?`
	args := []any{p.BatchID}
	if len(p.CustomIDs) > 0 {
		q += ` AND bi.custom_id IN (` + Placeholders(len(p.CustomIDs)) + `)`
		for _, id := range p.CustomIDs {
			args = append(args, id)
		}
	}
	var out []*store.BatchItem
	var held []*store.Lease
	rows, err := c.E.Read().Query(ctx, q+` ORDER BY bi.custom_id`, args...)
	err = each(rows, err, func(r Rows) error {
		var it store.BatchItem
		var l store.Lease
		var expires *int64
		var zst []byte
		dest := append([]any{&it.BatchID, &it.CustomID, &it.Token, &it.AttemptID, &it.AttemptNo, &it.AttemptOutcome, &it.Held,
			&expires}, leaseDest(&l, &zst)...)
		if err := r.Scan(dest...); err != nil {
			return err
		}
		it.JobID, it.Tenant, it.JobKey = l.JobID, l.Tenant, l.JobKey
		if it.Held {
			l.AttemptID, l.AttemptNo, l.ExpiresAt = it.AttemptID, it.AttemptNo, fromMS(expires)
			settleLease(&l)
			if err := unpackLease(&l, zst); err != nil {
				return err
			}
			it.Lease = &l
			held = append(held, &l)
		}
		out = append(out, &it)
		return nil
	})
	if err == nil {
		err = addPrevTokens(ctx, c.E.Read(), held)
	}
	if err != nil {
		return nil, fmt.Errorf("items of batch %d: %w", p.BatchID, err)
	}
	return out, nil
}

// ListBatches implements store.Store.
func (c *Core) ListBatches(ctx context.Context, p *store.ListBatchesParams) ([]*store.Batch, error) {
	q := `SELECT ` + batchColumns + ` FROM batches`
	var args []any
	if len(p.States) > 0 {
		q += ` WHERE state IN (` + Placeholders(len(p.States)) + `)`
		for _, st := range p.States {
			args = append(args, st)
		}
	}
	q += ` ORDER BY id DESC`
	if p.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, p.Limit)
	}
	out, err := scanBatches(c.E.Read().Query(ctx, q, args...))
	if err != nil {
		return nil, fmt.Errorf("list batches: %w", err)
	}
	return out, nil
}

// GetBatch implements store.Store.
func (c *Core) GetBatch(ctx context.Context, p *store.GetBatchParams) (*store.Batch, error) {
	var b *store.Batch
	var err error
	switch {
	case p.ID != 0:
		b, err = scanBatch(c.E.Read().QueryRow(ctx, `SELECT `+batchColumns+` FROM batches WHERE id = ?`, p.ID))
	case p.RemoteID != "":
		// Unique per provider; the newest should two providers ever share one.
		b, err = scanBatch(c.E.Read().QueryRow(ctx, `SELECT `+batchColumns+` FROM batches WHERE remote_id = ?
			ORDER BY id DESC LIMIT 1`, p.RemoteID))
	default:
		return nil, errors.New("get batch: name an id or a remote id")
	}
	if err != nil {
		return nil, fmt.Errorf("get batch %d%s: %w", p.ID, p.RemoteID, err)
	}
	return b, nil
}
