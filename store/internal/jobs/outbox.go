package jobs

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/invx/invx/store"
)

// outboxColumns read an event; a payload stored without its result
// (payload_result_at set, migration 013) also reads the result row's
// compressed JSON to put back.
const outboxColumns = `id, tenant, event_suffix, (SELECT r.job_key FROM results r WHERE r.id = outbox.result_id), action_id, kind, payload, payload_zst, state, attempts, created_at, delivered_at,
	next_try_at, coalesce(last_error, ''), lease_token, payload_result_at,
	CASE WHEN payload_result_at IS NOT NULL THEN (SELECT r.result_zst FROM results r WHERE r.id = outbox.result_id) END`

func scanOutbox(rows Rows, err error) ([]*store.OutboxEvent, error) {
	var out []*store.OutboxEvent
	err = each(rows, err, func(r Rows) error {
		var e store.OutboxEvent
		var created, delivered, next *int64
		var payload string
		var zst, resultZst []byte
		var at *int64
		var suffix string
		var action, kind *string
		if err := r.Scan(&e.ID, &e.Tenant, &suffix, keyOut(&e.JobKey), &action, &kind, &payload, &zst, &e.State, &e.Attempts,
			&created, &delivered, &next, &e.LastError, &e.Token, &at, &resultZst); err != nil {
			return err
		}
		body, err := unpack(zst, payload)
		if err != nil {
			return fmt.Errorf("payload of outbox event %d: %w", e.ID, err)
		}
		if at != nil {
			if resultZst == nil {
				return fmt.Errorf("payload of outbox event %d: its result is not stored compressed", e.ID)
			}
			result, err := unpack(resultZst, "")
			if err != nil {
				return fmt.Errorf("result in outbox event %d: %w", e.ID, err)
			}
			if body, err = spliceResult(body, at, result); err != nil {
				return fmt.Errorf("payload of outbox event %d: %w", e.ID, err)
			}
		}
		e.EventKey = eventKey(e.JobKey, suffix)
		e.ActionID, e.Kind = eventFill(suffix, action, kind)
		e.Payload = []byte(body)
		e.CreatedAt, e.DeliveredAt, e.NextTryAt = fromMS(created), fromMS(delivered), fromMS(next)
		out = append(out, &e)
		return nil
	})
	return out, err
}

// ListOutbox implements store.Store.
func (c *Core) ListOutbox(ctx context.Context, p *store.ListOutboxParams) ([]*store.OutboxEvent, error) {
	q := `SELECT ` + outboxColumns + ` FROM outbox WHERE 1 = 1`
	var args []any
	if p.Tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	if p.JobKey != "" {
		// The job's result, then its events by the unique index.
		q += ` AND result_id IN (SELECT id FROM results WHERE job_key = ?`
		args = append(args, bin(p.JobKey))
		if p.Tenant != "" {
			q += ` AND tenant = ?`
			args = append(args, p.Tenant)
		}
		q += `)`
	}
	if p.Pending {
		q += ` AND state IN ('pending', 'held', 'failed')`
	}
	q += ` ORDER BY id`
	if p.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, p.Limit)
	}
	out, err := scanOutbox(c.E.Read().Query(ctx, q, args...))
	if err != nil {
		return nil, fmt.Errorf("list outbox: %w", err)
	}
	return out, nil
}

// ClaimOutbox implements store.Store. Like job claims, events are taken
// under the engine's LockRows, so concurrent deliverers never take one
// event twice.
func (c *Core) ClaimOutbox(ctx context.Context, p *store.ClaimOutboxParams) ([]*store.OutboxEvent, error) {
	if p.Limit <= 0 {
		return nil, nil
	}
	nowT, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return nil, err // the caller names the claim
	}
	var out []*store.OutboxEvent
	err = c.write(ctx, regionOutbox, func(tx Tx) error {
		out = nil
		q := `SELECT id FROM outbox WHERE state = 'pending' AND coalesce(next_try_at, 0) <= ? AND coalesce(lease_expires_at, 0) <= ?`
		args := []any{now, now}
		if p.Tenant != "" {
			q += ` AND tenant = ?`
			args = append(args, p.Tenant)
		}
		q += ` ORDER BY id LIMIT ?` + c.E.LockRows()
		got, err := ids(tx.Query(ctx, q, append(args, p.Limit)...))
		if err != nil || len(got) == 0 {
			return err
		}
		args = []any{p.Owner, ms(nowT.Add(p.LeaseFor))}
		for _, id := range got {
			args = append(args, id)
		}
		if out, err = scanOutbox(tx.Query(ctx, `UPDATE outbox SET lease_owner = ?, lease_token = lease_token + 1,
				lease_expires_at = ?, attempts = attempts + 1
			WHERE id IN (`+Placeholders(len(got))+`) RETURNING `+outboxColumns, args...)); err != nil {
			return err
		}
		// RETURNING has no order: give them back oldest first.
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		return nil
	})
	if err != nil {
		return nil, err // the caller names the claim
	}
	return out, nil
}

// FinishOutbox implements store.Store.
func (c *Core) FinishOutbox(ctx context.Context, p *store.FinishOutboxParams) error {
	switch p.State {
	case store.OutboxDelivered, store.OutboxPending, store.OutboxFailed:
	default:
		return fmt.Errorf("finish outbox event %d: bad state %q", p.ID, p.State)
	}
	var delivered *int64
	next := p.NextTryAt
	if p.State == store.OutboxDelivered || !next.IsZero() {
		nowT, now, err := c.E.Clock(ctx, p.Now)
		if err != nil {
			return fmt.Errorf("finish outbox event %d: %w", p.ID, err)
		}
		next = later(next, p.Now, nowT)
		if p.State == store.OutboxDelivered {
			delivered = &now
		}
	}
	// The fence: only the current lease holder finishes the event.
	n, err := c.E.Writer().Exec(ctx, `UPDATE outbox SET state = ?, next_try_at = ?, last_error = ?, delivered_at = ?,
			lease_owner = NULL, lease_expires_at = NULL
		WHERE id = ? AND lease_token = ? AND state = 'pending'`,
		p.State, nullMS(next), c.E.Text(p.Error), delivered, p.ID, p.Token)
	if err != nil {
		return fmt.Errorf("finish outbox event %d: %w", p.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("finish outbox event %d: %w", p.ID, store.ErrStaleLease)
	}
	return nil
}

// RequeueOutbox implements store.Store.
func (c *Core) RequeueOutbox(ctx context.Context, p *store.RequeueOutboxParams) (int, error) {
	q := `UPDATE outbox SET state = 'pending', attempts = 0, next_try_at = NULL, lease_owner = NULL, lease_expires_at = NULL
		WHERE state = 'failed'`
	var args []any
	if p.Tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, p.Tenant)
	}
	if len(p.EventKeys) > 0 {
		// A key names (job key, suffix): the job's result, then a probe of
		// the unique index.
		q += ` AND (result_id, event_suffix) IN (SELECT r.id, k.column2 FROM (` +
			c.E.Values([]string{colBytes, colText}, len(p.EventKeys)) + `) AS k JOIN results r ON r.job_key = k.column1`
		for _, k := range p.EventKeys {
			jobKey, suffix, _ := strings.Cut(k, ":")
			args = append(args, bin(jobKey), suffix)
		}
		if p.Tenant != "" {
			q += ` AND r.tenant = ?`
			args = append(args, p.Tenant)
		}
		q += `)`
	}
	n, err := c.E.Writer().Exec(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("requeue outbox events: %w", err)
	}
	return int(n), nil
}
