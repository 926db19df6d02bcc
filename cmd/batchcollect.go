package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
	"github.com/invx/invx/telemetry"
)

// batchCollectOut is what invx batch collect --json prints.
type batchCollectOut struct {
	Runs      []*extract.Summary `json:"runs"`
	Collected []batchJSON        `json:"collected"`
	Open      []batchJSON        `json:"open"`
}

// batchCollectRun collects (or cancels, then collects) the open batches,
// or the one named: one delivery per provider and model, since each needs
// its own client.
func batchCollectRun(ctx context.Context, f *Factory, opts *BatchCollectOptions) error {
	st, err := f.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	targets, err := collectTargets(ctx, f, st, opts)
	if err != nil || len(targets) == 0 {
		return err
	}
	type group struct{ provider, model string }
	var order []group
	ids := map[group][]int64{}
	for _, b := range targets {
		g := group{b.Provider, b.Model}
		if ids[g] == nil {
			order = append(order, g)
		}
		ids[g] = append(ids[g], b.ID)
	}
	out := &batchCollectOut{Runs: []*extract.Summary{}, Collected: []batchJSON{}, Open: []batchJSON{}}
	var review int
	for _, g := range order {
		n, err := collectGroup(ctx, f, st, opts, g.provider, g.model, ids[g], targets, out)
		if err != nil {
			return err
		}
		review += n
	}
	if opts.JSON {
		if err := printJSON(f.IO.Out, out); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return interruptedError{}
	}
	if review > 0 {
		return &needsReviewError{n: review}
	}
	return nil
}

// collectTargets are the batches to collect: the one named, or every open
// one.
func collectTargets(ctx context.Context, f *Factory, st store.Store, opts *BatchCollectOptions) ([]*store.Batch, error) {
	if opts.Ref == "" {
		bs, err := st.ListBatches(ctx, &store.ListBatchesParams{States: []string{store.BatchPreparing, store.BatchSubmitted}})
		if err != nil {
			return nil, err
		}
		if len(bs) == 0 && !opts.JSON {
			fmt.Fprintln(f.IO.ErrOut, "no open batch")
		}
		return bs, nil
	}
	b, err := getBatch(ctx, st, opts.Ref)
	if err != nil {
		return nil, err
	}
	if b.State != store.BatchPreparing && b.State != store.BatchSubmitted {
		if opts.cancel {
			return nil, &usageError{err: fmt.Errorf("batch %d is %s: nothing to cancel", b.ID, b.State), try: "invx batch list --open"}
		}
		fmt.Fprintf(f.IO.ErrOut, "batch %d is already %s\n", b.ID, b.State)
		return nil, nil
	}
	return []*store.Batch{b}, nil
}

// collectGroup collects the batches ids of one provider and model as one
// delivery, and returns how many documents it left needing review.
func collectGroup(ctx context.Context, f *Factory, st store.Store, opts *BatchCollectOptions, provider, model string,
	ids []int64, targets []*store.Batch, out *batchCollectOut) (int, error) {
	po := opts.Provider
	po.Name, po.Model, po.cmdName = provider, model, "batch"
	client, err := f.batchClientFor(provider, &po)
	if err != nil {
		return 0, err
	}
	if opts.cancel {
		for _, b := range targets {
			if b.RemoteID == "" {
				continue // never known sent: cancelled without a call (or adopted, then cancelled)
			}
			if _, err := client.Cancel(ctx, b.RemoteID); err != nil {
				return 0, fmt.Errorf("cancel batch %d at %s: %w", b.ID, provider, err)
			}
			fmt.Fprintf(f.IO.ErrOut, "batch %d: cancel requested at %s\n", b.ID, provider)
		}
	}
	prov, defRepair, err := f.providerFor(&po)
	if err != nil {
		return 0, err
	}
	ro := &runnerOptions{Command: "work", Provider: prov, ProviderOpts: &po, Schema: schema.Latest(), Concurrency: 1,
		MaxAttempts: defaultMaxAttempts, MaxRecoveries: extract.DefaultMaxRecoveries, Repair: defRepair,
		MaxBackoff: defaultMaxBackoff, Lease: opts.Lease, DBRetry: defaultDBRetry}
	ctx, d, err := startDelivery(ctx, f, st, ro, TelemetryOptions{}, telemetry.InitParams{SchemaVersion: ro.Schema.Name,
		Provider: provider, Work: true})
	if err != nil {
		return 0, err
	}
	defer d.abandon(ctx)
	rep, werr := d.r.WorkBatch(ctx, extract.BatchOptions{Client: client, CollectOnly: true, IDs: ids, Wait: opts.Wait || opts.cancel,
		Cancel: opts.cancel, RepairSync: opts.RepairSync, PollMin: opts.Poll})
	sum, ferr, terr := d.finish(ctx, extract.RunStatus(ctx, werr))
	if terr != nil {
		fmt.Fprintln(f.IO.ErrOut, "invx: "+terr.Error())
	}
	if err := workStopError(ctx, f, ro, werr); err != nil && !errors.As(err, new(interruptedError)) {
		return 0, err
	}
	if ferr != nil {
		return 0, ferr
	}
	out.Runs = append(out.Runs, sum)
	taken := map[int64]bool{}
	for _, b := range rep.Collected {
		taken[b.ID] = true
		out.Collected = append(out.Collected, toBatchJSON(b))
		if !opts.JSON && !opts.Quiet {
			fmt.Fprintf(f.IO.ErrOut, "batch %d: %s (%s %s)\n", b.ID, b.State, provider, safeCell(b.RemoteID))
		}
	}
	for _, b := range rep.Open {
		taken[b.ID] = true
		out.Open = append(out.Open, toBatchJSON(b))
		if !opts.JSON {
			fmt.Fprintf(f.IO.ErrOut, "batch %d: still %s at %s; invx batch collect %d later (or --wait)\n", b.ID,
				safeCell(b.RemoteStatus), provider, b.ID)
		}
	}
	for _, b := range targets {
		if !taken[b.ID] && b.Provider == provider && b.Model == model && !opts.JSON {
			fmt.Fprintf(f.IO.ErrOut, "batch %d: being polled by %s, which collects it\n", b.ID, safeCell(b.Owner))
		}
	}
	if !opts.JSON && (!opts.Quiet || sum.FailedNow > 0) && sum.Attempts > 0 {
		renderWork(f.IO.ErrOut, &workOutcome{Summary: sum})
	}
	rej := 0
	for _, n := range sum.RejectedNow {
		rej += n
	}
	return rej + sum.FailedNow + sum.Final.Review, nil
}
