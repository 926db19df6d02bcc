package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/invx/invx/store"
)

// openReasonsOf returns the job's open review reasons (none for a job
// without a committed result).
func openReasonsOf(ctx context.Context, st store.Store, job *store.Job) ([]*store.ReviewItem, error) {
	if job.State != store.StateSucceeded {
		return nil, nil
	}
	all, err := st.ListReview(ctx, &store.ListReviewParams{Tenant: job.Tenant})
	if err != nil {
		return nil, err
	}
	var out []*store.ReviewItem
	for _, it := range all {
		if it.JobKey == job.JobKey {
			out = append(out, it)
		}
	}
	return out, nil
}

// heldEvents names the job's held outbox events (without the job key:
// "invoice.committed", "action:a1"), the ones accept releases and dismiss
// cancels.
func heldEvents(ctx context.Context, st store.Store, job *store.Job) ([]string, error) {
	evs, err := st.ListOutbox(ctx, &store.ListOutboxParams{Tenant: job.Tenant, JobKey: job.JobKey})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range evs {
		if e.State == store.OutboxHeld {
			out = append(out, strings.TrimPrefix(e.EventKey, job.JobKey+":"))
		}
	}
	return out, nil
}

func reasonNames(open []*store.ReviewItem) string {
	names := make([]string, 0, len(open))
	for _, it := range open {
		names = append(names, it.Reason)
	}
	return strings.Join(names, ", ")
}

// acceptReasons closes the job's open review reasons as accepted and
// releases its held events (review accept of a committed result).
func acceptReasons(ctx context.Context, f *Factory, st store.Store, job *store.Job, open []*store.ReviewItem, actor, note string) error {
	actor, err := reviewActor(f, "review accept", actor)
	if err != nil {
		return err
	}
	held, err := heldEvents(ctx, st, job)
	if err != nil {
		return err
	}
	res, err := st.AcceptReview(ctx, &store.ReviewActionParams{Tenant: job.Tenant, JobKey: job.JobKey, Actor: actor, Note: note, Now: f.Now()})
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("review accept: job %s has no open review reason any more (someone else resolved it?): %w", shortKey(job.JobKey), err)
	}
	if err != nil {
		return err
	}
	w := f.IO.ErrOut
	fmt.Fprintf(w, "accepted %s (%s): %s, by %s\n", shortKey(job.JobKey), jobPath(job), reasonNames(open), actor)
	if res.Events == 0 {
		fmt.Fprintln(w, "no held event to release")
		return nil
	}
	fmt.Fprintf(w, "released %d held event(s) for invx outbox deliver: %s\n", res.Events, strings.Join(held, ", "))
	return nil
}

// dismissReasons closes the job's open review reasons as dismissed: its
// held events are cancelled and invoice.dismissed is queued.
func dismissReasons(ctx context.Context, f *Factory, st store.Store, job *store.Job, open []*store.ReviewItem, actor, reason string) error {
	actor, err := reviewActor(f, "review dismiss", actor)
	if err != nil {
		return err
	}
	held, err := heldEvents(ctx, st, job)
	if err != nil {
		return err
	}
	res, err := st.DismissReview(ctx, &store.ReviewActionParams{Tenant: job.Tenant, JobKey: job.JobKey, Actor: actor, Note: reason, Now: f.Now()})
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("review dismiss: job %s has no open review reason any more (someone else resolved it?): %w", shortKey(job.JobKey), err)
	}
	if err != nil {
		return err
	}
	w := f.IO.ErrOut
	fmt.Fprintf(w, "dismissed %s (%s): %s, by %s\n", shortKey(job.JobKey), jobPath(job), reasonNames(open), actor)
	if res.Events > 0 {
		fmt.Fprintf(w, "cancelled %d held event(s), never delivered: %s\n", res.Events, strings.Join(held, ", "))
	}
	fmt.Fprintf(w, "queued %s for invx outbox deliver\n", store.EventDismissed)
	return nil
}
