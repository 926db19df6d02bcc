package jobs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// claimable lists the three ways a job becomes claimable, in the order a
// tenant's jobs are taken: expired leases and retries that came due before
// new work. Each query walks the (state, tenant, id) index, so finished jobs
// are never scanned.
var claimable = []struct {
	state     string
	due       string // the column that must have come due, if any
	recovered bool
}{
	{store.StateRunning, "lease_expires_at", true},
	{store.StateRetryWait, "next_attempt_at", false},
	{store.StateQueued, "", false},
}

// claimWhere is a kind's condition, narrowed to one schema version when
// version is set (ClaimParams.SchemaVersion), with its arguments.
func claimWhere(state, due string, now int64, version string) (string, []any) {
	w, args := `state = ?`, []any{state}
	if due != "" {
		w, args = w+` AND `+due+` <= ?`, append(args, now)
	}
	if version != "" {
		w, args = w+` AND schema_version = ?`, append(args, version)
	}
	return w, args
}

// Claim implements store.Store. Leases go to tenants in turn, the tenant
// with the fewest live leases first, then the one served longest ago, so one
// tenant's large batch cannot starve a small one. The engine's LockRows
// keeps concurrent claimers from leasing one job twice (and from waiting
// for each other's rows). With MaxPerTenant, a tenant is served by one
// claimer at a time (the engine's LockTenant, tried, never waited for),
// which recounts its live leases first, so the cap holds across processes.
func (c *Core) Claim(ctx context.Context, p *store.ClaimParams) ([]*store.Lease, error) {
	if p.Limit <= 0 {
		return nil, nil
	}
	nowT, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return nil, err // the caller names the claim; the steps name themselves
	}
	var leases []*store.Lease
	err = c.E.Write(ctx, func(tx Tx) error {
		leases = leases[:0]
		inflight, err := liveLeases(ctx, tx, p.Tenant, now)
		if err != nil {
			return err
		}
		tenants := []string{p.Tenant}
		if p.Tenant == "" {
			if tenants, err = tenantsWithWork(ctx, tx, now, p.SchemaVersion); err != nil {
				return err
			}
		}
		served, err := lastServed(ctx, tx, tenants)
		if err != nil {
			return err
		}
		exhausted := map[string]bool{}
		locked := map[string]bool{}
		for len(leases) < p.Limit {
			t, ok := driver.NextTenant(tenants, inflight, served, exhausted, p.MaxPerTenant)
			if !ok {
				return nil
			}
			if p.MaxPerTenant > 0 && !locked[t] {
				n, ok, err := c.lockTenant(ctx, tx, t, now)
				if err != nil {
					return err
				}
				if !ok {
					exhausted[t] = true // another claimer is serving it now
					continue
				}
				locked[t], inflight[t] = true, n
				continue // choose again with the fresh count
			}
			l, err := c.claimOne(ctx, tx, p, t, nowT, now)
			if err != nil {
				return err
			}
			if l == nil {
				exhausted[t] = true
				continue
			}
			inflight[t]++
			served[t] = l.AttemptID
			leases = append(leases, l)
		}
		return nil
	})
	if err != nil {
		return nil, err // the caller names the claim; the steps name themselves
	}
	return leases, nil
}

// lockTenant tries to take the tenant's claim lock for this transaction and
// returns its live leases counted after taking it: any claimer that held it
// before has committed, so its leases are counted.
func (c *Core) lockTenant(ctx context.Context, tx Tx, tenant string, now int64) (int, bool, error) {
	ok, err := c.E.LockTenant(ctx, tx, tenant)
	if err != nil {
		return 0, false, fmt.Errorf("lock tenant %s: %w", tenant, err)
	}
	if !ok {
		return 0, false, nil
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE state = 'running' AND lease_expires_at > ? AND tenant = ?`,
		now, tenant).Scan(&n); err != nil {
		return 0, false, fmt.Errorf("count live leases of %s: %w", tenant, err)
	}
	return n, true, nil
}

// lastServed is each tenant's newest attempt id: the attempt table is the
// scheduler's memory of whom it served last.
func lastServed(ctx context.Context, tx Tx, tenants []string) (map[string]int64, error) {
	out := make(map[string]int64, len(tenants))
	if len(tenants) < 2 {
		return out, nil
	}
	for _, t := range tenants {
		var id int64
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM attempts WHERE tenant = ?`, t).Scan(&id); err != nil {
			return nil, fmt.Errorf("last attempt of tenant %s: %w", t, err)
		}
		out[t] = id
	}
	return out, nil
}

func liveLeases(ctx context.Context, tx Tx, tenant string, now int64) (map[string]int, error) {
	q := `SELECT tenant, count(*) FROM jobs WHERE state = 'running' AND lease_expires_at > ?`
	args := []any{now}
	if tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, tenant)
	}
	rows, err := tx.Query(ctx, q+` GROUP BY tenant`, args...)
	out := map[string]int{}
	err = each(rows, err, func(r Rows) error {
		var t string
		var n int
		if err := r.Scan(&t, &n); err != nil {
			return err
		}
		out[t] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count live leases: %w", err)
	}
	return out, nil
}

// tenantsWithWork lists the tenants with a claimable job, sorted. Each kind
// is read as a loose index scan over (state, tenant, id): one index probe
// per tenant, however many jobs a tenant has queued.
func tenantsWithWork(ctx context.Context, tx Tx, now int64, version string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, k := range claimable {
		w, args := claimWhere(k.state, k.due, now, version)
		q := `WITH RECURSIVE t (tenant) AS (
				SELECT tenant FROM (SELECT tenant FROM jobs WHERE ` + w + ` ORDER BY tenant LIMIT 1) AS lowest
				UNION ALL
				SELECT (SELECT j.tenant FROM jobs j WHERE ` + w + ` AND j.tenant > t.tenant ORDER BY j.tenant LIMIT 1)
				FROM t WHERE t.tenant IS NOT NULL)
			SELECT tenant FROM t WHERE tenant IS NOT NULL`
		ts, err := strs(tx.Query(ctx, q, append(args, args...)...))
		if err != nil {
			return nil, fmt.Errorf("find tenants with work: %w", err)
		}
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// claimOne leases the tenant's next claimable job, or returns nil: expired
// leases and retries that came due before new work, oldest first.
func (c *Core) claimOne(ctx context.Context, tx Tx, p *store.ClaimParams, tenant string, nowT time.Time, now int64) (*store.Lease, error) {
	for _, k := range claimable {
		w, args := claimWhere(k.state, k.due, now, p.SchemaVersion)
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM jobs WHERE `+w+` AND tenant = ? ORDER BY id LIMIT 1`+c.E.LockRows(),
			append(args, tenant)...).Scan(&id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find claimable job: %w", err)
		}
		l, err := grant(ctx, tx, p, id, k.recovered, nowT, now)
		if err != nil {
			return nil, fmt.Errorf("lease job %d: %w", id, err)
		}
		return l, nil
	}
	return nil, nil
}

// grant leases job id: a new lease token, one more attempt, and the
// attempt's row.
func grant(ctx context.Context, tx Tx, p *store.ClaimParams, id int64, recovered bool, nowT time.Time, now int64) (*store.Lease, error) {
	expires := nowT.Add(p.LeaseFor)
	l := &store.Lease{JobID: id, ExpiresAt: expires.UTC(), Recovered: recovered}
	recoveries := 0
	if recovered {
		recoveries = 1
	}
	err := tx.QueryRow(ctx, `UPDATE jobs SET state = 'running', lease_owner = ?, lease_token = lease_token + 1,
			lease_expires_at = ?, attempts = attempts + 1, lease_recoveries = lease_recoveries + ?, updated_at = ?
		WHERE id = ?
		RETURNING tenant, job_key, schema_version, source_path, coalesce(source_text, ''), lease_token, attempts, budget_base,
			lease_recoveries - recovery_base`,
		p.Owner, ms(expires), recoveries, now, id).
		Scan(&l.Tenant, &l.JobKey, &l.SchemaVersion, &l.SourcePath, &l.Text, &l.Token, &l.AttemptNo, &l.BudgetBase, &l.Recoveries)
	if err != nil {
		return nil, err
	}
	// Attempts lost to expired leases are not provider attempts.
	l.BudgetBase += l.Recoveries
	l.PrevAttempts = l.AttemptNo - 1
	if l.PrevAttempts > 0 {
		if err := tx.QueryRow(ctx, `SELECT CAST(coalesce(sum(input_tokens + output_tokens), 0) AS BIGINT) FROM attempts WHERE job_id = ?`,
			id).Scan(&l.PrevTokens); err != nil {
			return nil, err
		}
	}
	if recovered {
		// The previous holder's attempt never reported back.
		if err := tx.Defer(ctx, `UPDATE attempts SET outcome = ?, finished_at = ? WHERE job_id = ? AND outcome = ''`,
			store.OutcomeLeaseExpired, now, id); err != nil {
			return nil, err
		}
	}
	err = tx.QueryRow(ctx, `INSERT INTO attempts (job_id, tenant, attempt_no, run_id, owner, lease_token, started_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		id, l.Tenant, l.AttemptNo, p.RunID, p.Owner, l.Token, now).Scan(&l.AttemptID)
	if err != nil {
		return nil, err
	}
	return l, nil
}
