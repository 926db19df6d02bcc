package jobs

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// enqueueBatch bounds one enqueue transaction: large enough to amortise the
// commit (an fsync, or a round trip), small enough that other writers are
// not kept waiting for long.
const enqueueBatch = 500

// Enqueue implements store.Store.
func (c *Core) Enqueue(ctx context.Context, p *store.EnqueueParams) ([]store.EnqueueResult, error) {
	_, now, err := c.E.Clock(ctx, p.Now)
	if err != nil {
		return nil, err // the caller names the enqueue
	}
	out := make([]store.EnqueueResult, len(p.Docs))
	for start := 0; start < len(p.Docs); start += enqueueBatch {
		end := min(start+enqueueBatch, len(p.Docs))
		order := make([]int, 0, end-start)
		for i := start; i < end; i++ {
			order = append(order, i)
		}
		if c.E.KeyOrder() {
			// Stable, so the same text under two paths keeps its first
			// path (new, then duplicate).
			sort.SliceStable(order, func(a, b int) bool { return p.Docs[order[a]].JobKey < p.Docs[order[b]].JobKey })
		}
		// A read-only pass first: documents whose enqueue would write
		// nothing are answered from it, and a chunk of them alone (a
		// no-op rerun) opens no write transaction, so commits nothing
		// and syncs nothing.
		order, k0, err := c.settleRead(ctx, p, order, out)
		if err != nil {
			return nil, err
		}
		if len(order) == 0 {
			continue
		}
		pre := c.prepack(p, order, k0)
		err = c.write(ctx, regionEnqueue, func(tx Tx) error {
			if err := addLabels(ctx, tx, p.Docs, order); err != nil {
				return err
			}
			k, err := c.lookupBatch(ctx, tx, p.Tenant, p.Docs, order, false)
			if err != nil {
				return err
			}
			if err := clearSkipped(ctx, tx, p.Tenant, p.Docs, order); err != nil {
				return err
			}
			// A document the lookup settles costs no statement (or one, to
			// bring its file stat up to date). One whose path an earlier
			// document of the batch wrote takes the full path, as the
			// lookup no longer describes its reference. (An earlier
			// document cannot have changed a job the lookup found in a way
			// settled accepts: enqueue only inserts jobs, or releases held
			// ones, which settled leaves to the full path.)
			touched := map[sourceRef]bool{}
			// A run of fresh documents is written together before any
			// document that takes another path, so every document still
			// sees the writes of those before it, in order.
			var run []int
			inRun := map[string]bool{}
			flush := func() error {
				err := c.insertFresh(ctx, tx, p, pre, run, now, out)
				run = run[:0]
				clear(inRun)
				return err
			}
			for _, i := range order {
				d := &p.Docs[i]
				ref := sourceRef{d.SourceSystem, d.Path}
				if !touched[ref] {
					if r, stale, ok := k.settled(p, d); ok {
						if stale {
							if err := restat(ctx, tx, p.Tenant, d); err != nil {
								return fmt.Errorf("enqueue %s: record file stat: %w", d.Path, err)
							}
						}
						out[i] = r
						continue
					}
				}
				if k.fresh(d, touched, inRun) {
					run = append(run, i)
					inRun[d.JobKey], touched[ref] = true, true
					continue
				}
				if err := flush(); err != nil {
					return err
				}
				if d.Unread {
					// Its text is not at hand: never insert a job without it.
					return fmt.Errorf("enqueue %s: %w", d.Path, store.ErrUnreadUnknown)
				}
				// The lookup describes the path's reference unless an
				// earlier document of the batch rewrote it.
				var src *knownSource
				if !touched[ref] {
					ks, seen := k.sources[ref]
					if !seen {
						ks = knownSource{} // no reference: a new path
					}
					src = &ks
				}
				touched[ref] = true
				r, err := c.enqueueOne(ctx, tx, p, pre, d, src, now)
				if err != nil {
					return fmt.Errorf("enqueue %s: %w", p.Docs[i].Path, err)
				}
				out[i] = r
			}
			return flush()
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// settleRead answers, from one read outside any transaction, the
// documents of order whose enqueue would change nothing (known.settled,
// with the file stat already recorded and no skip of the path to clear),
// writing their results to out; it returns the others, in order, and the
// lookup it read (for prepack). The
// answer is the one a write transaction would have given at the moment of
// the read: a settled document writes nothing, so nothing orders it after
// another writer. A path named twice in the chunk is left to the write
// transaction, which sees the first one's write.
func (c *Core) settleRead(ctx context.Context, p *store.EnqueueParams, order []int, out []store.EnqueueResult) ([]int, *known, error) {
	k, err := c.lookupBatch(ctx, c.E.Read(), p.Tenant, p.Docs, order, true)
	if err != nil {
		return nil, nil, err
	}
	seen := make(map[sourceRef]int, len(order))
	for _, i := range order {
		seen[sourceRef{p.Docs[i].SourceSystem, p.Docs[i].Path}]++
	}
	rest := order[:0:0]
	for _, i := range order {
		d := &p.Docs[i]
		ref := sourceRef{d.SourceSystem, d.Path}
		src, found := k.sources[ref]
		if found && !src.skipped && seen[ref] == 1 {
			if r, stale, ok := k.settled(p, d); ok && !stale {
				out[i] = r
				continue
			}
		}
		rest = append(rest, i)
	}
	return rest, k, nil
}

// enqueueOne enqueues one document inside the batch's transaction: decide
// whether a changed text is held, insert its job (or find the job that
// already has its key), then record where the text was seen.
func (c *Core) enqueueOne(ctx context.Context, tx Tx, p *store.EnqueueParams, pre packedTexts, d *store.Document, src *knownSource, now int64) (store.EnqueueResult, error) {
	res := store.EnqueueResult{JobKey: d.JobKey}
	h, err := changeHold(ctx, tx, p, d, src)
	if err != nil {
		return res, err
	}
	if h.prevKey != nil {
		res.PrevJobKey = *h.prevKey
	}
	if err := c.insertJob(ctx, tx, p, pre, d, now, h, &res); err != nil {
		return res, err
	}
	if err := recordSource(ctx, tx, p, d, now, res.JobID, res.Outcome); err != nil {
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
// be processed, such a job is held for a person (identity_conflict). src
// is the path's reference as the batch's lookup read it (a zero digest:
// none), or nil when it must be read again.
func changeHold(ctx context.Context, tx Tx, p *store.EnqueueParams, d *store.Document, src *knownSource) (hold, error) {
	h := hold{state: store.StateQueued}
	// Is this path known, and did its text change since?
	var srcDigest, srcKey string
	known := false
	if src != nil {
		srcDigest, srcKey, known = src.digest, src.jobKey, src.digest != ""
	} else {
		err := tx.QueryRow(ctx, `SELECT s.digest, j.job_key FROM sources s JOIN jobs j ON j.id = s.job_id
			WHERE s.tenant = ? AND s.system_id = `+labelID+` AND s.path = ?`,
			p.Tenant, d.SourceSystem, d.Path).Scan(keyOut(&srcDigest), keyOut(&srcKey))
		known = err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return h, err
		}
	}
	if known && srcDigest != d.Digest && srcKey != d.JobKey && p.OnChange != store.OnChangeProcess {
		var prevState string
		err := tx.QueryRow(ctx, `SELECT state FROM jobs WHERE tenant = ? AND job_key = ?`, p.Tenant, bin(srcKey)).Scan(&prevState)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
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
func (c *Core) insertJob(ctx context.Context, tx Tx, p *store.EnqueueParams, pre packedTexts, d *store.Document, now int64, h hold, res *store.EnqueueResult) error {
	// Insert-or-ignore: the unique (tenant, job_key) index decides, never a
	// prior SELECT, so concurrent enqueuers cannot both insert. One that
	// races another's uncommitted insert of the same key waits for it.
	var prevArg any
	if h.prevKey != nil {
		prevArg = bin(*h.prevKey)
	}
	err := tx.QueryRow(ctx, `INSERT INTO jobs (tenant, job_key, transformation, schema_version, source_digest,
			system_id, source_path, state, held_reason, prev_job_key, first_run_id, created_at, updated_at,
			display_path, source_encoding, shadow, source_format, route)
		VALUES (?, ?, ?, ?, ?, `+labelID+`, ?, ?, ?, ?, ?, ?, ?, nullif(?, ''), nullif(?, ''), ?, nullif(?, ''), nullif(?, ''))
		ON CONFLICT (tenant, job_key) DO NOTHING RETURNING id`,
		p.Tenant, bin(d.JobKey), p.Transformation, p.SchemaVersion, bin(d.Digest), d.SourceSystem, d.Path,
		h.state, h.reason, prevArg, p.RunID, now, now, d.DisplayPath, d.Encoding, p.Shadow, d.Format, d.Route).Scan(&res.JobID)
	switch {
	case err == nil:
		// The text goes in its own table (migration 016), compressed
		// before the transaction when prepack expected the insert.
		if err := tx.Defer(ctx, `INSERT INTO job_texts (job_id, zst) VALUES (?, ?)`,
			res.JobID, c.text(pre, d)); err != nil {
			return fmt.Errorf("insert text: %w", err)
		}
		res.Outcome = store.EnqueueNew
		if h.state == store.StateHeld {
			res.Outcome = store.EnqueueHeld
		}
		return nil
	case errors.Is(err, store.ErrNotFound):
		return existingJob(ctx, tx, p, d, now, res)
	default:
		return err
	}
}

// existingJob sets res from the job that already has the document's key,
// releasing it if it was held and the user now asks for changes to be
// processed.
func existingJob(ctx context.Context, tx Tx, p *store.EnqueueParams, d *store.Document, now int64, res *store.EnqueueResult) error {
	var jobState, jobPath string
	if err := tx.QueryRow(ctx, `SELECT id, state, source_path, prev_job_key FROM jobs WHERE tenant = ? AND job_key = ?`,
		p.Tenant, bin(d.JobKey)).Scan(&res.JobID, &jobState, &jobPath, keyOut(&res.PrevJobKey)); err != nil {
		return err
	}
	if jobState != store.StateHeld || p.OnChange != store.OnChangeProcess {
		res.Outcome = driver.ExistingOutcome(jobState, jobPath, d.Path)
		return nil
	}
	// The user now asks for changed texts to be processed: a job
	// held earlier for an identity conflict is released.
	n, err := tx.Exec(ctx, `UPDATE jobs SET state = 'queued', held_reason = NULL, updated_at = ?
				WHERE id = ? AND state = 'held' AND held_reason = 'identity_conflict'`, now, res.JobID)
	if err != nil {
		return err
	}
	res.Outcome = store.EnqueueHeld
	if n == 1 {
		res.Outcome = store.EnqueueNew
	}
	return nil
}

// recordSource records where the text was seen (clearSkipped resolved an
// earlier skip of the path for the whole batch).
func recordSource(ctx context.Context, tx Tx, p *store.EnqueueParams, d *store.Document, now, jobID int64, outcome string) error {
	// Record where this text was seen. A held change leaves the reference on
	// the committed text until someone accepts the change.
	if outcome != store.EnqueueHeld {
		// The stat goes with the digest it was read with: rewritten when
		// either changes, the job key and time only when the text did.
		size, mtime, ctime, inode, opts := statArgs(d.Stat)
		if err := tx.Defer(ctx, `INSERT INTO sources (tenant, system_id, path, digest, job_id, updated_at,
				file_size, file_mtime_ns, file_ctime_ns, file_inode, read_opts_id)
			VALUES (?, `+labelID+`, ?, ?, ?, ?, ?, ?, ?, ?, `+labelID+`)
			`+sourcesUpsert,
			p.Tenant, d.SourceSystem, d.Path, bin(d.Digest), jobID, now, size, mtime, ctime, inode, opts); err != nil {
			return err
		}
	}
	return nil
}

// sourcesUpsert is how a sources row meets the row already kept for its
// path, for the per-document and the multi-row enqueue alike: the digest
// and the file's stat are updated when either changes, the job and the time
// only when the text did.
const sourcesUpsert = `ON CONFLICT (tenant, system_id, path) DO UPDATE SET digest = excluded.digest,
	job_id = CASE WHEN sources.digest <> excluded.digest THEN excluded.job_id ELSE sources.job_id END,
	updated_at = CASE WHEN sources.digest <> excluded.digest THEN excluded.updated_at ELSE sources.updated_at END,
	file_size = excluded.file_size, file_mtime_ns = excluded.file_mtime_ns, file_ctime_ns = excluded.file_ctime_ns,
	file_inode = excluded.file_inode, read_opts_id = excluded.read_opts_id
WHERE sources.digest <> excluded.digest OR excluded.file_size IS NOT NULL AND (
	sources.file_size IS DISTINCT FROM excluded.file_size OR sources.file_mtime_ns IS DISTINCT FROM excluded.file_mtime_ns
	OR sources.file_ctime_ns IS DISTINCT FROM excluded.file_ctime_ns OR sources.file_inode IS DISTINCT FROM excluded.file_inode
	OR sources.read_opts_id IS DISTINCT FROM excluded.read_opts_id)`
