package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// enqueueBatch bounds one enqueue transaction: large enough to amortise the
// fsync, small enough that other processes are not starved of the write lock.
const enqueueBatch = 500

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func nullMS(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

func fromMS(v sql.NullInt64) time.Time {
	if !v.Valid || v.Int64 == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BeginRun implements store.Store.
func (s *Store) BeginRun(ctx context.Context, p *store.BeginRunParams) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO runs (id, tenant, command, owner, provider, schema_version, started_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, p.ID, p.Tenant, p.Command, p.Owner, p.Provider, p.SchemaVersion, ms(p.StartedAt))
	if err != nil {
		return fmt.Errorf("begin run %s: %w", p.ID, interpret(err))
	}
	return nil
}

// FinishRun implements store.Store.
func (s *Store) FinishRun(ctx context.Context, p *store.FinishRunParams) error {
	res, err := s.w.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = ?, summary = ? WHERE id = ?`,
		p.Status, ms(p.FinishedAt), string(p.Summary), p.ID)
	if err != nil {
		return fmt.Errorf("finish run %s: %w", p.ID, interpret(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("finish run %s: %w", p.ID, store.ErrNotFound)
	}
	return nil
}

// Enqueue implements store.Store.
func (s *Store) Enqueue(ctx context.Context, p *store.EnqueueParams) ([]store.EnqueueResult, error) {
	out := make([]store.EnqueueResult, 0, len(p.Docs))
	for start := 0; start < len(p.Docs); start += enqueueBatch {
		end := min(start+enqueueBatch, len(p.Docs))
		var batch []store.EnqueueResult
		err := s.tx(ctx, func(tx *sql.Tx) error {
			batch = batch[:0]
			for i := start; i < end; i++ {
				r, err := enqueueOne(ctx, tx, p, &p.Docs[i])
				if err != nil {
					return fmt.Errorf("enqueue %s: %w", p.Docs[i].Path, err)
				}
				batch = append(batch, r)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, batch...)
	}
	return out, nil
}

// enqueueOne enqueues one document inside the batch's transaction: decide
// whether a changed text is held, insert its job (or find the job that
// already has its key), then record where the text was seen.
func enqueueOne(ctx context.Context, tx *sql.Tx, p *store.EnqueueParams, d *store.Document) (store.EnqueueResult, error) {
	now := ms(p.Now)
	res := store.EnqueueResult{JobKey: d.JobKey}
	h, err := changeHold(ctx, tx, p, d)
	if err != nil {
		return res, err
	}
	res.PrevJobKey = h.prevKey.String
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
	reason, prevKey sql.NullString
}

// changeHold decides whether the document is a changed text of a path
// whose earlier text was committed: unless the user asked for changes to
// be processed, such a job is held for a person (identity_conflict).
func changeHold(ctx context.Context, tx *sql.Tx, p *store.EnqueueParams, d *store.Document) (hold, error) {
	h := hold{state: store.StateQueued}
	// Is this path known, and did its text change since?
	var srcDigest, srcKey string
	err := tx.QueryRowContext(ctx, `SELECT digest, job_key FROM sources WHERE tenant = ? AND source_system = ? AND path = ?`,
		p.Tenant, d.SourceSystem, d.Path).Scan(&srcDigest, &srcKey)
	known := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return h, err
	}
	if known && srcDigest != d.Digest && srcKey != d.JobKey && p.OnChange != store.OnChangeProcess {
		var prevState string
		err := tx.QueryRowContext(ctx, `SELECT state FROM jobs WHERE tenant = ? AND job_key = ?`, p.Tenant, srcKey).Scan(&prevState)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return h, err
		}
		if prevState == store.StateSucceeded {
			h.state = store.StateHeld
			h.reason = sql.NullString{String: "identity_conflict", Valid: true}
			h.prevKey = sql.NullString{String: srcKey, Valid: true}
		}
	}
	return h, nil
}

// insertJob inserts the document's job and sets res's id and outcome; when
// a job with the key exists already, existingJob reports on that one.
func insertJob(ctx context.Context, tx *sql.Tx, p *store.EnqueueParams, d *store.Document, now int64, h hold, res *store.EnqueueResult) error {
	// Insert-or-ignore: the unique (tenant, job_key) index decides, never a
	// prior SELECT, so concurrent enqueuers cannot both insert.
	err := tx.QueryRowContext(ctx, `INSERT INTO jobs (tenant, job_key, transformation, schema_version, source_digest,
			source_system, source_path, source_text, state, held_reason, prev_job_key, first_run_id, created_at, updated_at,
			display_path, source_encoding, shadow, source_format, route)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, nullif(?, ''), nullif(?, ''), ?, nullif(?, ''), nullif(?, ''))
		ON CONFLICT (tenant, job_key) DO NOTHING RETURNING id`,
		p.Tenant, d.JobKey, p.Transformation, p.SchemaVersion, d.Digest, d.SourceSystem, d.Path, d.Text,
		h.state, h.reason, h.prevKey, p.RunID, now, now, d.DisplayPath, d.Encoding, boolInt(p.Shadow), d.Format, d.Route).Scan(&res.JobID)
	switch {
	case err == nil:
		res.Outcome = store.EnqueueNew
		if h.state == store.StateHeld {
			res.Outcome = store.EnqueueHeld
		}
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return existingJob(ctx, tx, p, d, now, res)
	default:
		return err
	}
}

// existingJob sets res from the job that already has the document's key,
// releasing it if it was held and the user now asks for changes to be
// processed.
func existingJob(ctx context.Context, tx *sql.Tx, p *store.EnqueueParams, d *store.Document, now int64, res *store.EnqueueResult) error {
	var jobState, jobPath string
	var prev sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT id, state, source_path, prev_job_key FROM jobs WHERE tenant = ? AND job_key = ?`,
		p.Tenant, d.JobKey).Scan(&res.JobID, &jobState, &jobPath, &prev); err != nil {
		return err
	}
	res.PrevJobKey = prev.String
	if jobState != store.StateHeld || p.OnChange != store.OnChangeProcess {
		res.Outcome = driver.ExistingOutcome(jobState, jobPath, d.Path)
		return nil
	}
	// The user now asks for changed texts to be processed: a job
	// held earlier for an identity conflict is released.
	r, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'queued', held_reason = NULL, updated_at = ?
				WHERE id = ? AND state = 'held' AND held_reason = 'identity_conflict'`, now, res.JobID)
	if err != nil {
		return err
	}
	res.Outcome = store.EnqueueHeld
	if n, _ := r.RowsAffected(); n == 1 {
		res.Outcome = store.EnqueueNew
	}
	return nil
}

// recordSource resolves an earlier skip of the path and records where the
// text was seen.
func recordSource(ctx context.Context, tx *sql.Tx, p *store.EnqueueParams, d *store.Document, now int64, outcome string) error {
	// The path was read and enqueued: an earlier skip of it is resolved.
	if _, err := tx.ExecContext(ctx, `DELETE FROM skipped_inputs WHERE tenant = ? AND source_system = ? AND path = ?`,
		p.Tenant, d.SourceSystem, d.Path); err != nil {
		return fmt.Errorf("clear skipped input: %w", err)
	}
	// Record where this text was seen. A held change leaves the reference on
	// the committed text until someone accepts the change.
	if outcome != store.EnqueueHeld {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sources (tenant, source_system, path, digest, job_key, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (tenant, source_system, path) DO UPDATE SET digest = excluded.digest, job_key = excluded.job_key,
				updated_at = excluded.updated_at
			WHERE sources.digest <> excluded.digest`,
			p.Tenant, d.SourceSystem, d.Path, d.Digest, d.JobKey, now); err != nil {
			return err
		}
	}
	return nil
}

// claimable lists the three ways a job becomes claimable. Each query walks
// the (state, tenant, id) index, so finished jobs are never scanned.
var claimable = []struct {
	where     string
	recovered bool
}{
	{`state = 'queued'`, false},
	{`state = 'retry_wait' AND next_attempt_at <= ?`, false},
	{`state = 'running' AND lease_expires_at <= ?`, true},
}

// Claim implements store.Store. Leases go to tenants in turn, the tenant
// with the fewest live leases first, so one tenant's large batch cannot
// starve a small one; MaxPerTenant caps any tenant's live leases.
func (s *Store) Claim(ctx context.Context, p *store.ClaimParams) ([]*store.Lease, error) {
	if p.Limit <= 0 {
		return nil, nil
	}
	now := ms(p.Now)
	var leases []*store.Lease
	err := s.tx(ctx, func(tx *sql.Tx) error {
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
		for len(leases) < p.Limit {
			t, ok := driver.NextTenant(tenants, inflight, served, exhausted, p.MaxPerTenant)
			if !ok {
				return nil
			}
			l, err := claimOne(ctx, tx, p, t, now)
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

// lastServed is each tenant's newest attempt id: the attempt table is the
// scheduler's memory of whom it served last.
func lastServed(ctx context.Context, tx *sql.Tx, tenants []string) (map[string]int64, error) {
	out := make(map[string]int64, len(tenants))
	if len(tenants) < 2 {
		return out, nil
	}
	for _, t := range tenants {
		var id sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT max(id) FROM attempts WHERE tenant = ?`, t).Scan(&id); err != nil {
			return nil, fmt.Errorf("last attempt of tenant %s: %w", t, err)
		}
		out[t] = id.Int64
	}
	return out, nil
}

func liveLeases(ctx context.Context, tx *sql.Tx, tenant string, now int64) (map[string]int, error) {
	q := `SELECT tenant, count(*) FROM jobs WHERE state = 'running' AND lease_expires_at > ?`
	args := []any{now}
	if tenant != "" {
		q += ` AND tenant = ?`
		args = append(args, tenant)
	}
	rows, err := tx.QueryContext(ctx, q+` GROUP BY tenant`, args...)
	if err != nil {
		return nil, fmt.Errorf("count live leases: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, rows.Err()
}

func tenantsWithWork(ctx context.Context, tx *sql.Tx, now int64, version string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, c := range claimable {
		var args []any
		if strings.Contains(c.where, "?") {
			args = append(args, now)
		}
		w, args := withVersion(c.where, args, version)
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT tenant FROM jobs WHERE `+w, args...)
		if err != nil {
			return nil, fmt.Errorf("find tenants with work: %w", err)
		}
		for rows.Next() {
			var t string
			if err := rows.Scan(&t); err != nil {
				rows.Close()
				return nil, err
			}
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// claimOne leases the tenant's next claimable job, or returns nil: retries
// that came due and expired leases before new work, oldest first.
func claimOne(ctx context.Context, tx *sql.Tx, p *store.ClaimParams, tenant string, now int64) (*store.Lease, error) {
	for _, i := range []int{2, 1, 0} {
		c := claimable[i]
		var args []any
		if strings.Contains(c.where, "?") {
			args = append(args, now)
		}
		w, args := withVersion(c.where+` AND tenant = ?`, append(args, tenant), p.SchemaVersion)
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM jobs WHERE `+w+` ORDER BY id LIMIT 1`, args...).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find claimable job: %w", err)
		}
		l, err := grant(ctx, tx, p, id, c.recovered)
		if err != nil {
			return nil, fmt.Errorf("lease job %d: %w", id, err)
		}
		return l, nil
	}
	return nil, nil
}

// withVersion narrows a claimable condition to one schema version when
// version is set (ClaimParams.SchemaVersion).
func withVersion(where string, args []any, version string) (string, []any) {
	if version == "" {
		return where, args
	}
	return where + ` AND schema_version = ?`, append(args, version)
}

func queryIDs(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func grant(ctx context.Context, tx *sql.Tx, p *store.ClaimParams, id int64, recovered bool) (*store.Lease, error) {
	now := ms(p.Now)
	expires := p.Now.Add(p.LeaseFor)
	l := &store.Lease{JobID: id, ExpiresAt: expires.UTC(), Recovered: recovered}
	var text sql.NullString
	err := tx.QueryRowContext(ctx, `UPDATE jobs SET state = 'running', lease_owner = ?, lease_token = lease_token + 1,
			lease_expires_at = ?, attempts = attempts + 1, lease_recoveries = lease_recoveries + ?, updated_at = ?
		WHERE id = ?
		RETURNING tenant, job_key, schema_version, source_path, source_text, lease_token, attempts, budget_base,
			lease_recoveries - recovery_base`,
		p.Owner, ms(expires), boolInt(recovered), now, id).
		Scan(&l.Tenant, &l.JobKey, &l.SchemaVersion, &l.SourcePath, &text, &l.Token, &l.AttemptNo, &l.BudgetBase, &l.Recoveries)
	if err != nil {
		return nil, err
	}
	// Attempts lost to expired leases are not provider attempts.
	l.BudgetBase += l.Recoveries
	l.Text = text.String
	l.PrevAttempts = l.AttemptNo - 1
	if l.PrevAttempts > 0 {
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(input_tokens + output_tokens), 0) FROM attempts WHERE job_id = ?`,
			id).Scan(&l.PrevTokens); err != nil {
			return nil, err
		}
	}
	if recovered {
		// The previous holder's attempt never reported back.
		if _, err := tx.ExecContext(ctx, `UPDATE attempts SET outcome = ?, finished_at = ? WHERE job_id = ? AND outcome = ''`,
			store.OutcomeLeaseExpired, now, id); err != nil {
			return nil, err
		}
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO attempts (job_id, tenant, attempt_no, run_id, owner, lease_token, started_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		id, l.Tenant, l.AttemptNo, p.RunID, p.Owner, l.Token, now).Scan(&l.AttemptID)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Renew implements store.Store.
func (s *Store) Renew(ctx context.Context, p *store.RenewParams) (time.Time, error) {
	expires := p.Now.Add(p.LeaseFor).UTC()
	res, err := s.w.ExecContext(ctx, `UPDATE jobs SET lease_expires_at = ? WHERE id = ? AND lease_token = ? AND state = 'running'`,
		ms(expires), p.JobID, p.Token)
	if err != nil {
		return time.Time{}, fmt.Errorf("renew lease of job %d: %w", p.JobID, interpret(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return time.Time{}, fmt.Errorf("renew lease of job %d: %w", p.JobID, store.ErrStaleLease)
	}
	return expires, nil
}

// Commit implements store.Store. Commits from concurrent workers are
// grouped into one transaction (see committer), each under its own
// savepoint, so a lost fence rolls back only its own job.
func (s *Store) Commit(ctx context.Context, p *store.CommitParams) (*store.CommitResult, error) {
	req := &commitReq{p: p, done: make(chan struct{})}
	select {
	case s.commits <- req:
	case <-s.quit:
		return nil, fmt.Errorf("commit job %s: store closed", p.JobKey)
	case <-ctx.Done():
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, ctx.Err())
	}
	// Once handed over, the commit is carried out whatever ctx does: the
	// caller learns the outcome rather than guessing.
	<-req.done
	if errors.Is(req.err, store.ErrStaleLease) {
		return nil, s.recordStale(context.WithoutCancel(ctx), "commit", p.JobID, p.AttemptID, p.Attempt, p.Now)
	}
	if req.err != nil {
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, req.err)
	}
	return req.res, nil
}

type commitReq struct {
	p    *store.CommitParams
	res  *store.CommitResult
	err  error
	done chan struct{}
}

// maxGroupCommit bounds how many commits share one transaction and fsync.
const maxGroupCommit = 64

// committer is group commit: it takes whatever commits are waiting (never
// waiting for more, so a lone commit pays no latency) and writes them in one
// transaction, turning N fsyncs into one.
func (s *Store) committer() {
	defer close(s.committerDone)
	for {
		var first *commitReq
		select {
		case first = <-s.commits:
		case <-s.quit:
			return
		}
		batch := []*commitReq{first}
	drain:
		for len(batch) < maxGroupCommit {
			select {
			case r := <-s.commits:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.commitBatch(batch)
		for _, r := range batch {
			close(r.done)
		}
	}
}

func (s *Store) commitBatch(batch []*commitReq) {
	ctx := context.Background()
	err := s.tx(ctx, func(tx *sql.Tx) error {
		for _, r := range batch {
			if _, err := tx.ExecContext(ctx, `SAVEPOINT job_commit`); err != nil {
				return err
			}
			r.res, r.err = commitOne(ctx, tx, r.p)
			if r.err != nil {
				r.res = nil
				if _, err := tx.ExecContext(ctx, `ROLLBACK TO job_commit`); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `RELEASE job_commit`); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for _, r := range batch {
			if r.err == nil {
				r.res, r.err = nil, err
			}
		}
	}
}

func commitOne(ctx context.Context, tx *sql.Tx, p *store.CommitParams) (*store.CommitResult, error) {
	var out store.CommitResult
	now := ms(p.Now)
	var reasons []store.ReviewReason
	if p.Review != nil {
		// Checked before anything is written: a bad reason is a bug.
		var err error
		if reasons, err = driver.CheckReasons(p.Review.Reasons); err != nil {
			return nil, err
		}
	}
	// The fence: only the current lease holder moves the job on.
	var jobShadow int
	err := tx.QueryRowContext(ctx, `UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_expires_at = NULL,
			next_attempt_at = NULL, updated_at = ?
		WHERE id = ? AND lease_token = ? AND state = 'running' RETURNING shadow`, now, p.JobID, p.Token).Scan(&jobShadow)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrStaleLease
	}
	if err != nil {
		return nil, err
	}
	// A shadow run's job stays shadow whoever commits it.
	shadow := p.Shadow || jobShadow != 0
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
	err = tx.QueryRowContext(ctx, `INSERT INTO results (tenant, job_key, job_id, schema_version, result, attempt_id, run_id, shadow, committed_at,
			supplier_vat_key, supplier_key, number_key, doc_total_minor, doc_issue_date, source_digest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN ? THEN (SELECT source_digest FROM jobs WHERE id = ?) END)
		ON CONFLICT (tenant, job_key) DO UPDATE SET tenant = excluded.tenant
		RETURNING id, attempt_id`,
		p.Tenant, p.JobKey, p.JobID, p.SchemaVersion, string(p.Result), p.AttemptID, p.RunID, boolInt(shadow), now,
		id.VATKey, id.NameKey, id.NumberKey, id.TotalMinor, id.IssueDate, id.Digest, p.JobID).
		Scan(&out.ResultID, &attemptID)
	if err != nil {
		return nil, fmt.Errorf("insert result: %w", err)
	}
	out.Existing = attemptID != p.AttemptID
	if _, err := tx.ExecContext(ctx, `UPDATE jobs SET result_id = ? WHERE id = ?`, out.ResultID, p.JobID); err != nil {
		return nil, err
	}
	if !out.Existing {
		// A job that replaces the text committed at its path (a held change
		// accepted in review) supersedes that result; the old result keeps
		// its outbox events, which are never sent again.
		if _, err := tx.ExecContext(ctx, `UPDATE results SET superseded_by = ?
			WHERE tenant = ? AND superseded_by IS NULL AND id <> ?
				AND job_key = (SELECT prev_job_key FROM jobs WHERE id = ? AND prev_job_key IS NOT NULL)`,
			out.ResultID, p.Tenant, out.ResultID, p.JobID); err != nil {
			return nil, fmt.Errorf("supersede previous result: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sources SET digest = j.source_digest, job_key = j.job_key, updated_at = ?
			FROM (SELECT source_digest, job_key, prev_job_key, source_system, source_path FROM jobs WHERE id = ?) AS j
			WHERE sources.tenant = ? AND sources.source_system = j.source_system AND sources.path = j.source_path
				AND sources.job_key = j.prev_job_key`, now, p.JobID, p.Tenant); err != nil {
			return nil, fmt.Errorf("move source reference: %w", err)
		}
	}
	if review && !out.Existing {
		if reasons, err = openReasons(ctx, tx, p.Tenant, p.JobKey, out.ResultID, p.JobID, p.Review.Identity, reasons, now); err != nil {
			return nil, err
		}
		out.Reasons = driver.Reasons(reasons)
	}
	if !shadow && !out.Existing {
		evState := driver.EventState(len(reasons))
		for i := range p.Outbox {
			ev := &p.Outbox[i]
			if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, created_at, state)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, event_key) DO NOTHING`,
				p.Tenant, store.EventKey(p.JobKey, ev), p.JobKey, out.ResultID, ev.ActionID, ev.Kind, string(ev.Payload), now, evState); err != nil {
				return nil, fmt.Errorf("insert outbox event %s: %w", ev.ActionID, err)
			}
		}
	}
	if err := finishAttemptRow(ctx, tx, p.AttemptID, &p.Attempt, now); err != nil {
		return nil, err
	}
	return &out, nil
}

// recordStale marks a fenced-out attempt; op names the fenced operation
// (commit, finish attempt of, start next attempt of) for the error. It runs in its own transaction
// because the commit's was rolled back whole.
func (s *Store) recordStale(ctx context.Context, op string, jobID, attemptID int64, a store.AttemptInfo, now time.Time) error {
	a.Outcome = store.OutcomeStaleLease
	a.Output = nil
	// Only an attempt still open (or closed by a lease recovery) becomes
	// stale_lease: a replayed call must not rewrite a finished attempt.
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE attempts SET outcome = ?, finished_at = ?, error_class = ?, message = ?,
				provider = ?, model = ?, duration_ms = ?, input_tokens = ?, output_tokens = ?, prompt_hash = ?
			WHERE id = ? AND outcome IN ('', ?)`,
			a.Outcome, ms(now), a.ErrorClass, a.Message, a.Provider, a.Model, a.Duration.Milliseconds(),
			a.InputTokens, a.OutputTokens, a.PromptHash, attemptID, store.OutcomeLeaseExpired)
		return err
	})
	if err != nil {
		return fmt.Errorf("record stale attempt of job %d: %w (after %w)", jobID, err, store.ErrStaleLease)
	}
	return fmt.Errorf("%s job %d: %w", op, jobID, store.ErrStaleLease)
}

func finishAttemptRow(ctx context.Context, tx *sql.Tx, attemptID int64, a *store.AttemptInfo, now int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE attempts SET outcome = ?, finished_at = ?, error_class = ?, category = ?, message = ?,
			provider = ?, model = ?, http_status = ?, request_id = ?, duration_ms = ?, input_tokens = ?, output_tokens = ?,
			next_delay_ms = ?, prompt_hash = ?, output = ?
		WHERE id = ?`,
		a.Outcome, now, a.ErrorClass, a.Category, a.Message, a.Provider, a.Model, a.HTTPStatus, a.RequestID,
		a.Duration.Milliseconds(), a.InputTokens, a.OutputTokens, a.NextDelay.Milliseconds(), a.PromptHash, a.Output, attemptID)
	if err != nil {
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
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := ms(p.Now)
		res, err := tx.ExecContext(ctx, `UPDATE jobs SET state = ?, lease_owner = NULL, lease_expires_at = NULL,
				next_attempt_at = ?, last_error_class = ?, last_category = ?, last_error = ?, updated_at = ?
			WHERE id = ? AND lease_token = ? AND state = 'running'`,
			p.State, nullMS(p.NextAttemptAt), p.Attempt.ErrorClass, p.Attempt.Category, p.Attempt.Message, now, p.JobID, p.Token)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrStaleLease
		}
		return finishAttemptRow(ctx, tx, p.AttemptID, &p.Attempt, now)
	})
	if errors.Is(err, store.ErrStaleLease) {
		return s.recordStale(ctx, "finish attempt of", p.JobID, p.AttemptID, p.Attempt, p.Now)
	}
	if err != nil {
		return fmt.Errorf("finish attempt of job %d: %w", p.JobID, err)
	}
	return nil
}

// ReapLeases implements store.Store.
func (s *Store) ReapLeases(ctx context.Context, p *store.ReapLeasesParams) (int, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT lease_owner FROM jobs WHERE state = 'running' AND lease_owner IS NOT NULL`)
	if err != nil {
		return 0, fmt.Errorf("list lease owners: %w", interpret(err))
	}
	var gone []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			rows.Close()
			return 0, fmt.Errorf("list lease owners: %w", interpret(err))
		}
		if !p.Alive(o) {
			gone = append(gone, o)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("list lease owners: %w", interpret(err))
	}
	if err := s.reapRuns(ctx, p); err != nil {
		return 0, err
	}
	if err := s.reapOutbox(ctx, p); err != nil {
		return 0, err
	}
	n := 0
	for _, o := range gone {
		res, err := s.w.ExecContext(ctx, `UPDATE jobs SET lease_expires_at = ? WHERE state = 'running' AND lease_owner = ? AND lease_expires_at > ?`,
			ms(p.Now), o, ms(p.Now))
		if err != nil {
			return n, fmt.Errorf("expire leases of %s: %w", o, interpret(err))
		}
		k, _ := res.RowsAffected()
		n += int(k)
	}
	return n, nil
}

func msDuration(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// NextAttempt implements store.Store.
func (s *Store) NextAttempt(ctx context.Context, p *store.NextAttemptParams) (*store.NextAttemptResult, error) {
	var id int64
	var no int
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := ms(p.Now)
		var tenant string
		err := tx.QueryRowContext(ctx, `UPDATE jobs SET attempts = attempts + 1, last_error_class = ?, last_category = ?,
				last_error = ?, updated_at = ?
			WHERE id = ? AND lease_token = ? AND state = 'running' RETURNING attempts, tenant`,
			p.Attempt.ErrorClass, p.Attempt.Category, p.Attempt.Message, now, p.JobID, p.Token).Scan(&no, &tenant)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrStaleLease
		}
		if err != nil {
			return err
		}
		if err := finishAttemptRow(ctx, tx, p.AttemptID, &p.Attempt, now); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `INSERT INTO attempts (job_id, tenant, attempt_no, run_id, owner, lease_token, started_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, p.JobID, tenant, no, p.RunID, p.Owner, p.Token, now).Scan(&id)
	})
	if errors.Is(err, store.ErrStaleLease) {
		return nil, s.recordStale(ctx, "start next attempt of", p.JobID, p.AttemptID, p.Attempt, p.Now)
	}
	if err != nil {
		return nil, fmt.Errorf("next attempt of job %d: %w", p.JobID, err)
	}
	return &store.NextAttemptResult{AttemptID: id, AttemptNo: no}, nil
}

// reapRuns marks runs whose process is gone as abandoned, so a SIGKILLed run
// does not look like it is still going.
func (s *Store) reapRuns(ctx context.Context, p *store.ReapLeasesParams) error {
	rows, err := s.r.QueryContext(ctx, `SELECT id, owner FROM runs WHERE status = 'running' AND owner <> ''`)
	if err != nil {
		return fmt.Errorf("list running runs: %w", interpret(err))
	}
	var gone []string
	for rows.Next() {
		var id, owner string
		if err := rows.Scan(&id, &owner); err != nil {
			rows.Close()
			return fmt.Errorf("list running runs: %w", interpret(err))
		}
		if !p.Alive(owner) {
			gone = append(gone, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list running runs: %w", interpret(err))
	}
	for _, id := range gone {
		if _, err := s.w.ExecContext(ctx, `UPDATE runs SET status = 'abandoned', finished_at = ? WHERE id = ? AND status = 'running'`,
			ms(p.Now), id); err != nil {
			return fmt.Errorf("mark run %s abandoned: %w", id, interpret(err))
		}
	}
	return nil
}
