package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/invx/invx/internal/crashpoint"
	"github.com/invx/invx/store"
)

// DefaultBatchSize is how many requests one batch holds unless the caller
// (--batch-size) or the provider's limits say fewer.
const DefaultBatchSize = 2000

// BatchWindow is how long the jobs of a batch stay leased to it: the
// providers' 24 h completion window and an hour to collect in, so no
// synchronous worker takes a job whose request the provider still holds.
const BatchWindow = 25 * time.Hour

// Fault points of a batch run: the moments a crash test kills the process
// at, one per phase (INVX_TEST_CRASHPOINT=batch.POINT, see
// internal/crashpoint).
const (
	// FaultAfterCreate: the batch is recorded (preparing), not sent.
	FaultAfterCreate = "after-create"
	// FaultAfterSubmit: the provider created the batch; the store does not
	// know its id yet.
	FaultAfterSubmit = "after-submit"
	// FaultPolling: the batch is recorded submitted and was polled once.
	FaultPolling = "polling"
	// FaultMidCollect: one result line is settled, the others are not.
	FaultMidCollect = "mid-collect"
)

// BatchOptions configure Runner.WorkBatch.
type BatchOptions struct {
	Client BatchClient
	// Size caps the requests of one batch (0: DefaultBatchSize); the
	// client's limits (requests, bytes) cap it further.
	Size int
	// Detach returns once the queue is submitted, without waiting for the
	// results; a later WorkBatch (run, work or batch collect) collects.
	Detach bool
	// RepairSync re-asks invalid answers through the runner's synchronous
	// provider instead of in a follow-up batch.
	RepairSync bool
	// CollectOnly submits no queued job: it only resolves, polls and
	// collects batches (invx batch collect), those in IDs when set.
	CollectOnly bool
	IDs         []int64
	// Wait, with CollectOnly, polls until every batch ended; without it
	// one look is taken and unfinished batches are left for later.
	Wait bool
	// Cancel cancels the batches at the provider (invx batch cancel) and
	// finishes them as cancelled once collected.
	Cancel bool
	// PollMin and PollMax bound the wait between two status polls; it
	// doubles from PollMin, and never exceeds a third of the batch lease.
	PollMin, PollMax time.Duration
	// ProgressFunc, when set, is told each poll's view of a batch.
	ProgressFunc func(BatchProgress)
}

// BatchProgress is one poll of one batch, for a progress bar.
type BatchProgress struct {
	Batch    int64
	RemoteID string
	Status   string
	// Done and Total count the batch's requests.
	Done, Total int
}

// BatchReport names the batches one WorkBatch call touched.
type BatchReport struct {
	// Submitted are the batches it sent (follow-ups included).
	Submitted []*store.Batch
	// Collected are the batches it finished (collected, cancelled or
	// failed).
	Collected []*store.Batch
	// Open are the batches still awaiting results when it returned
	// (detached, interrupted, not ended yet or polled by another process).
	Open []*store.Batch
}

func (o *BatchOptions) defaults(lease time.Duration) {
	if o.Size <= 0 {
		o.Size = DefaultBatchSize
	}
	if maxReq, _ := o.Client.Limits(); maxReq > 0 && o.Size > maxReq {
		o.Size = maxReq
	}
	if o.PollMin <= 0 {
		o.PollMin = 5 * time.Second
	}
	if o.PollMax <= 0 {
		o.PollMax = time.Minute
	}
	// Each poll renews the batch lease: poll well within it.
	o.PollMax = max(min(o.PollMax, lease/3), time.Millisecond)
	o.PollMin = min(o.PollMin, o.PollMax)
}

// batchLoop is the state of one WorkBatch call.
type batchLoop struct {
	r    *Runner
	o    BatchOptions
	ctx  context.Context // cancelled by Ctrl-C: submit nothing more, stop polling
	wctx context.Context // survives it: a submission or a collect in flight completes
	log  *slog.Logger
	// open are the batches this call polls (leased to it).
	open   []*openBatch
	rep    BatchReport
	abort  error
	depths map[int64]int
}

// openBatch is a batch leased to this call, with what its jobs carry from
// one round to the next (the repair feedback of a follow-up).
type openBatch struct {
	b *store.Batch
	// sendErrs counts failed sends of a preparing batch.
	sendErrs int
	// delay is the wait before the next poll.
	delay time.Duration
	// next is when to poll it again, on the real clock (not NowFunc): a
	// test clock that stands still must not stop the polling.
	next time.Time
}

// WorkBatch works the runner's queue through a provider's batch API:
// first the unfinished batches of earlier processes (adopting or sending
// those recorded but not known sent), then the queued jobs in batches of
// up to o.Size requests, then it polls with backoff and collects each
// batch as it ends, through the same validation and fenced commit as a
// synchronous call. Begin must have been called. Jobs the provider does
// not take (e-invoices under --provider auto) are worked synchronously.
func (r *Runner) WorkBatch(ctx context.Context, o BatchOptions) (*BatchReport, error) {
	o.defaults(r.LeaseFor)
	r.openCalls() // --repair-sync calls take provider slots
	b := &batchLoop{r: r, o: o, ctx: ctx, wctx: context.WithoutCancel(ctx), depths: map[int64]int{},
		log: r.log().With("run_id", r.RunID, "provider", o.Client.Name())}
	err := b.run()
	for _, ob := range b.open {
		b.rep.Open = append(b.rep.Open, ob.b)
	}
	b.release()
	return &b.rep, errors.Join(err, b.abort)
}

func (b *batchLoop) run() error {
	if err := b.claimOpen(); err != nil {
		return err
	}
	// A dead run's batches first: a batch it recorded but may have sent
	// must be found (adopted) before this run creates any of its own, or
	// a provider without batch metadata (Anthropic: Find matches creation
	// time and size) could take one of ours for it.
	for {
		took, err := b.awaitDead()
		if err != nil {
			return err
		}
		if !took {
			break
		}
	}
	idle := b.r.PollInterval
	for {
		if b.ctx.Err() != nil || b.abort != nil {
			return nil
		}
		b.resolvePreparing()
		if !b.o.CollectOnly {
			if err := b.submitQueue(); err != nil {
				return err
			}
		}
		if b.o.Detach || b.abort != nil {
			return nil
		}
		if len(b.open) > 0 {
			if err := b.poll(); err != nil {
				return err
			}
			if b.o.CollectOnly || len(b.open) > 0 {
				// Collected what was there (or left it for later): done.
				return nil
			}
			continue
		}
		if !b.o.CollectOnly {
			more, err := b.awaitQueue(&idle)
			if err != nil {
				return err
			}
			if more {
				continue
			}
		}
		took, err := b.awaitDead()
		if err != nil || !took {
			return err
		}
	}
}

// resolvePreparing adopts or sends the preparing batches this call holds,
// before anything new is created.
func (b *batchLoop) resolvePreparing() {
	for _, ob := range slices.Clone(b.open) {
		if ob.b.State == store.BatchPreparing && !ob.next.After(time.Now()) && b.abort == nil {
			b.resolve(ob)
		}
	}
}

// awaitDead waits for the open batches of this provider whose lease a
// process known dead still holds (one on this host that was killed), and
// takes them over once the lease runs out: a rerun right after a crash
// resumes the dead run's batches instead of leaving its documents
// unfinished. It reports whether it took any. Batches of live processes,
// and of other hosts, are theirs to collect.
func (b *batchLoop) awaitDead() (bool, error) {
	r := b.r
	if r.AliveFunc == nil || b.ctx.Err() != nil {
		return false, nil
	}
	bs, err := r.Store.ListBatches(b.wctx, &store.ListBatchesParams{States: []string{store.BatchPreparing, store.BatchSubmitted}})
	if err != nil {
		return false, fmt.Errorf("list open batches: %w", err)
	}
	var wait time.Duration
	found := false
	for _, bt := range bs {
		if bt.Provider != b.o.Client.Name() || (len(b.o.IDs) > 0 && !slices.Contains(b.o.IDs, bt.ID)) ||
			bt.Owner == "" || bt.Owner == r.Owner || r.AliveFunc(bt.Owner) || b.holds(bt.ID) {
			continue
		}
		// The lease was set by the store's or the dead runner's clock;
		// its length is what matters, bounded by one lease.
		d := min(max(bt.LeaseExpires.Sub(r.now()), 0), r.LeaseFor)
		if !found || d < wait {
			wait, found = d, true
		}
	}
	if !found {
		return false, nil
	}
	b.log.Info("waiting for the lease of a dead process's batch", "stage", "batch_claim", "wait_ms", wait.Milliseconds())
	select {
	case <-r.after(wait + 10*time.Millisecond):
	case <-b.ctx.Done():
		return false, nil
	}
	before := len(b.open)
	if err := b.claimOpen(); err != nil {
		return false, err
	}
	return len(b.open) > before, nil
}

// claimOpen takes over the unfinished batches of this provider whose lease
// is free (an earlier process died or detached), to resolve and collect
// them before anything new is submitted.
func (b *batchLoop) claimOpen() error {
	r := b.r
	var got []*store.Batch
	err := r.withStore(b.wctx, "claim_batches", b.log, func() error {
		var err error
		got, err = r.Store.ClaimBatches(b.wctx, &store.ClaimBatchesParams{Owner: r.Owner, Provider: b.o.Client.Name(),
			IDs: b.o.IDs, LeaseFor: r.LeaseFor, HoldUntil: r.now().Add(BatchWindow), Now: r.leaseNow()})
		return err
	})
	if err != nil {
		return fmt.Errorf("claim batches: %w", err)
	}
	for _, bt := range got {
		b.log.Info("batch taken over", "stage", "batch_claimed", "batch", bt.ID, "remote_id", bt.RemoteID, "state", bt.State)
		b.open = append(b.open, &openBatch{b: bt})
	}
	return nil
}

// awaitQueue runs when nothing is in flight and nothing could be claimed:
// it reports whether there is work to come back for (jobs waiting for a
// retry time, or queued but held back), after waiting for it. Jobs running
// under someone else's lease (another process's batch) are not waited
// for: their results are that process's to collect.
func (b *batchLoop) awaitQueue(idle *time.Duration) (bool, error) {
	r := b.r
	var p *store.PendingInfo
	err := r.withStore(b.wctx, "pending", b.log, func() error {
		var err error
		p, err = r.Store.Pending(b.wctx, &store.PendingParams{Tenant: r.Tenant, SchemaVersion: r.OnlySchema})
		return err
	})
	if err != nil {
		return false, fmt.Errorf("read pending jobs: %w", err)
	}
	if p.Queued+p.RetryWait == 0 && !r.Wait {
		return false, nil
	}
	d := *idle
	if !p.NextWake.IsZero() {
		if until := p.NextWake.Sub(r.now()); until > 0 && until < d {
			d = until
		}
	}
	select {
	case <-r.after(max(d, 5*time.Millisecond)):
	case <-b.ctx.Done():
	}
	*idle = min(*idle*2, 2*time.Second)
	return true, nil
}

// holds reports whether this call holds batch id.
func (b *batchLoop) holds(id int64) bool {
	for _, ob := range b.open {
		if ob.b.ID == id {
			return true
		}
	}
	return false
}

// release hands the leases of the batches still open back (a lease that
// ends now), so a later run or invx batch collect takes them at once
// instead of after the lease runs out.
func (b *batchLoop) release() {
	r := b.r
	for _, ob := range b.open {
		_, err := r.Store.RenewBatch(b.wctx, &store.RenewBatchParams{ID: ob.b.ID, Token: ob.b.Token, LeaseFor: 0,
			RemoteStatus: ob.b.RemoteStatus, Done: ob.b.Done, Failed: ob.b.Failed, Now: r.leaseNow()})
		if err != nil && !errors.Is(err, store.ErrStaleLease) {
			b.log.Warn("release batch lease", "stage", "batch_release", "batch", ob.b.ID, "error", err)
		}
	}
}

func (b *batchLoop) fault(point string) {
	crashpoint.Hit("batch." + point)
}

// stop records an error that ends the run after what is in flight.
func (b *batchLoop) stop(err error) {
	if err != nil {
		b.abort = errors.Join(b.abort, err)
	}
}
