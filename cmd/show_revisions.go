package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/invx/invx/store"
)

// showRevisions reads the corrections of a job's result for invx show.
func showRevisions(ctx context.Context, st store.Store, job *store.Job, reveal bool) ([]showRevision, error) {
	revs, err := st.ListRevisions(ctx, &store.ListRevisionsParams{Tenant: job.Tenant, JobKey: job.JobKey})
	if err != nil {
		return nil, fmt.Errorf("show revisions of job %s: %w", shortKey(job.JobKey), err)
	}
	out := make([]showRevision, 0, len(revs))
	for _, r := range revs {
		changes := make([]store.FieldChange, 0, len(r.Changes))
		for _, ch := range r.Changes {
			if !reveal {
				ch.Old, ch.New = json.RawMessage(maskChange(ch.Field, ch.Old)), json.RawMessage(maskChange(ch.Field, ch.New))
			}
			changes = append(changes, ch)
		}
		out = append(out, showRevision{Revision: r.Revision, CreatedAt: ts(r.CreatedAt), Actor: r.Actor, Reason: r.Reason,
			Changes: changes})
	}
	return out, nil
}

// renderRevisions prints the result's correction history, oldest first,
// and which revision the result above is.
func renderRevisions(w io.Writer, j *showJob) {
	if len(j.Revisions) == 0 || j.Result == nil {
		return
	}
	fmt.Fprintf(w, "%-16s%d (the result above is revision %d)\n", "revisions", len(j.Revisions), j.Result.Revision)
	for _, r := range j.Revisions {
		fmt.Fprintf(w, "  #%d %s  by %s: %s\n", r.Revision, r.CreatedAt, safeCell(r.Actor), safeCell(r.Reason))
		for _, ch := range r.Changes {
			fmt.Fprintf(w, "     %s: %s -> %s\n", ch.Field, ch.Old, ch.New)
		}
	}
}
