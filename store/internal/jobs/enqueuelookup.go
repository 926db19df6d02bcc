package jobs

import (
	"context"
	"fmt"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// known is what one batched lookup found about a batch's documents before
// any of them is written: their jobs by key and their source references by
// (source system, path). A no-op rerun is then decided from memory, with
// no statement per document.
type known struct {
	jobs    map[string]knownJob
	sources map[sourceRef]string // digest the path was last seen with
}

type knownJob struct {
	id          int64
	state, path string
	prevKey     string
}

type sourceRef struct{ system, path string }

// lookupBatch reads, in one query per table (per source system for the
// references), the jobs and source references the batch's documents name.
func lookupBatch(ctx context.Context, tx Tx, tenant string, docs []store.Document, order []int) (*known, error) {
	k := &known{jobs: make(map[string]knownJob, len(order)), sources: make(map[sourceRef]string, len(order))}
	keys := make([]any, 0, len(order)+1)
	keys = append(keys, tenant)
	paths := map[string][]any{} // source system -> tenant, system, paths...
	for _, i := range order {
		d := &docs[i]
		keys = append(keys, d.JobKey)
		if paths[d.SourceSystem] == nil {
			paths[d.SourceSystem] = []any{tenant, d.SourceSystem}
		}
		paths[d.SourceSystem] = append(paths[d.SourceSystem], d.Path)
	}
	rows, err := tx.Query(ctx, `SELECT job_key, id, state, source_path, coalesce(prev_job_key, '')
		FROM jobs WHERE tenant = ? AND job_key IN (`+Placeholders(len(keys)-1)+`)`, keys...)
	err = each(rows, err, func(r Rows) error {
		var key string
		var j knownJob
		if err := r.Scan(&key, &j.id, &j.state, &j.path, &j.prevKey); err != nil {
			return err
		}
		k.jobs[key] = j
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look up jobs: %w", err)
	}
	for system, args := range paths {
		rows, err := tx.Query(ctx, `SELECT path, digest FROM sources WHERE tenant = ? AND source_system = ? AND path IN (`+
			Placeholders(len(args)-2)+`)`, args...)
		err = each(rows, err, func(r Rows) error {
			var p, digest string
			if err := r.Scan(&p, &digest); err != nil {
				return err
			}
			k.sources[sourceRef{system, p}] = digest
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("look up sources: %w", err)
		}
	}
	return k, nil
}

// settled reports the outcome of a document whose enqueue would change
// nothing: its job exists (so the insert would find it and the change
// check would not matter), its path already points at its text (so the
// reference would not be rewritten), and no held job is to be released.
// ok is false when the document must take the full path.
func (k *known) settled(p *store.EnqueueParams, d *store.Document) (res store.EnqueueResult, ok bool) {
	j, found := k.jobs[d.JobKey]
	if !found {
		return res, false
	}
	if j.state == store.StateHeld && p.OnChange == store.OnChangeProcess {
		return res, false // existingJob may release it
	}
	outcome := driver.ExistingOutcome(j.state, j.path, d.Path)
	if outcome != store.EnqueueHeld {
		// recordSource would insert or rewrite the reference unless the
		// path already points at this text.
		if digest, seen := k.sources[sourceRef{d.SourceSystem, d.Path}]; !seen || digest != d.Digest {
			return res, false
		}
	}
	return store.EnqueueResult{Outcome: outcome, JobID: j.id, JobKey: d.JobKey, PrevJobKey: j.prevKey}, true
}

// clearSkipped resolves, in one statement per source system, earlier skips
// of the batch's paths: they were read and enqueued now.
func clearSkipped(ctx context.Context, tx Tx, tenant string, docs []store.Document, order []int) error {
	paths := map[string][]any{}
	for _, i := range order {
		d := &docs[i]
		if paths[d.SourceSystem] == nil {
			paths[d.SourceSystem] = []any{tenant, d.SourceSystem}
		}
		paths[d.SourceSystem] = append(paths[d.SourceSystem], d.Path)
	}
	for _, args := range paths {
		if err := tx.Defer(ctx, `DELETE FROM skipped_inputs WHERE tenant = ? AND source_system = ? AND path IN (`+
			Placeholders(len(args)-2)+`)`, args...); err != nil {
			return fmt.Errorf("clear skipped inputs: %w", err)
		}
	}
	return nil
}
