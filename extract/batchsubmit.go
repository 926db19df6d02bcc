package extract

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// maxSendErrors is how many times in a row sending a preparing batch may
// fail transiently before the run stops trying (the batch stays preparing,
// its jobs held, for the next run to adopt or send).
const maxSendErrors = 5

// submitQueue claims the queued jobs a chunk at a time and sends each
// chunk as batches, until nothing more can be claimed.
func (b *batchLoop) submitQueue() error {
	r := b.r
	for b.ctx.Err() == nil && b.abort == nil {
		var leases []*store.Lease
		err := r.withStore(b.wctx, "claim", b.log, func() error {
			var err error
			leases, err = r.Store.Claim(b.wctx, &store.ClaimParams{Tenant: r.Tenant, Owner: BatchOwner(r.Owner), RunID: r.RunID,
				Limit: b.o.Size, LeaseFor: r.LeaseFor, Now: r.leaseNow(), MaxPerTenant: r.MaxPerTenant, SchemaVersion: r.OnlySchema})
			return err
		})
		if err != nil {
			return fmt.Errorf("claim jobs: %w", err)
		}
		if len(leases) == 0 {
			return nil
		}
		var jobs []*jobRun
		for _, l := range leases {
			if j := b.admit(l); j != nil {
				jobs = append(jobs, j)
			}
		}
		chunks, err := b.split(jobs)
		if err != nil {
			return err
		}
		for _, c := range chunks {
			b.send(c, 0)
		}
		if len(leases) < b.o.Size {
			return nil
		}
	}
	return nil
}

// BatchOwner is the lease owner of the jobs a batch run claims: the run's
// owner marked as a batch's. Liveness checks (LocalOwnerAlive) do not take
// it for a local process, so the jobs of a batch whose process detached,
// finished or died are not reaped by the next worker on the host: the
// batch holds them until it is collected or its window ends. Paying for a
// request twice is what that prevents.
func BatchOwner(owner string) string { return store.BatchOwnerPrefix + owner }

// admit prepares a claimed job for a batch. A job the batch provider does
// not take (an e-invoice under --provider auto goes to einvoice) is worked
// synchronously here and nil returned, as is a job that must not be
// attempted at all.
func (b *batchLoop) admit(l *store.Lease) *jobRun {
	r := b.r
	log := r.log().With("tenant", l.Tenant, "job_key", l.JobKey, "run_id", r.RunID)
	if l.Recovered {
		r.count(func(s *Summary) { s.LeaseRecoveries++ })
		if r.Metrics != nil {
			r.Metrics.LeaseRecovered(l.Tenant)
		}
	}
	if RouteOfText(r.Provider, l.Text) != b.o.Client.Name() {
		b.stop(r.process(b.ctx, b.wctx, l, 0, nil).abort)
		return nil
	}
	v, refused := r.admit(b.wctx, b.wctx, l, log)
	if refused != nil {
		b.stop(refused.abort)
		return nil
	}
	return &jobRun{runCtx: b.ctx, leaseCtx: b.wctx, l: l, v: v, log: log, tokens: l.PrevTokens}
}

// request is the job's batch request: the very Request a synchronous call
// sends, under the custom id of the job's current attempt.
func (j *jobRun) request() BatchRequest {
	l := j.l
	return BatchRequest{CustomID: BatchCustomID(l.JobKey, l.AttemptNo), Req: &Request{Tenant: l.Tenant, JobKey: l.JobKey,
		Attempt: l.AttemptNo, Text: l.Text, Schema: j.v, Feedback: j.feedback}}
}

// split cuts jobs into batches that respect the size and the client's
// byte limit.
func (b *batchLoop) split(jobs []*jobRun) ([][]*jobRun, error) {
	_, maxBytes := b.o.Client.Limits()
	var out [][]*jobRun
	var cur []*jobRun
	var size int64
	for _, j := range jobs {
		n, err := b.o.Client.Size(j.request())
		if err != nil {
			return nil, fmt.Errorf("size batch request of job %s: %w", j.l.JobKey, err)
		}
		if len(cur) > 0 && (len(cur) >= b.o.Size || (maxBytes > 0 && size+n > maxBytes)) {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, j)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out, nil
}

// send records a batch of jobs (preparing: its jobs held for the provider's
// window) and then sends it. The record comes first, so a process that dies
// after the provider accepted the batch leaves a trace the next run adopts
// instead of paying again.
func (b *batchLoop) send(jobs []*jobRun, parent int64) {
	r := b.r
	items := make([]store.BatchItemInput, len(jobs))
	for i, j := range jobs {
		items[i] = store.BatchItemInput{JobID: j.l.JobID, Token: j.l.Token, AttemptID: j.l.AttemptID,
			CustomID: BatchCustomID(j.l.JobKey, j.l.AttemptNo)}
	}
	// Not retried on a transient error: a creation whose reply was lost
	// may have landed, and a second would hold the jobs twice. The jobs'
	// leases run out and they are claimed again.
	res, err := r.Store.CreateBatch(b.wctx, &store.CreateBatchParams{Provider: b.o.Client.Name(), Model: b.o.Client.Model(),
		RunID: r.RunID, Owner: r.Owner, Parent: parent, LeaseFor: r.LeaseFor, HoldUntil: r.now().Add(BatchWindow),
		Items: items, Now: r.leaseNow()})
	if err != nil {
		b.stop(fmt.Errorf("record batch of %d requests: %w", len(jobs), err))
		return
	}
	dropped := make(map[int64]bool, len(res.Dropped))
	for _, id := range res.Dropped {
		dropped[id] = true
	}
	kept := jobs[:0:0]
	for _, j := range jobs {
		if dropped[j.l.JobID] {
			// Its lease ran out before the batch was recorded: another
			// worker has it now.
			r.count(func(s *Summary) { s.StaleLeases++ })
			continue
		}
		kept = append(kept, j)
	}
	if res.Batch.State != store.BatchPreparing || len(kept) == 0 {
		return // every job was someone else's: the store ended the batch
	}
	ob := &openBatch{b: res.Batch}
	b.open = append(b.open, ob)
	b.fault(FaultAfterCreate)
	b.submit(ob, kept)
}

// submit sends a preparing batch's requests and records the provider's
// acceptance.
func (b *batchLoop) submit(ob *openBatch, jobs []*jobRun) {
	bt := ob.b
	if len(jobs) == 0 {
		b.finish(ob, store.BatchCollected, "", "no request left to send")
		return
	}
	reqs := make([]BatchRequest, len(jobs))
	for i, j := range jobs {
		reqs[i] = j.request()
	}
	info, err := b.o.Client.Submit(b.wctx, batchTag(bt), reqs)
	if err != nil {
		b.sendFailed(ob, jobs, err)
		return
	}
	b.fault(FaultAfterSubmit)
	if b.recordSubmitted(ob, info) {
		b.rep.Submitted = append(b.rep.Submitted, bt)
		b.r.count(func(s *Summary) { s.Batches = append(s.Batches, bt.ID) })
		b.log.Info("batch submitted", "stage", "batch_submitted", "batch", bt.ID, "remote_id", bt.RemoteID, "requests", len(jobs),
			"parent", bt.Parent)
	}
}

// recordSubmitted records the provider's batch id, fenced by the batch
// token; false when the batch is no longer this call's.
func (b *batchLoop) recordSubmitted(ob *openBatch, info BatchInfo) bool {
	r, bt := b.r, ob.b
	err := r.withStore(b.wctx, "batch_submitted", b.log, func() error {
		return r.Store.SubmittedBatch(b.wctx, &store.SubmittedBatchParams{ID: bt.ID, Token: bt.Token, RemoteID: info.RemoteID,
			InputFileID: info.InputFileID, Status: info.Status, Now: r.now()})
	})
	if err != nil {
		b.drop(ob, err)
		return false
	}
	bt.State, bt.RemoteID, bt.InputFileID, bt.RemoteStatus = store.BatchSubmitted, info.RemoteID, info.InputFileID, info.Status
	bt.SubmittedAt = r.now()
	ob.delay, ob.next = b.o.PollMin, time.Now().Add(b.o.PollMin)
	return true
}

// sendFailed handles a failed send. A refusal (authentication, a request
// the provider rejects) created nothing: the jobs go back to the queue and
// the batch is failed. Anything else may or may not have created the
// batch: it stays preparing and is resolved (Find, else send) later.
func (b *batchLoop) sendFailed(ob *openBatch, jobs []*jobRun, err error) {
	class := Classify(err)
	b.log.Warn("batch not sent", "stage", "batch_submit", "batch", ob.b.ID, "error_class", string(class), "error", err)
	switch class {
	case ClassAuth, ClassPermanent, ClassRejected:
		info := store.AttemptInfo{Provider: b.o.Client.Name(), Outcome: store.OutcomeReleased, ErrorClass: string(class),
			Message: Truncate("batch not accepted: "+err.Error(), 500)}
		for _, j := range jobs {
			b.stop(b.r.finish(b.wctx, j.l, store.StateQueued, time.Time{}, info, j.log).abort)
		}
		b.finish(ob, store.BatchFailed, "", Truncate(err.Error(), 300))
		if class == ClassAuth {
			b.stop(fmt.Errorf("%w: %w", ErrAuth, err))
		} else {
			b.stop(fmt.Errorf("send batch %d: %w", ob.b.ID, err))
		}
		return
	}
	b.retryLater(ob, err)
}

// retryLater schedules another try to resolve a preparing batch, or stops
// the run after maxSendErrors failures in a row (the batch stays
// preparing for the next run).
func (b *batchLoop) retryLater(ob *openBatch, err error) {
	ob.sendErrs++
	if ob.sendErrs >= maxSendErrors {
		b.stop(fmt.Errorf("send batch %d: %d tries failed: %w", ob.b.ID, ob.sendErrs, err))
		return
	}
	d := b.r.backoff().Delay(ob.sendErrs, 0)
	ob.delay, ob.next = d, time.Now().Add(d)
}

// resolve settles a preparing batch an earlier try or process left: the
// provider may have created it before the process died. Find adopts it;
// only if there is none are its requests sent (now).
func (b *batchLoop) resolve(ob *openBatch) {
	bt := ob.b
	info, ok, err := b.o.Client.Find(b.wctx, batchTag(bt), bt.CreatedAt, bt.Requests)
	if err != nil {
		// Whatever the error, the batch may exist: never fail it here.
		if Classify(err) == ClassAuth {
			b.stop(fmt.Errorf("%w: %w", ErrAuth, err))
			return
		}
		b.retryLater(ob, err)
		return
	}
	if ok {
		if other, err := b.r.Store.GetBatch(b.wctx, &store.GetBatchParams{RemoteID: info.RemoteID}); err == nil && other.ID != bt.ID {
			// Find matched a batch recorded as another (Anthropic has no
			// metadata to match on): not this one's. Adopting it would
			// collect nothing; sending is the lesser harm.
			b.log.Warn("batch lookup matched another batch: sending", "stage", "batch_adopt", "batch", bt.ID,
				"matched", other.ID)
			ok = false
		}
	}
	if ok {
		if b.recordSubmitted(ob, info) {
			b.log.Info("batch adopted", "stage", "batch_adopted", "batch", bt.ID, "remote_id", info.RemoteID)
		}
		return
	}
	if b.o.Cancel {
		items, err := b.items(bt)
		if err != nil {
			b.stop(err)
			return
		}
		for _, it := range items {
			b.stop(b.giveBack(bt, it, "cancelled before it was sent", nil))
		}
		b.finish(ob, store.BatchCancelled, "", "cancelled before it was sent")
		return
	}
	jobs, err := b.pending(bt)
	if err != nil {
		b.stop(err)
		return
	}
	b.submit(ob, jobs)
}

// pending are the requests of a batch never sent: its items whose job
// still holds them and whose attempt is open, each with the repair
// feedback of the attempt it re-asks (a follow-up batch).
func (b *batchLoop) pending(bt *store.Batch) ([]*jobRun, error) {
	items, err := b.items(bt)
	if err != nil {
		return nil, err
	}
	var jobs []*jobRun
	for _, it := range items {
		if !it.Held || it.AttemptOutcome != "" {
			continue
		}
		j := b.itemJob(it)
		if j == nil {
			continue
		}
		if bt.Parent != 0 {
			if j.feedback, err = b.feedback(it.JobID, it.AttemptNo-1); err != nil {
				return nil, err
			}
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// itemJob is the jobRun of a held item, under the schema version its job
// was keyed with; nil when the job may not be attempted (it was finished).
func (b *batchLoop) itemJob(it *store.BatchItem) *jobRun {
	r, l := b.r, it.Lease
	log := r.log().With("tenant", l.Tenant, "job_key", l.JobKey, "run_id", r.RunID)
	v, refused := r.admit(b.wctx, b.wctx, l, log)
	if refused != nil {
		b.stop(refused.abort)
		return nil
	}
	return &jobRun{runCtx: b.ctx, leaseCtx: b.wctx, l: l, v: v, log: log, tokens: l.PrevTokens}
}

// feedback is the validation fault of a job's rejected attempt attemptNo,
// as the repair re-ask shows it to the model.
func (b *batchLoop) feedback(jobID int64, attemptNo int) (*schema.ValidationError, error) {
	atts, err := b.r.Store.ListAttempts(b.wctx, &store.ListAttemptsParams{JobID: jobID})
	if err != nil {
		return nil, fmt.Errorf("read attempts of job %d: %w", jobID, err)
	}
	for _, a := range atts {
		if a.AttemptNo == attemptNo && a.Outcome == store.OutcomeRejected {
			return &schema.ValidationError{Path: "$", Category: schema.Category(a.Category), Msg: a.Message}, nil
		}
	}
	return nil, nil
}

// items reads a batch's items.
func (b *batchLoop) items(bt *store.Batch) ([]*store.BatchItem, error) {
	var items []*store.BatchItem
	err := b.r.withStore(b.wctx, "batch_items", b.log, func() error {
		var err error
		items, err = b.r.Store.BatchItems(b.wctx, &store.BatchItemsParams{BatchID: bt.ID})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read items of batch %d: %w", bt.ID, err)
	}
	return items, nil
}

// finish ends a batch this call holds and takes it off the poll list.
func (b *batchLoop) finish(ob *openBatch, state, remoteStatus, msg string) {
	r, bt := b.r, ob.b
	err := r.withStore(b.wctx, "finish_batch", b.log, func() error {
		return r.Store.FinishBatch(b.wctx, &store.FinishBatchParams{ID: bt.ID, Token: bt.Token, State: state,
			RemoteStatus: remoteStatus, Message: msg, Now: r.now()})
	})
	b.forget(ob)
	if err != nil {
		if !errors.Is(err, store.ErrStaleLease) {
			b.stop(err)
		}
		return
	}
	bt.State, bt.Message = state, msg
	if remoteStatus != "" {
		bt.RemoteStatus = remoteStatus
	}
	b.rep.Collected = append(b.rep.Collected, bt)
	b.log.Info("batch finished", "stage", "batch_finished", "batch", bt.ID, "remote_id", bt.RemoteID, "state", state)
}

// drop stops polling a batch whose lease this call lost (another process
// took it over): that process collects it.
func (b *batchLoop) drop(ob *openBatch, err error) {
	b.forget(ob)
	if errors.Is(err, store.ErrStaleLease) {
		b.log.Warn("batch lease lost: another process collects it", "stage", "batch_lease", "batch", ob.b.ID)
		b.rep.Open = append(b.rep.Open, ob.b)
		return
	}
	b.stop(err)
}

// forget takes a batch off the poll list.
func (b *batchLoop) forget(ob *openBatch) {
	for i, o := range b.open {
		if o == ob {
			b.open = append(b.open[:i], b.open[i+1:]...)
			return
		}
	}
}

// batchTag is what a submission carries to be found again (OpenAI's batch
// metadata): the local id alone would match another database's batch 7 on
// the same API key, so the id of the run that recorded it goes with it.
func batchTag(bt *store.Batch) string {
	return strconv.FormatInt(bt.ID, 10) + "-" + bt.RunID
}
