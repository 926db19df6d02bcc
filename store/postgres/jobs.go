package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// enqueueBatch bounds one enqueue transaction: large enough to amortise the
// round trips of BEGIN and COMMIT, small enough that row locks on new keys
// are not held for long.
const enqueueBatch = 500

// commitTimeout bounds a commit once it has started. Like store/sqlite, a
// started commit is carried out whatever the caller's context does, so the
// caller learns the outcome rather than guessing; the bound keeps a lost
// connection from holding the caller forever.
const commitTimeout = time.Minute

// text makes a string from outside (provider messages, webhook errors) fit a
// TEXT column: PostgreSQL rejects NUL bytes and invalid UTF-8, which SQLite
// would store as they are.
func text(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// BeginRun implements store.Store.
func (s *Store) BeginRun(ctx context.Context, p *store.BeginRunParams) error {
	_, started, err := s.clock(ctx, p.StartedAt)
	if err != nil {
		return fmt.Errorf("begin run %s: %w", p.ID, err)
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO runs (id, tenant, command, owner, provider, schema_version, started_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, p.ID, p.Tenant, p.Command, p.Owner, p.Provider, p.SchemaVersion, started)
	if err != nil {
		return fmt.Errorf("begin run %s: %w", p.ID, interpret(err))
	}
	return nil
}

// FinishRun implements store.Store. An empty summary is stored as NULL; a
// summary that is not JSON is refused, since Stats reads it as jsonb.
func (s *Store) FinishRun(ctx context.Context, p *store.FinishRunParams) error {
	var summary *string
	if len(p.Summary) > 0 {
		if !json.Valid(p.Summary) {
			return fmt.Errorf("finish run %s: summary is not valid JSON", p.ID)
		}
		v := text(string(p.Summary))
		summary = &v
	}
	_, finished, err := s.clock(ctx, p.FinishedAt)
	if err != nil {
		return fmt.Errorf("finish run %s: %w", p.ID, err)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE runs SET status = $1, finished_at = $2, summary = $3 WHERE id = $4`,
		p.Status, finished, summary, p.ID)
	if err != nil {
		return fmt.Errorf("finish run %s: %w", p.ID, interpret(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("finish run %s: %w", p.ID, store.ErrNotFound)
	}
	return nil
}

// Enqueue implements store.Store.
func (s *Store) Enqueue(ctx context.Context, p *store.EnqueueParams) ([]store.EnqueueResult, error) {
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return nil, err // the caller names the enqueue
	}
	out := make([]store.EnqueueResult, len(p.Docs))
	for start := 0; start < len(p.Docs); start += enqueueBatch {
		end := min(start+enqueueBatch, len(p.Docs))
		// Rows are written in job key order, whatever order the documents
		// came in: two processes enqueueing overlapping sets then lock the
		// same keys in the same order, and wait for each other rather than
		// deadlock. The sort is stable, so the same text under two paths
		// keeps its first path (new, then duplicate).
		order := make([]int, 0, end-start)
		for i := start; i < end; i++ {
			order = append(order, i)
		}
		sort.SliceStable(order, func(a, b int) bool { return p.Docs[order[a]].JobKey < p.Docs[order[b]].JobKey })
		err := s.tx(ctx, func(tx pgx.Tx) error {
			for _, i := range order {
				r, err := enqueueOne(ctx, tx, p, &p.Docs[i], now)
				if err != nil {
					return fmt.Errorf("enqueue %s: %w", p.Docs[i].Path, err)
				}
				out[i] = r
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// enqueueOne enqueues one document inside the batch's transaction: decide
// whether a changed text is held, insert its job (or find the job that
// already has its key), then record where the text was seen.
func enqueueOne(ctx context.Context, tx pgx.Tx, p *store.EnqueueParams, d *store.Document, now int64) (store.EnqueueResult, error) {
	res := store.EnqueueResult{JobKey: d.JobKey}
	h, err := changeHold(ctx, tx, p, d)
	if err != nil {
		return res, err
	}
	if h.prevKey != nil {
		res.PrevJobKey = *h.prevKey
	}
	if err := insertJob(ctx, tx, p, d, now, h, &res); err != nil {
		return res, err
	}
	if err := recordSource(ctx, tx, p, d, now, res.Outcome); err != nil {
		return res, err
	}
	return res, nil
}

// hold is the state a new job starts in, and why it is held if it is.
type hold struct {
	state           string
	reason, prevKey *string
}

// changeHold decides whether the document is a changed text of a path
// whose earlier text was committed: unless the user asked for changes to
// be processed, such a job is held for a person (identity_conflict).
func changeHold(ctx context.Context, tx pgx.Tx, p *store.EnqueueParams, d *store.Document) (hold, error) {
	h := hold{state: store.StateQueued}
	// Is this path known, and did its text change since?
	var srcDigest, srcKey string
	err := tx.QueryRow(ctx, `SELECT digest, job_key FROM sources WHERE tenant = $1 AND source_system = $2 AND path = $3`,
		p.Tenant, d.SourceSystem, d.Path).Scan(&srcDigest, &srcKey)
	known := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return h, err
	}
	if known && srcDigest != d.Digest && srcKey != d.JobKey && p.OnChange != store.OnChangeProcess {
		var prevState string
		err := tx.QueryRow(ctx, `SELECT state FROM jobs WHERE tenant = $1 AND job_key = $2`, p.Tenant, srcKey).Scan(&prevState)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return h, err
		}
		if prevState == store.StateSucceeded {
			h.state = store.StateHeld
			reason, key := "identity_conflict", srcKey
			h.reason, h.prevKey = &reason, &key
		}
	}
	return h, nil
}

// insertJob inserts the document's job and sets res's id and outcome; when
// a job with the key exists already, existingJob reports on that one.
func insertJob(ctx context.Context, tx pgx.Tx, p *store.EnqueueParams, d *store.Document, now int64, h hold, res *store.EnqueueResult) error {
	// Insert-or-ignore: the unique (tenant, job_key) index decides, never a
	// prior SELECT, so concurrent enqueuers cannot both insert. One that
	// races another's uncommitted insert of the same key waits for it.
	err := tx.QueryRow(ctx, `INSERT INTO jobs (tenant, job_key, transformation, schema_version, source_digest,
			source_system, source_path, source_text, state, held_reason, prev_job_key, first_run_id, created_at, updated_at,
			display_path, source_encoding, shadow, source_format, route)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, nullif($14, ''), nullif($15, ''), $16, nullif($17, ''), nullif($18, ''))
		ON CONFLICT (tenant, job_key) DO NOTHING RETURNING id`,
		p.Tenant, d.JobKey, p.Transformation, p.SchemaVersion, d.Digest, d.SourceSystem, d.Path, d.Text,
		h.state, h.reason, h.prevKey, p.RunID, now, d.DisplayPath, d.Encoding, p.Shadow, d.Format, d.Route).Scan(&res.JobID)
	switch {
	case err == nil:
		res.Outcome = store.EnqueueNew
		if h.state == store.StateHeld {
			res.Outcome = store.EnqueueHeld
		}
		return nil
	case errors.Is(err, pgx.ErrNoRows):
		return existingJob(ctx, tx, p, d, now, res)
	default:
		return err
	}
}

// existingJob sets res from the job that already has the document's key,
// releasing it if it was held and the user now asks for changes to be
// processed.
func existingJob(ctx context.Context, tx pgx.Tx, p *store.EnqueueParams, d *store.Document, now int64, res *store.EnqueueResult) error {
	var jobState, jobPath string
	var prev *string
	if err := tx.QueryRow(ctx, `SELECT id, state, source_path, prev_job_key FROM jobs WHERE tenant = $1 AND job_key = $2`,
		p.Tenant, d.JobKey).Scan(&res.JobID, &jobState, &jobPath, &prev); err != nil {
		return err
	}
	res.PrevJobKey = ""
	if prev != nil {
		res.PrevJobKey = *prev
	}
	if jobState != store.StateHeld || p.OnChange != store.OnChangeProcess {
		res.Outcome = driver.ExistingOutcome(jobState, jobPath, d.Path)
		return nil
	}
	// The user now asks for changed texts to be processed: a job
	// held earlier for an identity conflict is released.
	tag, err := tx.Exec(ctx, `UPDATE jobs SET state = 'queued', held_reason = NULL, updated_at = $1
				WHERE id = $2 AND state = 'held' AND held_reason = 'identity_conflict'`, now, res.JobID)
	if err != nil {
		return err
	}
	res.Outcome = store.EnqueueHeld
	if tag.RowsAffected() == 1 {
		res.Outcome = store.EnqueueNew
	}
	return nil
}

// recordSource resolves an earlier skip of the path and records where the
// text was seen.
func recordSource(ctx context.Context, tx pgx.Tx, p *store.EnqueueParams, d *store.Document, now int64, outcome string) error {
	// The path was read and enqueued: an earlier skip of it is resolved.
	if _, err := tx.Exec(ctx, `DELETE FROM skipped_inputs WHERE tenant = $1 AND source_system = $2 AND path = $3`,
		p.Tenant, d.SourceSystem, d.Path); err != nil {
		return fmt.Errorf("clear skipped input: %w", err)
	}
	// Record where this text was seen. A held change leaves the reference on
	// the committed text until someone accepts the change.
	if outcome != store.EnqueueHeld {
		if _, err := tx.Exec(ctx, `INSERT INTO sources (tenant, source_system, path, digest, job_key, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (tenant, source_system, path) DO UPDATE SET digest = EXCLUDED.digest, job_key = EXCLUDED.job_key,
				updated_at = EXCLUDED.updated_at
			WHERE sources.digest <> EXCLUDED.digest`,
			p.Tenant, d.SourceSystem, d.Path, d.Digest, d.JobKey, now); err != nil {
			return err
		}
	}
	return nil
}

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

// where is the kind's condition, with its arguments added to a.
func where(a *args, state, due string, now int64) string {
	w := `state = ` + a.add(state)
	if due != "" {
		w += ` AND ` + due + ` <= ` + a.add(now)
	}
	return w
}

// withVersion is the condition that narrows a claim to one schema version
// (ClaimParams.SchemaVersion), with its argument added to a; "" for every
// version.
func withVersion(a *args, version string) string {
	if version == "" {
		return ""
	}
	return ` AND schema_version = ` + a.add(version)
}

// Claim implements store.Store. Leases go to tenants in turn, the tenant
// with the fewest live leases first, then the one served longest ago, so one
// tenant's large batch cannot starve a small one (as in store/sqlite). Rows
// are taken with FOR UPDATE SKIP LOCKED: concurrent claimers never wait for
// each other and never lease one job twice; a job another claimer holds
// right now is simply not offered. With MaxPerTenant, a tenant is served by
// one claimer at a time (a transaction-scoped advisory lock, tried, never
// waited for), which recounts its live leases first, so the cap holds across
// processes and hosts.
func (s *Store) Claim(ctx context.Context, p *store.ClaimParams) ([]*store.Lease, error) {
	if p.Limit <= 0 {
		return nil, nil
	}
	nowT, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return nil, err // the caller names the claim; the steps name themselves
	}
	var leases []*store.Lease
	err = s.tx(ctx, func(tx pgx.Tx) error {
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
				n, ok, err := lockTenant(ctx, tx, t, now)
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
			l, err := claimOne(ctx, tx, p, t, nowT, now)
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

// tenantLock is the first key of the two-key advisory lock that lets one
// claimer at a time serve a tenant under MaxPerTenant ("invt"); the second
// is the tenant's hash. A hash collision only makes two tenants take turns.
const tenantLock int32 = 0x696e7674

// lockTenant tries to take the tenant's claim lock for this transaction and
// returns its live leases counted after taking it: any claimer that held it
// before has committed, so its leases are counted.
func lockTenant(ctx context.Context, tx pgx.Tx, tenant string, now int64) (int, bool, error) {
	var ok bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1, hashtext($2))`, tenantLock, tenant).Scan(&ok); err != nil {
		return 0, false, fmt.Errorf("lock tenant %s: %w", tenant, err)
	}
	if !ok {
		return 0, false, nil
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE state = 'running' AND lease_expires_at > $1 AND tenant = $2`,
		now, tenant).Scan(&n); err != nil {
		return 0, false, fmt.Errorf("count live leases of %s: %w", tenant, err)
	}
	return n, true, nil
}

// lastServed is each tenant's newest attempt id: the attempt table is the
// scheduler's memory of whom it served last.
func lastServed(ctx context.Context, tx pgx.Tx, tenants []string) (map[string]int64, error) {
	out := make(map[string]int64, len(tenants))
	if len(tenants) < 2 {
		return out, nil
	}
	rows, err := tx.Query(ctx, `SELECT t, coalesce((SELECT max(id) FROM attempts WHERE tenant = t), 0)
		FROM unnest($1::text[]) AS t`, tenants)
	if err != nil {
		return nil, fmt.Errorf("last attempt of tenants: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var id int64
		if err := rows.Scan(&t, &id); err != nil {
			return nil, fmt.Errorf("last attempt of tenants: %w", err)
		}
		out[t] = id
	}
	return out, rows.Err()
}

func liveLeases(ctx context.Context, tx pgx.Tx, tenant string, now int64) (map[string]int, error) {
	var a args
	q := `SELECT tenant, count(*) FROM jobs WHERE state = 'running' AND lease_expires_at > ` + a.add(now)
	if tenant != "" {
		q += ` AND tenant = ` + a.add(tenant)
	}
	rows, err := tx.Query(ctx, q+` GROUP BY tenant`, a...)
	if err != nil {
		return nil, fmt.Errorf("count live leases: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, fmt.Errorf("count live leases: %w", err)
		}
		out[t] = n
	}
	return out, rows.Err()
}

// tenantsWithWork lists the tenants with a claimable job, sorted. Each kind
// is read as a loose index scan over (state, tenant, id): one index probe
// per tenant, however many jobs a tenant has queued.
func tenantsWithWork(ctx context.Context, tx pgx.Tx, now int64, version string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, c := range claimable {
		var a args
		w := where(&a, c.state, c.due, now) + withVersion(&a, version)
		q := `WITH RECURSIVE t (tenant) AS (
				(SELECT tenant FROM jobs WHERE ` + w + ` ORDER BY tenant LIMIT 1)
				UNION ALL
				SELECT (SELECT j.tenant FROM jobs j WHERE ` + w + ` AND j.tenant > t.tenant ORDER BY j.tenant LIMIT 1)
				FROM t WHERE t.tenant IS NOT NULL)
			SELECT tenant FROM t WHERE tenant IS NOT NULL`
		rows, err := tx.Query(ctx, q, a...)
		if err != nil {
			return nil, fmt.Errorf("find tenants with work: %w", err)
		}
		ts, err := pgx.CollectRows(rows, pgx.RowTo[string])
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
// leases and retries that came due before new work, oldest first. A job
// another transaction has locked is skipped, not waited for.
func claimOne(ctx context.Context, tx pgx.Tx, p *store.ClaimParams, tenant string, nowT time.Time, now int64) (*store.Lease, error) {
	for _, c := range claimable {
		var a args
		q := `SELECT id FROM jobs WHERE ` + where(&a, c.state, c.due, now) + ` AND tenant = ` + a.add(tenant) +
			withVersion(&a, p.SchemaVersion) + ` ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`
		var id int64
		err := tx.QueryRow(ctx, q, a...).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find claimable job: %w", err)
		}
		l, err := grant(ctx, tx, p, id, c.recovered, nowT, now)
		if err != nil {
			return nil, fmt.Errorf("lease job %d: %w", id, err)
		}
		return l, nil
	}
	return nil, nil
}

func grant(ctx context.Context, tx pgx.Tx, p *store.ClaimParams, id int64, recovered bool, nowT time.Time, now int64) (*store.Lease, error) {
	expires := nowT.Add(p.LeaseFor)
	l := &store.Lease{JobID: id, ExpiresAt: expires.UTC(), Recovered: recovered}
	recoveries := 0
	if recovered {
		recoveries = 1
	}
	err := tx.QueryRow(ctx, `UPDATE jobs SET state = 'running', lease_owner = $1, lease_token = lease_token + 1,
			lease_expires_at = $2, attempts = attempts + 1, lease_recoveries = lease_recoveries + $3, updated_at = $4
		WHERE id = $5
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
	// The rest needs nothing from each other: one round trip.
	b := &pgx.Batch{}
	if l.PrevAttempts > 0 {
		b.Queue(`SELECT coalesce(sum(input_tokens + output_tokens), 0)::bigint FROM attempts WHERE job_id = $1`, id).
			QueryRow(func(r pgx.Row) error { return r.Scan(&l.PrevTokens) })
	}
	if recovered {
		// The previous holder's attempt never reported back.
		b.Queue(`UPDATE attempts SET outcome = $1, finished_at = $2 WHERE job_id = $3 AND outcome = ''`,
			store.OutcomeLeaseExpired, now, id)
	}
	b.Queue(`INSERT INTO attempts (job_id, tenant, attempt_no, run_id, owner, lease_token, started_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		id, l.Tenant, l.AttemptNo, p.RunID, p.Owner, l.Token, now).
		QueryRow(func(r pgx.Row) error { return r.Scan(&l.AttemptID) })
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	return l, nil
}

// Renew implements store.Store.
func (s *Store) Renew(ctx context.Context, p *store.RenewParams) (time.Time, error) {
	nowT, _, err := s.clock(ctx, p.Now)
	if err != nil {
		return time.Time{}, fmt.Errorf("renew lease of job %d: %w", p.JobID, err)
	}
	expires := nowT.Add(p.LeaseFor).UTC()
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET lease_expires_at = $1 WHERE id = $2 AND lease_token = $3 AND state = 'running'`,
		ms(expires), p.JobID, p.Token)
	if err != nil {
		return time.Time{}, fmt.Errorf("renew lease of job %d: %w", p.JobID, interpret(err))
	}
	if tag.RowsAffected() == 0 {
		return time.Time{}, fmt.Errorf("renew lease of job %d: %w", p.JobID, store.ErrStaleLease)
	}
	return expires, nil
}

// Commit implements store.Store: one transaction per commit (PostgreSQL
// syncs its WAL for concurrent commits together on its own).
func (s *Store) Commit(ctx context.Context, p *store.CommitParams) (*store.CommitResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, err)
	}
	// Once started, the commit is carried out whatever ctx does (bounded by
	// commitTimeout): the caller learns the outcome rather than guessing.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, err)
	}
	var res *store.CommitResult
	err = s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		res, err = commitOne(ctx, tx, p, now)
		return err
	})
	if errors.Is(err, store.ErrStaleLease) {
		return nil, s.recordStale(ctx, "commit", p.JobID, p.AttemptID, p.Attempt, now)
	}
	if err != nil {
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, err)
	}
	return res, nil
}

func commitOne(ctx context.Context, tx pgx.Tx, p *store.CommitParams, now int64) (*store.CommitResult, error) {
	var out store.CommitResult
	var reasons []store.ReviewReason
	if p.Review != nil {
		// Checked before anything is written: a bad reason is a bug.
		var err error
		if reasons, err = driver.CheckReasons(p.Review.Reasons); err != nil {
			return nil, err
		}
	}
	// The fence: only the current lease holder moves the job on. The row
	// stays locked until the transaction ends, so no claimer can take the
	// job over meanwhile.
	var jobShadow bool
	err := tx.QueryRow(ctx, `UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_expires_at = NULL,
			next_attempt_at = NULL, updated_at = $1
		WHERE id = $2 AND lease_token = $3 AND state = 'running' RETURNING shadow`, now, p.JobID, p.Token).Scan(&jobShadow)
	if errors.Is(err, pgx.ErrNoRows) {
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
	err = tx.QueryRow(ctx, `INSERT INTO results (tenant, job_key, job_id, schema_version, result, attempt_id, run_id, shadow, committed_at,
			supplier_vat_key, supplier_key, number_key, doc_total_minor, doc_issue_date, source_digest)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
			CASE WHEN $15::boolean THEN (SELECT source_digest FROM jobs WHERE id = $3) END)
		ON CONFLICT (tenant, job_key) DO UPDATE SET tenant = EXCLUDED.tenant
		RETURNING id, attempt_id`,
		p.Tenant, p.JobKey, p.JobID, p.SchemaVersion, string(p.Result), p.AttemptID, p.RunID, shadow, now,
		id.VATKey, id.NameKey, id.NumberKey, id.TotalMinor, id.IssueDate, id.Digest).
		Scan(&out.ResultID, &attemptID)
	if err != nil {
		return nil, fmt.Errorf("insert result: %w", err)
	}
	out.Existing = attemptID != p.AttemptID
	if review && !out.Existing {
		if reasons, err = openReasons(ctx, tx, p.Tenant, p.JobKey, out.ResultID, p.JobID, p.Review.Identity, reasons, now); err != nil {
			return nil, err
		}
		out.Reasons = driver.Reasons(reasons)
	}

	// The remaining writes depend only on the result id: one round trip.
	b := &pgx.Batch{}
	b.Queue(`UPDATE jobs SET result_id = $1 WHERE id = $2`, out.ResultID, p.JobID)
	if !out.Existing {
		// A job that replaces the text committed at its path (a held change
		// accepted in review) supersedes that result; the old result keeps
		// its outbox events, which are never sent again.
		b.Queue(`UPDATE results SET superseded_by = $1
			WHERE tenant = $2 AND superseded_by IS NULL AND id <> $1
				AND job_key = (SELECT prev_job_key FROM jobs WHERE id = $3 AND prev_job_key IS NOT NULL)`,
			out.ResultID, p.Tenant, p.JobID)
		b.Queue(`UPDATE sources SET digest = j.source_digest, job_key = j.job_key, updated_at = $1
			FROM (SELECT source_digest, job_key, prev_job_key, source_system, source_path FROM jobs WHERE id = $2) AS j
			WHERE sources.tenant = $3 AND sources.source_system = j.source_system AND sources.path = j.source_path
				AND sources.job_key = j.prev_job_key`, now, p.JobID, p.Tenant)
	}
	if !shadow && !out.Existing {
		evState := driver.EventState(len(reasons))
		for i := range p.Outbox {
			ev := &p.Outbox[i]
			b.Queue(`INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, created_at, state)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (tenant, event_key) DO NOTHING`,
				p.Tenant, store.EventKey(p.JobKey, ev), p.JobKey, out.ResultID, ev.ActionID, ev.Kind, string(ev.Payload), now, evState)
		}
	}
	queueFinishAttempt(b, p.AttemptID, &p.Attempt, now)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("write result, outbox and attempt: %w", err)
	}
	return &out, nil
}

// recordStale marks a fenced-out attempt; op names the fenced operation
// (commit, finish attempt of, start next attempt of) for the error. It runs in its own transaction
// because the commit's was rolled back whole.
func (s *Store) recordStale(ctx context.Context, op string, jobID, attemptID int64, a store.AttemptInfo, now int64) error {
	// Only an attempt still open (or closed by a lease recovery) becomes
	// stale_lease: a replayed call must not rewrite a finished attempt.
	_, err := s.pool.Exec(ctx, `UPDATE attempts SET outcome = $1, finished_at = $2, error_class = $3, message = $4,
			provider = $5, model = $6, duration_ms = $7, input_tokens = $8, output_tokens = $9, prompt_hash = $10
		WHERE id = $11 AND outcome IN ('', $12)`,
		store.OutcomeStaleLease, now, text(a.ErrorClass), text(a.Message), text(a.Provider), text(a.Model), a.Duration.Milliseconds(),
		a.InputTokens, a.OutputTokens, text(a.PromptHash), attemptID, store.OutcomeLeaseExpired)
	if err != nil {
		return fmt.Errorf("record stale attempt of job %d: %w (after %w)", jobID, interpret(err), store.ErrStaleLease)
	}
	return fmt.Errorf("%s job %d: %w", op, jobID, store.ErrStaleLease)
}

const finishAttemptSQL = `UPDATE attempts SET outcome = $1, finished_at = $2, error_class = $3, category = $4, message = $5,
		provider = $6, model = $7, http_status = $8, request_id = $9, duration_ms = $10, input_tokens = $11, output_tokens = $12,
		next_delay_ms = $13, prompt_hash = $14, output = $15
	WHERE id = $16`

func finishAttemptArgs(attemptID int64, a *store.AttemptInfo, now int64) []any {
	return []any{text(a.Outcome), now, text(a.ErrorClass), text(a.Category), text(a.Message), text(a.Provider), text(a.Model),
		a.HTTPStatus, text(a.RequestID), a.Duration.Milliseconds(), a.InputTokens, a.OutputTokens, a.NextDelay.Milliseconds(),
		text(a.PromptHash), a.Output, attemptID}
}

func queueFinishAttempt(b *pgx.Batch, attemptID int64, a *store.AttemptInfo, now int64) {
	b.Queue(finishAttemptSQL, finishAttemptArgs(attemptID, a, now)...)
}

func finishAttemptRow(ctx context.Context, tx pgx.Tx, attemptID int64, a *store.AttemptInfo, now int64) error {
	if _, err := tx.Exec(ctx, finishAttemptSQL, finishAttemptArgs(attemptID, a, now)...); err != nil {
		return fmt.Errorf("finish attempt %d: %w", attemptID, err)
	}
	return nil
}

// FinishAttempt implements store.Store.
func (s *Store) FinishAttempt(ctx context.Context, p *store.FinishAttemptParams) error {
	switch p.State {
	case store.StateQueued, store.StateRetryWait, store.StateRejected, store.StateFailed:
	default:
		return fmt.Errorf("finish attempt of job %d: bad next state %q", p.JobID, p.State)
	}
	nowT, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("finish attempt of job %d: %w", p.JobID, err)
	}
	next := later(p.NextAttemptAt, p.Now, nowT)
	err = s.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE jobs SET state = $1, lease_owner = NULL, lease_expires_at = NULL,
				next_attempt_at = $2, last_error_class = $3, last_category = $4, last_error = $5, updated_at = $6
			WHERE id = $7 AND lease_token = $8 AND state = 'running'`,
			p.State, nullMS(next), text(p.Attempt.ErrorClass), text(p.Attempt.Category), text(p.Attempt.Message),
			now, p.JobID, p.Token)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.ErrStaleLease
		}
		return finishAttemptRow(ctx, tx, p.AttemptID, &p.Attempt, now)
	})
	if errors.Is(err, store.ErrStaleLease) {
		return s.recordStale(ctx, "finish attempt of", p.JobID, p.AttemptID, p.Attempt, now)
	}
	if err != nil {
		return fmt.Errorf("finish attempt of job %d: %w", p.JobID, err)
	}
	return nil
}

// NextAttempt implements store.Store.
func (s *Store) NextAttempt(ctx context.Context, p *store.NextAttemptParams) (*store.NextAttemptResult, error) {
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("next attempt of job %d: %w", p.JobID, err)
	}
	var id int64
	var no int
	err = s.tx(ctx, func(tx pgx.Tx) error {
		var tenant string
		err := tx.QueryRow(ctx, `UPDATE jobs SET attempts = attempts + 1, last_error_class = $1, last_category = $2,
				last_error = $3, updated_at = $4
			WHERE id = $5 AND lease_token = $6 AND state = 'running' RETURNING attempts, tenant`,
			text(p.Attempt.ErrorClass), text(p.Attempt.Category), text(p.Attempt.Message), now, p.JobID, p.Token).Scan(&no, &tenant)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrStaleLease
		}
		if err != nil {
			return err
		}
		if err := finishAttemptRow(ctx, tx, p.AttemptID, &p.Attempt, now); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO attempts (job_id, tenant, attempt_no, run_id, owner, lease_token, started_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, p.JobID, tenant, no, p.RunID, p.Owner, p.Token, now).Scan(&id)
	})
	if errors.Is(err, store.ErrStaleLease) {
		return nil, s.recordStale(ctx, "start next attempt of", p.JobID, p.AttemptID, p.Attempt, now)
	}
	if err != nil {
		return nil, fmt.Errorf("next attempt of job %d: %w", p.JobID, err)
	}
	return &store.NextAttemptResult{AttemptID: id, AttemptNo: no}, nil
}

// ReapLeases implements store.Store.
func (s *Store) ReapLeases(ctx context.Context, p *store.ReapLeasesParams) (int, error) {
	if p.Alive == nil {
		return 0, errors.New("reap leases: no Alive function")
	}
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return 0, fmt.Errorf("reap leases: %w", err)
	}
	owners, err := s.strings(ctx, `SELECT DISTINCT lease_owner FROM jobs WHERE state = 'running' AND lease_owner IS NOT NULL`)
	if err != nil {
		return 0, fmt.Errorf("list lease owners: %w", err)
	}
	var gone []string
	for _, o := range owners {
		if !p.Alive(o) {
			gone = append(gone, o)
		}
	}
	if err := s.reapRuns(ctx, p, now); err != nil {
		return 0, err
	}
	if err := s.reapOutbox(ctx, p, now); err != nil {
		return 0, err
	}
	n := 0
	for _, o := range gone {
		tag, err := s.pool.Exec(ctx, `UPDATE jobs SET lease_expires_at = $1
			WHERE state = 'running' AND lease_owner = $2 AND lease_expires_at > $1`, now, o)
		if err != nil {
			return n, fmt.Errorf("expire leases of %s: %w", o, interpret(err))
		}
		n += int(tag.RowsAffected())
	}
	return n, nil
}

// reapRuns marks runs whose process is gone as abandoned, so a SIGKILLed run
// does not look like it is still going.
func (s *Store) reapRuns(ctx context.Context, p *store.ReapLeasesParams, now int64) error {
	rows, err := s.pool.Query(ctx, `SELECT id, owner FROM runs WHERE status = 'running' AND owner <> ''`)
	if err != nil {
		return fmt.Errorf("list running runs: %w", interpret(err))
	}
	var gone []string
	var id, owner string
	_, err = pgx.ForEachRow(rows, []any{&id, &owner}, func() error {
		if !p.Alive(owner) {
			gone = append(gone, id)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list running runs: %w", interpret(err))
	}
	for _, id := range gone {
		if _, err := s.pool.Exec(ctx, `UPDATE runs SET status = 'abandoned', finished_at = $1 WHERE id = $2 AND status = 'running'`,
			now, id); err != nil {
			return fmt.Errorf("mark run %s abandoned: %w", id, interpret(err))
		}
	}
	return nil
}

// strings runs a query of one text column.
func (s *Store) strings(ctx context.Context, q string, a ...any) ([]string, error) {
	rows, err := s.pool.Query(ctx, q, a...)
	if err != nil {
		return nil, interpret(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, interpret(err)
}
