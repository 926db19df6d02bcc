package extract

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/invx/invx/store"
)

// poll polls the open batches with backoff, renewing each one's lease at
// every poll, and collects each as it ends, until none is left open, the
// run is interrupted (the batches stay submitted for the next run) or,
// for a look without Wait, every batch was looked at once.
func (b *batchLoop) poll() error {
	r := b.r
	for len(b.open) > 0 && b.abort == nil && b.ctx.Err() == nil {
		for _, ob := range slices.Clone(b.open) {
			if b.ctx.Err() != nil || b.abort != nil {
				return nil
			}
			if !ob.next.After(time.Now()) {
				b.step(ob)
			}
		}
		if b.o.CollectOnly && !b.o.Wait {
			return nil
		}
		if len(b.open) == 0 {
			return nil
		}
		wake := b.open[0].next
		for _, ob := range b.open[1:] {
			if ob.next.Before(wake) {
				wake = ob.next
			}
		}
		select {
		case <-r.after(max(wake.Sub(time.Now()), time.Millisecond)):
		case <-b.ctx.Done():
		}
	}
	return nil
}

// step polls one batch once: a preparing one is resolved, a submitted one
// asked for its status (its lease renewed) and collected once it ended.
func (b *batchLoop) step(ob *openBatch) {
	bt := ob.b
	if bt.State == store.BatchPreparing {
		b.resolve(ob)
		return
	}
	info, err := b.o.Client.Status(b.wctx, bt.RemoteID)
	if err != nil {
		if Classify(err) == ClassAuth {
			b.stop(fmt.Errorf("%w: %w", ErrAuth, err))
			return
		}
		b.log.Warn("batch status", "stage", "batch_poll", "batch", bt.ID, "error_class", string(Classify(err)), "error", err)
		b.later(ob)
		return
	}
	if err := b.renew(ob, info); err != nil {
		b.drop(ob, err)
		return
	}
	bt.RemoteStatus, bt.Done, bt.Failed = info.Status, info.Done, info.FailedRequests
	if b.o.ProgressFunc != nil {
		b.o.ProgressFunc(BatchProgress{Batch: bt.ID, RemoteID: bt.RemoteID, Status: info.Status, Done: info.Done,
			Total: max(info.Total, bt.Requests)})
	}
	b.fault(FaultPolling)
	if !info.Ended {
		b.later(ob)
		return
	}
	b.collect(ob, info)
}

// renew extends a batch's lease and records the provider's view of it.
// Only a lost lease (ErrStaleLease) is returned: any other failure is
// logged, since the lease still runs and the next renewal may succeed.
func (b *batchLoop) renew(ob *openBatch, info BatchInfo) error {
	r, bt := b.r, ob.b
	_, err := r.Store.RenewBatch(b.wctx, &store.RenewBatchParams{ID: bt.ID, Token: bt.Token, LeaseFor: r.LeaseFor,
		RemoteStatus: info.Status, Done: info.Done, Failed: info.FailedRequests, Now: r.leaseNow()})
	if errors.Is(err, store.ErrStaleLease) {
		return err
	}
	if err != nil {
		b.log.Warn("renew batch lease", "stage", "batch_poll", "batch", bt.ID, "error", err)
	}
	return nil
}

// later schedules a batch's next poll, backing off up to PollMax.
func (b *batchLoop) later(ob *openBatch) {
	ob.delay = min(max(ob.delay*2, b.o.PollMin), b.o.PollMax)
	ob.next = time.Now().Add(ob.delay)
}

// collect settles every item of an ended batch: each result line through
// the runner's judge and fenced commit, the items without a line back to
// the queue; re-asks go to a follow-up batch (or, with RepairSync, through
// the synchronous provider). Items already settled (an earlier collect
// that died midway) are skipped, so collecting twice is harmless.
func (b *batchLoop) collect(ob *openBatch, info BatchInfo) {
	bt := ob.b
	items, err := b.items(bt)
	if err != nil {
		b.stop(err)
		return
	}
	byID := make(map[string]*store.BatchItem, len(items))
	for _, it := range items {
		byID[it.CustomID] = it
	}
	depth := b.depth(bt)
	seen := make(map[string]bool, len(items))
	var again []*jobRun
	if !info.Failed {
		settled := 0
		renewed := time.Now()
		err = b.o.Client.Results(b.wctx, bt.RemoteID, func(line BatchLine) error {
			// A long collect keeps its lease, so no other collector
			// starts on the same batch meanwhile; one that lost it stops.
			if time.Since(renewed) > b.r.LeaseFor/3 {
				if err := b.renew(ob, info); err != nil {
					return err
				}
				renewed = time.Now()
			}
			it := byID[line.CustomID]
			if it == nil || seen[line.CustomID] {
				return nil
			}
			seen[line.CustomID] = true
			// Settled by an earlier collect: skipped. An attempt closed by
			// a lease recovery (the job was taken over) is not: its answer,
			// paid for, is recorded on it as stale.
			if it.AttemptOutcome != "" && it.AttemptOutcome != store.OutcomeLeaseExpired {
				return nil
			}
			if j := b.settle(bt, it, line, depth); j != nil {
				again = append(again, j)
			}
			settled++
			if settled == 1 {
				b.fault(FaultMidCollect)
			}
			return nil
		})
		if errors.Is(err, store.ErrStaleLease) {
			b.drop(ob, err)
			return
		}
		if err != nil {
			// What was settled stays settled; the rest is read again at
			// the next poll (or by the next run).
			if Classify(err) == ClassAuth {
				b.stop(fmt.Errorf("%w: %w", ErrAuth, err))
				return
			}
			b.log.Warn("read batch results", "stage", "batch_collect", "batch", bt.ID, "error", err)
			b.later(ob)
			return
		}
	}
	for _, it := range items {
		if !seen[it.CustomID] && it.AttemptOutcome == "" {
			b.stop(b.giveBack(bt, it, "the provider returned no result for the request", nil))
		}
	}
	orphans, err := b.orphans(bt, items)
	if err != nil {
		b.stop(err)
		return
	}
	again = append(again, orphans...)
	if len(again) > 0 {
		b.reask(bt, again)
	}
	state := store.BatchCollected
	switch {
	case b.o.Cancel:
		state = store.BatchCancelled
	case info.Failed:
		state = store.BatchFailed
	}
	b.finish(ob, state, info.Status, info.Message)
}

// settle judges one result line of a held, unsettled item and returns the
// job when its answer is re-asked (a new attempt is open).
func (b *batchLoop) settle(bt *store.Batch, it *store.BatchItem, line BatchLine, depth int) *jobRun {
	r := b.r
	switch {
	case !it.Held:
		// Its job moved on (superseded, dismissed, taken over): the
		// answer, paid for, is recorded on a stale attempt, not committed.
		b.stop(b.giveBack(bt, it, "the job no longer holds this batch request", line.Resp))
		return nil
	case line.Expired:
		b.stop(b.giveBack(bt, it, "the provider did not run the request (expired or cancelled)", nil))
		return nil
	}
	j := b.itemJob(it)
	if j == nil {
		return nil
	}
	j.repairs = depth
	l := j.l
	r.count(func(s *Summary) { s.Attempts++ })
	actx, _ := r.tracer().Start(b.wctx, "invx.attempt", trace.WithAttributes(attemptAttrs(r, l, b.o.Client.Name(), j.v.Name,
		attribute.String("invx.batch_id", bt.RemoteID))...))
	c := &call{ctx: actx, resp: line.Resp, err: line.Err}
	if c.resp == nil && c.err == nil {
		c.err = &ProviderError{Class: ClassTransient, Msg: "empty batch result line"}
	}
	c.info = store.AttemptInfo{Provider: b.o.Client.Name(), PromptHash: j.v.PromptHash(), BatchID: bt.RemoteID,
		CustomID: it.CustomID}
	r.account(j, c)
	res, again := r.answer(j, c)
	b.stop(res.abort)
	if again {
		return j
	}
	return nil
}

// giveBack ends an item's attempt without an answer: its job goes back to
// the queue, no attempt budget spent. For an item whose job no longer
// holds it (superseded, dismissed, taken over) the fenced write fails and
// the attempt is recorded stale: nothing of it is committed.
func (b *batchLoop) giveBack(bt *store.Batch, it *store.BatchItem, why string, resp *Response) error {
	r := b.r
	l := it.Lease
	if !it.Held || l == nil {
		l = &store.Lease{JobID: it.JobID, Tenant: it.Tenant, JobKey: it.JobKey, Token: it.Token, AttemptID: it.AttemptID,
			AttemptNo: it.AttemptNo}
	}
	log := r.log().With("tenant", l.Tenant, "job_key", l.JobKey, "run_id", r.RunID, "attempt", l.AttemptNo)
	info := store.AttemptInfo{Provider: b.o.Client.Name(), Outcome: store.OutcomeReleased, ErrorClass: "batch",
		Category: "not_run", Message: why, BatchID: bt.RemoteID, CustomID: it.CustomID}
	if resp != nil {
		info.Model, info.InputTokens, info.OutputTokens, info.RequestID = resp.Model, resp.InputTokens, resp.OutputTokens, resp.RequestID
	}
	return r.finish(b.wctx, l, store.StateQueued, time.Time{}, info, log).abort
}

// reask sends the jobs whose answers were invalid again, with the
// validation error fed back: in a follow-up batch, or through the
// synchronous provider with RepairSync.
func (b *batchLoop) reask(bt *store.Batch, jobs []*jobRun) {
	if b.o.RepairSync {
		for _, j := range jobs {
			b.stop(b.r.attempts(b.wctx, j).abort)
		}
		return
	}
	chunks, err := b.split(jobs)
	if err != nil {
		b.stop(err)
		return
	}
	for _, c := range chunks {
		b.send(c, bt.ID)
	}
}

// orphans are re-asks an earlier collect of this batch opened (the item's
// attempt rejected, the job still held) but died before sending: unless a
// follow-up batch of this batch exists, they are re-asked now, with the
// feedback of the rejected attempt.
func (b *batchLoop) orphans(bt *store.Batch, items []*store.BatchItem) ([]*jobRun, error) {
	var cand []*store.BatchItem
	for _, it := range items {
		if it.Held && it.AttemptOutcome == store.OutcomeRejected {
			cand = append(cand, it)
		}
	}
	if len(cand) == 0 {
		return nil, nil
	}
	all, err := b.r.Store.ListBatches(b.wctx, &store.ListBatchesParams{Limit: 1000})
	if err != nil {
		return nil, fmt.Errorf("list batches: %w", err)
	}
	for _, o := range all {
		if o.Parent == bt.ID {
			return nil, nil // sent already: that batch holds them
		}
	}
	var jobs []*jobRun
	for _, it := range cand {
		atts, err := b.r.Store.ListAttempts(b.wctx, &store.ListAttemptsParams{JobID: it.JobID})
		if err != nil {
			return nil, fmt.Errorf("read attempts of job %d: %w", it.JobID, err)
		}
		if len(atts) == 0 {
			continue
		}
		last := atts[len(atts)-1]
		if last.Outcome != "" || last.AttemptNo <= it.AttemptNo {
			continue
		}
		j := b.itemJob(it)
		if j == nil {
			continue
		}
		j.l.AttemptID, j.l.AttemptNo = last.ID, last.AttemptNo
		if j.feedback, err = b.feedback(it.JobID, it.AttemptNo); err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// depth is how many re-ask rounds led to a batch (its parents), the
// repairs its items already had.
func (b *batchLoop) depth(bt *store.Batch) int {
	if d, ok := b.depths[bt.ID]; ok {
		return d
	}
	d, id := 0, bt.Parent
	for id != 0 && d < 100 {
		p, err := b.r.Store.GetBatch(b.wctx, &store.GetBatchParams{ID: id})
		if err != nil {
			break
		}
		d, id = d+1, p.Parent
	}
	b.depths[bt.ID] = d
	return d
}
