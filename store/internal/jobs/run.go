package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/invx/invx/store"
)

// BeginRun implements store.Store.
func (c *Core) BeginRun(ctx context.Context, p *store.BeginRunParams) error {
	_, started, err := c.E.Clock(ctx, p.StartedAt)
	if err != nil {
		return fmt.Errorf("begin run %s: %w", p.ID, err)
	}
	_, err = c.E.Writer().Exec(ctx, `INSERT INTO runs (id, tenant, command, owner, provider, schema_version, started_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, p.ID, p.Tenant, p.Command, p.Owner, p.Provider, p.SchemaVersion, started)
	if err != nil {
		return fmt.Errorf("begin run %s: %w", p.ID, err)
	}
	return nil
}

// FinishRun implements store.Store. An empty summary is stored as NULL; a
// summary that is not JSON is refused, since Stats reads it as JSON.
func (c *Core) FinishRun(ctx context.Context, p *store.FinishRunParams) error {
	var summary *string
	if len(p.Summary) > 0 {
		if !json.Valid(p.Summary) {
			return fmt.Errorf("finish run %s: summary is not valid JSON", p.ID)
		}
		v := c.E.Text(string(p.Summary))
		summary = &v
	}
	_, finished, err := c.E.Clock(ctx, p.FinishedAt)
	if err != nil {
		return fmt.Errorf("finish run %s: %w", p.ID, err)
	}
	n, err := c.E.Writer().Exec(ctx, `UPDATE runs SET status = ?, finished_at = ?, summary = ? WHERE id = ?`,
		p.Status, finished, summary, p.ID)
	if err != nil {
		return fmt.Errorf("finish run %s: %w", p.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("finish run %s: %w", p.ID, store.ErrNotFound)
	}
	return nil
}

// ReapLeases implements store.Store: leases, runs and outbox leases of
// owners that are gone are expired, so they need not wait out their time.
func (c *Core) ReapLeases(ctx context.Context, p *store.ReapLeasesParams) (int, error) {
	if p.Alive == nil {
		return 0, errors.New("reap leases: no Alive function")
	}
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return 0, fmt.Errorf("reap leases: %w", err)
	}
	owners, err := strs(c.E.Read().Query(ctx, `SELECT DISTINCT lease_owner FROM jobs WHERE state = 'running' AND lease_owner IS NOT NULL`))
	if err != nil {
		return 0, fmt.Errorf("list lease owners: %w", err)
	}
	var gone []string
	for _, o := range owners {
		if !p.Alive(o) {
			gone = append(gone, o)
		}
	}
	if err := c.reapRuns(ctx, p, now); err != nil {
		return 0, err
	}
	if err := c.reapOutbox(ctx, p, now); err != nil {
		return 0, err
	}
	n := 0
	for _, o := range gone {
		k, err := c.E.Writer().Exec(ctx, `UPDATE jobs SET lease_expires_at = ?
			WHERE state = 'running' AND lease_owner = ? AND lease_expires_at > ?`, now, o, now)
		if err != nil {
			return n, fmt.Errorf("expire leases of %s: %w", o, err)
		}
		n += int(k)
	}
	return n, nil
}

// reapRuns marks runs whose process is gone as abandoned, so a SIGKILLed run
// does not look like it is still going.
func (c *Core) reapRuns(ctx context.Context, p *store.ReapLeasesParams, now int64) error {
	rows, err := c.E.Read().Query(ctx, `SELECT id, owner FROM runs WHERE status = 'running' AND owner <> ''`)
	var gone []string
	err = each(rows, err, func(r Rows) error {
		var id, owner string
		if err := r.Scan(&id, &owner); err != nil {
			return err
		}
		if !p.Alive(owner) {
			gone = append(gone, id)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list running runs: %w", err)
	}
	for _, id := range gone {
		if _, err := c.E.Writer().Exec(ctx, `UPDATE runs SET status = 'abandoned', finished_at = ? WHERE id = ? AND status = 'running'`,
			now, id); err != nil {
			return fmt.Errorf("mark run %s abandoned: %w", id, err)
		}
	}
	return nil
}

// LeasedOutboxQuery lists the owners of running outbox leases (now as
// argument): a range of the partial index outbox_leased (migration 019),
// which holds only events with a lease owner, not every pending event.
const LeasedOutboxQuery = `SELECT DISTINCT lease_owner FROM outbox WHERE state = 'pending' AND lease_owner IS NOT NULL
		AND lease_expires_at > ?`

// reapOutbox expires the outbox leases of deliverers that are gone.
func (c *Core) reapOutbox(ctx context.Context, p *store.ReapLeasesParams, now int64) error {
	owners, err := strs(c.E.Read().Query(ctx, LeasedOutboxQuery, now))
	if err != nil {
		return fmt.Errorf("list outbox lease owners: %w", err)
	}
	for _, o := range owners {
		if p.Alive(o) {
			continue
		}
		if _, err := c.E.Writer().Exec(ctx, `UPDATE outbox SET lease_expires_at = ? WHERE state = 'pending' AND lease_owner = ?`,
			now, o); err != nil {
			return fmt.Errorf("expire outbox leases of %s: %w", o, err)
		}
	}
	return nil
}
