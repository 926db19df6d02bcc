package jobs

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/invx/invx/internal/crashpoint"
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
	var texts [][]byte // leases[i]'s compressed text, unpacked after the commit
	// Only leases are written: nothing a power loss must keep (LeaseOnly).
	err = c.write(LeaseOnly(ctx), regionClaim, func(tx Tx) error {
		leases, texts = nil, nil
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
		// Candidates are read once per tenant, as many as it could get,
		// and granted together at the end: a claim of N jobs is a few
		// statements, not a few per job.
		cands := map[string][]pick{}
		fetched := map[string]bool{}
		var picks []pick
		seq := newest(served)
		for len(picks) < p.Limit {
			t, ok := driver.NextTenant(tenants, inflight, served, exhausted, p.MaxPerTenant)
			if !ok {
				break
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
			if !fetched[t] {
				want := p.Limit - len(picks)
				if p.MaxPerTenant > 0 {
					want = min(want, p.MaxPerTenant-inflight[t])
				}
				if cands[t], err = c.candidates(ctx, tx, p, t, now, want); err != nil {
					return err
				}
				fetched[t] = true
			}
			if len(cands[t]) == 0 {
				exhausted[t] = true
				continue
			}
			picks = append(picks, cands[t][0])
			cands[t] = cands[t][1:]
			inflight[t]++
			// Served now: after every tenant served before, as the new
			// attempt's id will be.
			seq++
			served[t] = seq
		}
		leases, texts, err = c.grant(ctx, tx, p, picks, nowT, now)
		if err == nil && len(leases) > 0 {
			crashpoint.Hit("claim.tx")
		}
		return err
	})
	if err != nil {
		return nil, err // the caller names the claim; the steps name themselves
	}
	for i, l := range leases {
		if err := unpackLease(l, texts[i]); err != nil {
			// The leases are granted: unclaimed, they expire and are
			// recovered like those of a worker that died. The error names
			// the job, the caller the claim.
			return nil, err
		}
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

// pick is a job chosen to be leased.
type pick struct {
	id        int64
	recovered bool
}

// newest is the largest attempt id in served.
func newest(served map[string]int64) int64 {
	var n int64
	for _, id := range served {
		n = max(n, id)
	}
	return n
}

// candidates reads up to want of the tenant's claimable jobs, in the order
// they are taken: expired leases and retries that came due before new work,
// oldest first. The engine's LockRows keeps them from other claimers until
// this transaction ends.
func (c *Core) candidates(ctx context.Context, tx Tx, p *store.ClaimParams, tenant string, now int64, want int) ([]pick, error) {
	var out []pick
	for _, k := range claimable {
		if len(out) >= want {
			break
		}
		w, args := claimWhere(k.state, k.due, now, p.SchemaVersion)
		got, err := ids(tx.Query(ctx, `SELECT id FROM jobs WHERE `+w+` AND tenant = ? ORDER BY id LIMIT ?`+c.E.LockRows(),
			append(args, tenant, want-len(out))...))
		if err != nil {
			return nil, fmt.Errorf("find claimable jobs: %w", err)
		}
		for _, id := range got {
			out = append(out, pick{id: id, recovered: k.recovered})
		}
	}
	return out, nil
}

// grantBatch bounds the jobs one grant statement names.
const grantBatch = 200

// grant leases the picked jobs, in batches of grantBatch: each gets a new
// lease token, one more attempt, and the attempt's row. The leases come
// back in the order of picks, each with its compressed text (texts[i],
// for unpackLease once the transaction has committed) and Text not yet
// set unless the row kept it in its old column.
func (c *Core) grant(ctx context.Context, tx Tx, p *store.ClaimParams, picks []pick, nowT time.Time, now int64) ([]*store.Lease, [][]byte, error) {
	out := make([]*store.Lease, 0, len(picks))
	texts := make([][]byte, 0, len(picks))
	for start := 0; start < len(picks); start += grantBatch {
		ls, zs, err := c.grantSome(ctx, tx, p, picks[start:min(start+grantBatch, len(picks))], nowT, now)
		if err != nil {
			return nil, nil, err
		}
		out, texts = append(out, ls...), append(texts, zs...)
	}
	return out, texts, nil
}

// grantRows and attemptRows are the inputs of grantSome's two multi-row
// statements (values.go): a claim leases however many jobs were free, and
// a text per count was parsed again inside the claim's transaction (on the
// one writer) for most claims.
var (
	grantRows   = newTable(`jid, rec, own, exp, at`, colInt, colInt, colText, colInt, colInt)
	attemptRows = newTable(`ord, jid, tn, no, run, own, tok, at`, colInt, colInt, colText, colInt, colText, colText, colInt, colInt)
)

func (c *Core) grantSome(ctx context.Context, tx Tx, p *store.ClaimParams, picks []pick, nowT time.Time, now int64) ([]*store.Lease, [][]byte, error) {
	if len(picks) == 0 {
		return nil, nil, nil
	}
	expires := nowT.Add(p.LeaseFor)
	var rec []any
	g := rowArgs{t: grantRows}
	for _, k := range picks {
		n := 0
		if k.recovered {
			rec = append(rec, k.id)
			n = 1
		}
		g.add(k.id, n, p.Owner, ms(expires), now)
	}
	byID := make(map[int64]*store.Lease, len(picks))
	zstOf := make(map[int64][]byte, len(picks))
	err := g.chunks(func(rows int, args []any) error {
		q := c.multi(grantRows, rows, `UPDATE jobs SET state = 'running', lease_owner = v.own, lease_token = lease_token + 1,
				lease_expires_at = v.exp, attempts = attempts + 1, lease_recoveries = lease_recoveries + v.rec, updated_at = v.at
			FROM v WHERE jobs.id = v.jid
			RETURNING `+leaseColumns(""))
		rows2, err := tx.Query(ctx, q, args...)
		return each(rows2, err, func(r Rows) error {
			l := &store.Lease{ExpiresAt: expires.UTC()}
			var zst []byte
			if err := r.Scan(leaseDest(l, &zst)...); err != nil {
				return err
			}
			settleLease(l)
			byID[l.JobID], zstOf[l.JobID] = l, zst
			return nil
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("lease jobs: %w", err)
	}
	ls := make([]*store.Lease, 0, len(picks))
	for _, k := range picks {
		l := byID[k.id]
		if l == nil {
			return nil, nil, fmt.Errorf("lease job %d: not updated", k.id)
		}
		l.Recovered = k.recovered
		ls = append(ls, l)
	}
	if err := addPrevTokens(ctx, tx, ls); err != nil {
		return nil, nil, err
	}
	if len(rec) > 0 {
		// The previous holders' attempts never reported back. Before the
		// new attempts are written: they are open too.
		if err := tx.Defer(ctx, `UPDATE attempts SET outcome = ?, finished_at = ? WHERE job_id IN (`+Placeholders(len(rec))+`) AND outcome = ''`,
			append([]any{store.OutcomeLeaseExpired, now}, rec...)...); err != nil {
			return nil, nil, err
		}
	}
	// Inserted in the order of picks, so attempt ids follow it (lastServed
	// reads whom the scheduler served last from them).
	a := rowArgs{t: attemptRows}
	for i, k := range picks {
		l := byID[k.id]
		a.add(i, l.JobID, l.Tenant, l.AttemptNo, p.RunID, p.Owner, l.Token, now)
	}
	err = a.chunks(func(rows int, args []any) error {
		q := c.multi(attemptRows, rows, `INSERT INTO attempts (job_id, tenant, attempt_no, run_id, owner, lease_token, started_at)
			SELECT v.jid, v.tn, v.no, v.run, v.own, v.tok, v.at FROM v WHERE v.jid IS NOT NULL ORDER BY v.ord
			RETURNING id, job_id`)
		rows2, err := tx.Query(ctx, q, args...)
		return each(rows2, err, func(r Rows) error {
			var id, jobID int64
			if err := r.Scan(&id, &jobID); err != nil {
				return err
			}
			byID[jobID].AttemptID = id
			return nil
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("start attempts: %w", err)
	}
	out := make([]*store.Lease, len(picks))
	texts := make([][]byte, len(picks))
	for i, k := range picks {
		out[i], texts[i] = byID[k.id], zstOf[k.id]
	}
	return out, texts, nil
}
