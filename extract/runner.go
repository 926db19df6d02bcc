package extract

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/invx/invx/internal/backoff"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// ErrAuth is returned by Run when a provider reported an authentication or
// configuration failure: every other job would fail the same way, so the run
// stops and no job is marked failed because of it.
var ErrAuth = errors.New("provider authentication failed")

// ErrQuota is returned by Run when a provider reported that the account's
// quota or spend limit is exhausted: the job that hit it is failed
// (permanent) and no further calls are made.
var ErrQuota = errors.New("provider quota exhausted")

// ErrUnreachable is returned by Run when MaxUnreachable provider calls in a
// row reached no server: the provider is down or the base URL is wrong, so
// every other job would fail the same way. The jobs are given back (queued
// or waiting for their retry time), none is marked failed; a rerun carries
// on.
var ErrUnreachable = errors.New("provider unreachable")

// CategoryQuota marks a permanent ProviderError caused by an exhausted quota
// or spend limit.
const CategoryQuota = "quota"

// ClassLeaseRecoveries is the error class of a job failed because its lease
// expired more often than Runner.MaxRecoveries allows.
const ClassLeaseRecoveries = "lease_recoveries"

// DefaultMaxRecoveries is Runner.MaxRecoveries when unset.
const DefaultMaxRecoveries = 10

// Event kinds reported to Runner.ProgressFunc.
const (
	EventEnqueued = "enqueued" // N jobs will be worked on
	EventJobDone  = "job_done" // one job reached a final state in this run
)

// Event is a progress notification. It carries no document content.
type Event struct {
	Kind    string
	N       int
	Outcome string
}

// Runner enqueues documents and works a tenant's queue until it is empty. One
// Runner is one delivery (run id); it is safe to run many Runners, in one
// process or several, against one store.
type Runner struct {
	Store    store.Store
	Provider Provider
	Schema   *schema.Version
	Tenant   string
	RunID    string
	// Owner identifies this worker in leases ("host/pid/run").
	Owner       string
	Concurrency int
	OnChange    store.OnChange
	LeaseFor    time.Duration
	// MaxAttempts bounds every attempt of a job, repairs included.
	MaxAttempts int
	// MaxRecoveries bounds how often a job's lease may expire and be taken
	// over (a worker crashed or stalled) before the job fails with class
	// lease_recoveries. Such attempts do not count against MaxAttempts.
	MaxRecoveries int
	// Repair is how many times an invalid answer is re-asked with the
	// validation error fed back.
	Repair int
	// Backoff is the base of the transient retry backoff; MaxBackoff caps it.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// Shadow commits results without publishing outbox events.
	Shadow bool
	// OnlySchema, when set, makes Work claim (and wait for) only jobs of
	// that schema version (invx work --schema); empty: every version, each
	// job worked under the version it was keyed with.
	OnlySchema string
	// CallTimeout bounds one provider call (0: no bound beyond the lease).
	CallTimeout time.Duration
	// TokenBudget stops further attempts of a job once its input and output
	// tokens, over all its attempts, reach it (0: no budget).
	TokenBudget int64
	// SourceSystem names where documents come from (see store.Document).
	SourceSystem string
	// Command is the delivery's kind ("run" or "work"). A "work" runner may
	// have an empty Tenant: it then works every tenant's queue, fairly.
	Command string
	// Wait keeps Work polling for new jobs when the queue is empty, until
	// ctx is cancelled.
	Wait bool
	// MaxPerTenant caps one tenant's jobs in flight (0: no cap).
	MaxPerTenant int
	// ReadAhead is how many jobs are leased beyond Concurrency: they wait,
	// leases renewed, for a provider slot (0: DefaultReadAhead; negative:
	// none, every leased job is being called).
	ReadAhead int
	// Require, when not nil (invx run/work --require), is the fields every
	// result must have to be paid, whatever its tenant and schema version;
	// a null one opens an incomplete review reason. nil: each tenant's
	// stored policy, else review.DefaultRequire of the job's version.
	Require []string

	// NowFunc is the clock (time.Now by default).
	NowFunc func() time.Time
	// StoreClock hands lease times to the store's own clock (the zero Now
	// of the store contract): with PostgreSQL, every host then leases by the
	// database's time and host clock skew cannot shorten a lease.
	StoreClock bool
	// AfterFunc waits like time.After; tests inject a clock that jumps.
	AfterFunc func(time.Duration) <-chan time.Time
	// AliveFunc tells whether a lease owner still exists; dead owners'
	// leases are reaped at once. Nil: leases only expire with time.
	AliveFunc func(owner string) bool
	// ProgressFunc, if set, is called from the run's goroutines.
	ProgressFunc func(Event)
	Logger       *slog.Logger
	// Metrics receives counts and durations (nil: none).
	Metrics Metrics
	// Model is the model the provider was asked for (--model), reported
	// as gen_ai.request.model on attempt spans; empty when none was named.
	Model string
	// Tracer makes the attempt and provider-call spans (nil: the global
	// OpenTelemetry tracer, a no-op unless one is configured).
	Tracer trace.Tracer
	// PollInterval is how often an idle runner looks for work that another
	// worker holds or that waits for its retry time.
	PollInterval time.Duration
	// DBRetry is how long the runner rides out a database it cannot use
	// (store.IsTransient errors: connection lost, a restart, a deadlock):
	// it backs off and tries again, claiming and committing go on once the
	// database is back. Past it the run stops with the store error. Zero:
	// the first such error stops the run.
	DBRetry time.Duration
	// MaxUnreachable stops the run with ErrUnreachable after this many
	// provider calls in a row failed to reach the provider at all (refused,
	// DNS, reset before any answer), with no answer in between; the jobs
	// are given back, not failed. Zero: never.
	MaxUnreachable int

	mu      sync.Mutex
	summary Summary
	// keys are the job keys of the documents this runner enqueued, tagged
	// with what the enqueue found (tagSucceeded and tagDismissed: Finish
	// counts them without reading them again, see Finish for why only
	// those two states), and of the jobs it committed with an open
	// review reason, whose reasons Finish counts (tagReviewed: invx work
	// enqueues nothing of its own).
	keys     keySet
	policies policyCache
	// scanMin overrides reviewScanMin (tests; 0: the constant).
	scanMin int
	// limit is the in-flight bound, lowered while providers answer 429 and
	// raised again after successes.
	limit     int
	successes int
	// gate are the provider slots (see acquireSlot).
	gate slotGate
	// feed is the enqueue running beside Work, if any (Feed).
	feed *feed
	// unreachableRun counts provider calls in a row that reached no server.
	unreachableRun int
	// leases renews the leases of the jobs in flight (keepLease).
	leases leaseKeeper
}

func (r *Runner) now() time.Time {
	if r.NowFunc != nil {
		return r.NowFunc()
	}
	return time.Now()
}

// leaseNow is the Now passed with lease operations: the runner's clock, or
// none (the store's) with StoreClock.
func (r *Runner) leaseNow() time.Time {
	if r.StoreClock {
		return time.Time{}
	}
	return r.now()
}

func (r *Runner) log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (r *Runner) progress(e Event) {
	if r.ProgressFunc != nil {
		r.ProgressFunc(e)
	}
}

func (r *Runner) defaults() {
	if r.Concurrency <= 0 {
		r.Concurrency = 4
	}
	if r.LeaseFor <= 0 {
		r.LeaseFor = time.Minute
	}
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 5
	}
	if r.MaxRecoveries <= 0 {
		r.MaxRecoveries = DefaultMaxRecoveries
	}
	if r.Backoff <= 0 {
		r.Backoff = 500 * time.Millisecond
	}
	if r.MaxBackoff <= 0 {
		r.MaxBackoff = time.Minute
	}
	if r.PollInterval <= 0 {
		r.PollInterval = 200 * time.Millisecond
	}
	if r.OnChange == "" {
		r.OnChange = store.OnChangeHold
	}
	if r.SourceSystem == "" {
		r.SourceSystem = "fs"
	}
	if r.Command == "" {
		r.Command = "run"
	}
	if r.ReadAhead == 0 {
		r.ReadAhead = DefaultReadAhead(r.Concurrency)
	}
	r.ReadAhead = max(r.ReadAhead, 0)
	r.summary.init(r)
	r.limit = r.Concurrency
}

func (r *Runner) after(d time.Duration) <-chan time.Time {
	if r.AfterFunc != nil {
		return r.AfterFunc(d)
	}
	return time.After(d)
}

// currentLimit is how many jobs may be in flight now.
func (r *Runner) currentLimit() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.limit
}

// throttle adapts concurrency: halve on a rate limit, grow by one after as
// many successes in a row as the current limit.
func (r *Runner) throttle(rateLimited bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rateLimited {
		r.limit = max(1, r.limit/2)
		r.successes = 0
		return
	}
	r.successes++
	if r.successes >= r.limit && r.limit < r.Concurrency {
		r.limit++
		r.successes = 0
		r.grantSlotsLocked()
	}
}

// Begin records the run. Call it once before Add and Work.
func (r *Runner) Begin(ctx context.Context) error {
	r.defaults()
	if r.Tenant != "" || r.Command != "work" {
		if err := ValidateTenant(r.Tenant); err != nil {
			return err
		}
	}
	return r.withStore(ctx, "begin_run", r.log(), func() error {
		return r.Store.BeginRun(ctx, &store.BeginRunParams{ID: r.RunID, Tenant: r.Tenant, Command: r.Command, Owner: r.Owner,
			Provider: r.Provider.Name(), SchemaVersion: r.Schema.Name, StartedAt: r.now()})
	})
}

// Skip counts a file that discovery passed over. A file that is an invoice
// not processed (NeedsReview) is recorded for invx review under the same
// (source system, path) reference its job would have had, so a later run
// that takes the path clears it; it is stored before Skip returns.
func (r *Runner) Skip(ctx context.Context, s Skipped) error {
	review := NeedsReview(s.Reason)
	if review {
		err := r.Store.RecordSkipped(ctx, &store.RecordSkippedParams{Tenant: r.Tenant, SourceSystem: r.SourceSystem,
			RunID: r.RunID, Path: s.Path, Reason: s.Reason, Detail: Truncate(s.Detail, 500), Size: s.Size, Now: r.now()})
		if err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.summary.Skipped[s.Reason]++
	if s.Reason != SkipNotIncluded {
		r.summary.FilesSeen++
	}
	if review {
		r.summary.SkippedForReview++
	}
	r.mu.Unlock()
	if r.Metrics != nil {
		r.Metrics.Skipped(r.Tenant, s.Reason)
	}
	return nil
}

// EmptyInput counts an input (a DIR argument) that held no file matching
// --include.
func (r *Runner) EmptyInput() {
	r.count(func(s *Summary) { s.EmptyInputs++ })
}

// Enqueue keys and enqueues a batch of discovered documents.
func (r *Runner) Enqueue(ctx context.Context, docs []Found) error {
	if len(docs) == 0 {
		return nil
	}
	res, err := r.enqueueStore(ctx, docs)
	if err != nil {
		return err
	}
	news, pending := 0, 0
	defer func() {
		// After the summary's lock is given back: the progress function
		// and a waiting Work may read the runner.
		if news > 0 {
			r.progress(Event{Kind: EventEnqueued, N: news})
		}
		// A batch with nothing to claim (a rerun of committed documents)
		// does not wake Work: its claim would open a write transaction
		// to find nothing. Jobs that were there before the run (pending)
		// are Work's to find anyway; waking for them costs one claim.
		if news > 0 || pending > 0 {
			r.fed()
		}
	}()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.summary.FilesSeen += len(docs)
	dups := 0
	defer func() {
		if dups > 0 && r.Metrics != nil {
			r.Metrics.Duplicates(r.Tenant, dups)
		}
	}()
	log := r.log()
	debug := log.Enabled(ctx, slog.LevelDebug)
	for i, e := range res {
		tag := tagEnqueued
		if debug {
			log.Debug("enqueued", "stage", "enqueued", "tenant", r.Tenant, "job_key", e.JobKey, "run_id", r.RunID,
				"outcome", e.Outcome)
		}
		switch e.Outcome {
		case store.EnqueueNew:
			r.summary.NewJobs++
			news++
		case store.EnqueueDuplicate:
			r.summary.Duplicates++
			dups++
		case store.EnqueueAlreadyCommitted:
			r.summary.AlreadyCommitted++
			tag = tagSucceeded
		case store.EnqueuePending:
			r.summary.Resumed++
			pending++
		case store.EnqueueNeedsReview:
			r.summary.StillNeedsReview++
		case store.EnqueueDismissed:
			r.summary.Dismissed++
			tag = tagDismissed
		case store.EnqueueHeld:
			r.summary.HeldChanged++
			r.log().Info("held", "stage", "held", "tenant", r.Tenant, "job_key", e.JobKey, "run_id", r.RunID,
				"prev_job_key", e.PrevJobKey, "path", fmt.Sprintf("%q", docs[i].Path))
		}
		r.keys.add(r.Tenant, e.JobKey, tag)
	}
	return nil
}

// enqueueStore returns the enqueue outcome of each of docs: a document the
// stat check settled (Found.Settled) as it read it, the others from one
// Store.Enqueue call. A no-op rerun's unchanged files thus cost no store
// call here at all; their outcome is what the enqueue would have reported
// at the moment of the stat check's read.
func (r *Runner) enqueueStore(ctx context.Context, docs []Found) ([]store.EnqueueResult, error) {
	res := make([]store.EnqueueResult, len(docs))
	var sd []store.Document
	var at []int // index in docs of each of sd
	for i, d := range docs {
		if d.Settled != nil {
			res[i] = *d.Settled
			continue
		}
		key, err := JobKey(r.Tenant, Transformation, r.Schema.Name, d.Digest)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Display, err)
		}
		sd = append(sd, store.Document{SourceSystem: r.SourceSystem, Path: d.Path, Digest: d.Digest, JobKey: key, Text: d.Text,
			DisplayPath: d.Display, Encoding: d.Encoding, Format: d.Format, Route: RouteOf(r.Provider, d.Format),
			Stat: d.Stat, Unread: d.Unread})
		at = append(at, i)
	}
	if len(sd) == 0 {
		return res, nil
	}
	got, err := r.Store.Enqueue(ctx, &store.EnqueueParams{Tenant: r.Tenant, RunID: r.RunID, Transformation: Transformation,
		SchemaVersion: r.Schema.Name, OnChange: r.OnChange, Docs: sd, Now: r.now(), Shadow: r.Shadow})
	if errors.Is(err, store.ErrUnreadUnknown) {
		// Another process pruned or changed what the stat check saw, in
		// the moment between the check and this enqueue.
		return nil, fmt.Errorf("enqueue: %w: files changed in the store while this run looked; run again (or with --rehash)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("enqueue: %w", err)
	}
	for j, e := range got {
		res[at[j]] = e
	}
	return res, nil
}

// Keys returns the job keys of the documents enqueued by this run, sorted
// without repeats. Call it before Finish, or after it for a run that held
// its keys in memory (fewer than spillKeys): Finish removes the file the
// others were written to, and Keys then leaves them out.
func (r *Runner) Keys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys.seal()
	c := r.keys.cursor(r.Tenant)
	var out []string
	for k, tag, ok := c.next(); ok; k, tag, ok = c.next() {
		if tag != tagReviewed {
			out = append(out, k)
		}
	}
	return out
}

type jobResult struct {
	outcome string
	abort   error
	// handed: the job's commit was handed to the store's group commit
	// (the work loop counted it in committing).
	handed bool
}

// Work claims and processes the tenant's jobs until none is left, ctx is
// cancelled or a provider reports an authentication failure. Jobs that are
// in flight when ctx is cancelled finish (their provider call is not cut
// short) or give their lease back.
func (r *Runner) Work(ctx context.Context) error {
	// Calls run on a context that survives the first interrupt, so what is
	// in flight can finish and commit cleanly.
	w := &workLoop{r: r, ctx: ctx, callCtx: context.WithoutCancel(ctx), idle: r.PollInterval}
	r.openCalls()
	stop := w.startWorkers()
	defer stop()

	r.reap(w.callCtx)
	w.feed = r.currentFeed()
	for {
		if _, failed := w.feed.feeding(); ctx.Err() != nil || w.abort != nil || failed {
			if failed {
				r.stopCalls() // jobs leased ahead go back, as on an interrupt
			}
			w.drain()
			break
		}
		claimed, again := w.claim()
		if again {
			continue
		}
		if claimed > 0 {
			w.idle = r.PollInterval
			// Take any finished results without blocking, then claim again.
			continue
		}
		if w.inflight > 0 {
			// Jobs waiting for their commit count here: their results
			// wake the loop soon, so it need not poll meanwhile.
			if w.inflight >= r.currentLimit() {
				// Every provider slot has a job: claim again once enough
				// finished for one claim to lease many.
				w.wait(0)
			} else {
				w.wait(w.idle) // a slot is free: look again for retry times that came due
				w.idle = min(w.idle*2, 2*time.Second)
			}
			continue
		}
		if !w.awaitPending() {
			break
		}
	}
	return w.abort
}

// workLoop is the state of one Work call: the worker pool's channels, the
// jobs in flight, the error that stops the loop and the polling backoff.
type workLoop struct {
	r        *Runner
	ctx      context.Context // cancelled by the first interrupt: stop claiming
	callCtx  context.Context // survives it: claims and writes in flight
	work     chan ticketed
	done     chan jobResult
	inflight int
	abort    error
	outage   dbOutage
	idle     time.Duration
	feed     *feed // the enqueue running beside this Work, if any
	// dry: the last claim leased fewer jobs than it asked for, so the
	// queue held nothing more. Until something may have made a job
	// claimable (a batch enqueued, a job of ours given back or set to
	// retry, dryTimer: the idle wait, started by the first wait of the
	// spell), finished jobs do not start a claim: at the tail of a run
	// each of them would open a write transaction to find nothing (at
	// c256, hundreds per run).
	dry      bool
	dryTimer <-chan time.Time
	// workers is how many jobs may be in flight (the worker goroutines).
	workers int
	// committing counts the jobs in flight whose commit was handed to
	// the store's group commit: they wait only for its transaction, so
	// they hold no provider slot and no place among the jobs leased
	// ahead. Workers add, the loop subtracts as it takes their results.
	committing atomic.Int64
	// handed wakes the loop when a commit was handed over: a place among
	// the jobs leased ahead is free again.
	handed chan struct{}
}

// commitAhead is how many jobs beyond Concurrency and ReadAhead may be in
// flight waiting for their commit's transaction. Without them a group
// commit could gather no more than the jobs in flight, and while its
// transaction ran nothing new was claimed; with them the next jobs are
// called meanwhile and the next group is larger (see
// store/internal/jobs.MaxGroupCommit, the largest group).
const commitAhead = 64

// occupied is how many jobs in flight still need a provider slot or wait
// for one: those not handed to the group commit.
func (w *workLoop) occupied() int {
	return w.inflight - int(w.committing.Load())
}

// took accounts for a job's result taken from w.done.
func (w *workLoop) took(res jobResult) {
	w.inflight--
	if res.handed {
		w.committing.Add(-1)
	}
	w.abort = errors.Join(w.abort, res.abort)
}

// settledOutcome reports whether a job that finished with outcome left
// nothing for this process to claim: it is final, or another worker holds
// it. Every other outcome (given back, retry, an error left to lease
// expiry) may have made a job claimable.
func settledOutcome(outcome string) bool {
	switch outcome {
	case store.StateSucceeded, store.StateRejected, store.StateFailed, store.OutcomeStaleLease:
		return true
	}
	return false
}

// wet ends a dry spell: the next loop claims.
func (w *workLoop) wet() {
	w.dry, w.dryTimer = false, nil
}

// startWorkers starts a worker per job that may be in flight (Concurrency
// plus ReadAhead) to process leases from w.work, and returns the function
// that stops them and waits for them.
func (w *workLoop) startWorkers() func() {
	r := w.r
	n := r.Concurrency + r.ReadAhead + commitAhead
	w.workers = n
	w.work = make(chan ticketed, n)
	w.done = make(chan jobResult, n)
	w.handed = make(chan struct{}, 1)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tl := range w.work {
				var handed atomic.Bool
				res := r.process(w.ctx, w.callCtx, tl.l, tl.ticket, func() {
					if handed.CompareAndSwap(false, true) {
						w.committing.Add(1)
						select {
						case w.handed <- struct{}{}:
						default:
						}
					}
				})
				res.handed = handed.Load()
				if res.abort != nil {
					r.stopCalls()
				}
				w.done <- res
			}
		}()
	}
	return func() {
		close(w.work)
		wg.Wait()
	}
}

// wait blocks until a job finishes, d passes (d <= 0: no timeout) or ctx
// is cancelled.
func (w *workLoop) wait(d time.Duration) {
	var timer <-chan time.Time
	switch {
	case d > 0 && w.dry:
		// One timer for the whole dry spell: jobs finishing meanwhile
		// do not put off the next look.
		if w.dryTimer == nil {
			w.dryTimer = w.r.after(d)
		}
	case d > 0:
		timer = w.r.after(d)
	}
	select {
	case res := <-w.done:
		w.took(res)
		if !settledOutcome(res.outcome) {
			w.wet()
		}
	case <-w.handed: // a place among the jobs leased ahead is free
	case <-timer:
	case <-w.dryTimer: // look again for retry times and leases that came due
		w.wet()
	case <-w.ctx.Done():
	case <-w.feed.wake(): // a batch was enqueued: claim it
		w.wet()
	case <-w.feedEnded():
		w.wet()
	}
}

// feedEnded is closed when the enqueue beside Work ends (nil without one):
// an idle Work then looks once more and ends.
func (w *workLoop) feedEnded() <-chan struct{} {
	if running, _ := w.feed.feeding(); !running {
		return nil
	}
	return w.feed.done
}

// drain waits for every job in flight, so none is abandoned mid-write.
func (w *workLoop) drain() {
	for w.inflight > 0 {
		w.took(<-w.done)
	}
}

// claim leases jobs up to the provider slots plus the read-ahead and hands
// them to the workers. While every slot has a job it waits until the whole
// read-ahead is free (every job leased ahead has started its call or
// handed its commit over), so one claim transaction leases many jobs rather
// than one per finished job. again reports that the loop must start over (the
// database was unavailable: it waited, or set w.abort).
func (w *workLoop) claim() (claimed int, again bool) {
	r := w.r
	limit := r.currentLimit()
	free := min(limit+r.ReadAhead-w.occupied(), w.workers-w.inflight)
	// Jobs waiting for their commit count as busy here: when commits
	// queue, claims still lease the read-ahead at once, rather than a job
	// per finished commit, each a write transaction in the way of the
	// commits (c256: 10k documents took 5.9 CPU s of claims). A claim
	// costs a transaction and its fsync whatever it leases: waiting for
	// the whole read-ahead rather than half of it halved the claims of a
	// replay first run (10k documents: 580 -> about 300 transactions).
	if w.dry || free <= 0 || (w.inflight >= limit && free < max(1, r.ReadAhead)) {
		return 0, false
	}
	leases, err := r.Store.Claim(w.callCtx, &store.ClaimParams{Tenant: r.Tenant, Owner: r.Owner, RunID: r.RunID,
		Limit: free, LeaseFor: r.LeaseFor, Now: r.leaseNow(), MaxPerTenant: r.MaxPerTenant, SchemaVersion: r.OnlySchema})
	if err != nil {
		d, stop := r.dbWait(&w.outage, err)
		if stop != nil {
			w.abort = fmt.Errorf("claim jobs: %w", stop)
			return 0, true
		}
		r.log().Warn("database unavailable, claiming again later", "stage", "claim", "tenant", r.Tenant,
			"run_id", r.RunID, "error_class", "store_transient", "error", err, "retry_in_ms", d.Milliseconds())
		w.wait(d)
		return 0, true
	}
	w.outage = dbOutage{}
	if len(leases) < free && r.MaxPerTenant == 0 {
		// The queue is empty for now. With a per-tenant cap a short claim
		// may mean a capped tenant instead, whose finished jobs free room.
		w.dry = true
	}
	for _, l := range leases {
		w.inflight++
		claimed++
		if l.Recovered {
			r.count(func(s *Summary) { s.LeaseRecoveries++ })
			if r.Metrics != nil {
				r.Metrics.LeaseRecovered(l.Tenant)
			}
			r.log().Info("lease recovered", "stage", "lease_recovered", "tenant", l.Tenant, "job_key", l.JobKey,
				"run_id", r.RunID, "attempt", l.AttemptNo)
		}
		r.log().Debug("claimed", "stage", "claimed", "tenant", l.Tenant, "job_key", l.JobKey, "run_id", r.RunID,
			"attempt", l.AttemptNo)
		w.work <- ticketed{l: l, ticket: r.ticket()}
	}
	return claimed, false
}

// awaitPending runs when nothing is in flight and nothing could be
// claimed: it reports false when the tenant has no work left (and the
// runner does not wait for more), else sleeps until work may be claimable.
func (w *workLoop) awaitPending() bool {
	r := w.r
	// Nothing is in flight: whatever this decides, the next loop claims.
	w.wet()
	p, err := r.Store.Pending(w.callCtx, &store.PendingParams{Tenant: r.Tenant, SchemaVersion: r.OnlySchema})
	if err != nil {
		d, stop := r.dbWait(&w.outage, err)
		if stop != nil {
			w.abort = fmt.Errorf("read pending jobs: %w", stop)
			return true
		}
		r.log().Warn("database unavailable, looking again later", "stage", "pending", "tenant", r.Tenant,
			"run_id", r.RunID, "error_class", "store_transient", "error", err, "retry_in_ms", d.Milliseconds())
		w.wait(d)
		return true
	}
	w.outage = dbOutage{}
	if running, _ := w.feed.feeding(); running && p.Total() == 0 {
		// The queue is empty for now: wait for the enqueue's next batch.
		w.wait(0)
		return true
	}
	if p.Total() == 0 && !r.Wait {
		return false
	}
	// Work exists but is not ours yet: another worker holds it or it
	// waits for its retry time. Sleep until it may be, polling with a
	// gentle backoff so idle workers do not hammer the write lock.
	d := w.idle
	if !p.NextWake.IsZero() {
		if until := p.NextWake.Sub(r.now()); until > 0 && until < d {
			d = until
		}
	}
	w.wait(max(d, 5*time.Millisecond))
	w.idle = min(w.idle*2, 2*time.Second)
	r.reap(w.callCtx)
	return true
}

func (r *Runner) reap(ctx context.Context) {
	if r.AliveFunc == nil {
		return
	}
	n, err := r.Store.ReapLeases(ctx, &store.ReapLeasesParams{Alive: r.AliveFunc, Now: r.leaseNow()})
	if err != nil {
		r.log().Warn("reap leases", "stage", "reap", "error", err)
		return
	}
	if n > 0 {
		r.log().Info("reaped leases of gone workers", "stage", "reap", "tenant", r.Tenant, "run_id", r.RunID, "count", n)
	}
}

func (r *Runner) count(f func(*Summary)) {
	r.mu.Lock()
	f(&r.summary)
	r.mu.Unlock()
}

// ticketed is a claimed lease with its place in the claim order (see
// acquireSlot).
type ticketed struct {
	l      *store.Lease
	ticket int64
}

// process works one leased job through as many attempts as the lease and
// the repair budget allow. ticket is its place in the claim order (0:
// none), used by its first call.
// handed, if not nil, is called when a commit of the job is handed to the
// store (see store.CommitParams.HandedOver), at most once.
func (r *Runner) process(runCtx, ctx context.Context, l *store.Lease, ticket int64, handed func()) jobResult {
	// A job that ends before its first call lets the next in order go.
	defer func() { r.passTicket(ticket) }()
	log := r.log().With("tenant", l.Tenant, "job_key", l.JobKey, "run_id", r.RunID)
	// Losing the lease cancels the provider call (its answer could not be
	// committed) but never the writes that record what happened: they run
	// on wctx and are fenced by the lease token, so a stale worker's write
	// fails cleanly (stale_lease) and the worker carries on.
	wctx := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopRenew := r.keepLease(ctx, cancel, l, log)
	defer stopRenew()

	v, refused := r.admit(wctx, ctx, l, log)
	if refused != nil {
		return *refused
	}
	j := &jobRun{runCtx: runCtx, leaseCtx: ctx, l: l, v: v, log: log, tokens: l.PrevTokens, ticket: &ticket, handed: handed}
	return r.attempts(wctx, j)
}

// attempts makes the job's attempts through the synchronous provider until
// one ends it: the loop of process, and of a batch line re-asked with
// --repair-sync.
func (r *Runner) attempts(wctx context.Context, j *jobRun) jobResult {
	l := j.l
	for {
		if l.AttemptNo-l.BudgetBase > r.MaxAttempts {
			return r.finish(wctx, l, store.StateFailed, time.Time{}, store.AttemptInfo{Outcome: store.OutcomeFailed,
				ErrorClass: "max_attempts", Message: fmt.Sprintf("gave up after %d attempts (--max-attempts)", r.MaxAttempts)}, j.log)
		}
		if res, again := r.attempt(j); !again {
			return res
		}
	}
}

// admit returns the schema version the job is worked under, or the
// finished result of a job that must not be attempted at all.
func (r *Runner) admit(wctx, ctx context.Context, l *store.Lease, log *slog.Logger) (*schema.Version, *jobResult) {
	v := r.Schema
	if l.SchemaVersion != r.Schema.Name {
		// A job is only ever worked under the version it was keyed with.
		var err error
		if v, err = schema.Lookup(l.SchemaVersion); err != nil {
			res := r.finish(wctx, l, store.StateFailed, time.Time{}, store.AttemptInfo{Outcome: store.OutcomeFailed,
				ErrorClass: string(ClassPermanent), Message: err.Error()}, log)
			return nil, &res
		}
	}
	if l.Recoveries > r.MaxRecoveries {
		// Workers keep dying on this job (or it keeps outliving its lease):
		// stop handing it out rather than fail worker after worker.
		r.count(func(s *Summary) { s.FailedNow++ })
		res := r.finish(ctx, l, store.StateFailed, time.Time{}, store.AttemptInfo{Outcome: store.OutcomeFailed,
			ErrorClass: ClassLeaseRecoveries, Message: fmt.Sprintf("lease lost %d times (--max-recoveries %d)",
				l.Recoveries, r.MaxRecoveries)}, log)
		return nil, &res
	}
	return v, nil
}

// jobRun is what carries over from one attempt of a job to the next.
type jobRun struct {
	runCtx   context.Context // cancelled by the first interrupt: no more repairs
	leaseCtx context.Context // cancelled when the lease is lost: cuts the provider call
	l        *store.Lease
	v        *schema.Version
	log      *slog.Logger
	feedback *schema.ValidationError // the previous answer's fault, for a repair
	repairs  int
	tokens   int64
	// ticket is the job's place in the claim order for its first call
	// (acquireSlot sets it to 0 once used); nil: none.
	ticket *int64
	// release gives back the provider slot the current attempt holds (nil:
	// none held).
	release func()
	// handed is told when the job's commit is handed over (nil: nobody
	// listens).
	handed func()
}

// holdSlot records that the attempt holds a provider slot of r.
func (j *jobRun) holdSlot(r *Runner) {
	j.release = sync.OnceFunc(r.releaseSlot)
}

// releaseSlot gives back the attempt's provider slot, if it holds one; it
// may be called more than once (the commit's hand-over, then the end of
// the attempt).
func (j *jobRun) releaseSlot() {
	if j.release != nil {
		j.release()
	}
}

// handOver is the commit's HandedOver: the job needs neither its provider
// slot nor its place among the jobs leased ahead any more.
func (j *jobRun) handOver() {
	j.releaseSlot()
	if j.handed != nil {
		j.handed()
	}
}

// call is one provider call and what the attempt records about it.
type call struct {
	ctx        context.Context // the attempt's span, not cancelled by a lost lease
	resp       *Response
	err        error
	info       store.AttemptInfo
	log        *slog.Logger
	overBudget bool
	// unreachable: this call made MaxUnreachable in a row that reached no
	// server, and the run stops.
	unreachable bool
	// notStarted: no call was made (the run stopped, or the lease was
	// lost, while the job waited for a provider slot).
	notStarted bool
}

// attempt makes one attempt of the job: call, judge the answer, then
// repair, reject, fail or commit. It reports whether another attempt
// follows.
func (r *Runner) attempt(j *jobRun) (jobResult, bool) {
	defer j.releaseSlot()
	c := r.callProvider(j)
	if c.notStarted {
		return r.giveBack(j), false
	}
	if c.unreachable {
		return r.unreachable(c.ctx, j.l, c.err, c.info, c.log), false
	}
	return r.answer(j, c)
}

// answer judges one answer, from a synchronous call or a batch result
// line, and commits it, opens a repair attempt (again), rejects it or
// applies the retry policy: one path for both, so a batch line is held to
// exactly the rules of a call.
func (r *Runner) answer(j *jobRun, c *call) (res jobResult, again bool) {
	valid, ve, out, done := r.judge(j, c)
	if done {
		return out, false
	}
	if ve != nil {
		return r.rejected(j, c, ve)
	}
	return r.commitAnswer(j, c, valid), false
}

// callProvider asks the provider once, under the attempt's trace span and
// the call timeout, and accounts the tokens the call used.
func (r *Runner) callProvider(j *jobRun) *call {
	l, v := j.l, j.v
	// The provider that answers: under auto, the one the document routes to.
	name := RouteOfText(r.Provider, l.Text)
	var none int64
	if j.ticket == nil {
		j.ticket = &none
	}
	if err := r.acquireSlot(j.runCtx, j.leaseCtx, j.ticket); err != nil {
		// Interrupted (or the lease lost) before the call began.
		return &call{ctx: context.WithoutCancel(j.leaseCtx), err: err, log: j.log, notStarted: true,
			info: store.AttemptInfo{Provider: name, PromptHash: v.PromptHash()}}
	}
	// The slot is held through validation until the commit is handed over
	// (or the attempt ends otherwise, see attempt): with one slot, commits
	// then reach the store in the order the calls were made.
	j.holdSlot(r)
	r.count(func(s *Summary) { s.Attempts++ })
	actx, _ := r.tracer().Start(j.leaseCtx, "invx.attempt", trace.WithAttributes(attemptAttrs(r, l, name, v.Name)...))
	start := time.Now()
	callCtx, cancelCall := actx, context.CancelFunc(func() {})
	if r.CallTimeout > 0 {
		callCtx, cancelCall = context.WithTimeout(actx, r.CallTimeout)
	}
	callCtx, callSpan := r.tracer().Start(callCtx, "invx.provider_call", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("invx.provider", name)))
	resp, err := r.Provider.Extract(callCtx, &Request{Tenant: l.Tenant, JobKey: l.JobKey, Attempt: l.AttemptNo,
		Text: l.Text, Schema: v, Feedback: j.feedback})
	endCallSpan(callSpan, resp, err)
	cancelCall()
	// What follows belongs to this attempt's span, and must be written
	// even if the lease was lost meanwhile.
	c := &call{ctx: context.WithoutCancel(actx), resp: resp, err: err}
	c.info = store.AttemptInfo{Provider: name, Duration: time.Since(start), PromptHash: v.PromptHash()}
	r.account(j, c)
	// Decided while the slot is still held, so no job waiting for it is
	// called before concurrency shrank after a 429, or once the run must
	// stop.
	if pe := (*ProviderError)(nil); err == nil || !errors.As(err, &pe) || pe.Class != ClassRejected {
		r.throttle(Classify(err) == ClassRateLimited)
	}
	c.unreachable = r.reached(err)
	if c.unreachable || stopsRun(err) {
		r.stopCalls()
	}
	return c
}

// giveBack returns a job whose call never began to the queue, as if it had
// not been claimed: it spends none of its attempt budget.
func (r *Runner) giveBack(j *jobRun) jobResult {
	l := j.l
	err := r.withStore(context.WithoutCancel(j.leaseCtx), "give_back", j.log, func() error {
		return r.Store.GiveBack(context.WithoutCancel(j.leaseCtx), &store.GiveBackParams{JobID: l.JobID, Token: l.Token,
			AttemptID: l.AttemptID, Now: r.now()})
	})
	if errors.Is(err, store.ErrStaleLease) {
		// Another worker holds the job now: nothing of ours to undo.
		j.log.Info("lease lost before the call", "stage", "give_back", "outcome", store.OutcomeStaleLease)
		return jobResult{outcome: store.OutcomeStaleLease}
	}
	if err != nil {
		j.log.Error("give back job", "stage", "give_back", "error_class", "store")
		return jobResult{outcome: "error", abort: fmt.Errorf("give back job %s: %w", l.JobKey, err)}
	}
	j.log.Debug("given back before the call", "stage", "give_back", "outcome", store.OutcomeReleased)
	return jobResult{outcome: store.OutcomeReleased}
}

// stopsRun reports whether a provider error stops the whole run (see
// failed): every further call would fail the same way.
func stopsRun(err error) bool {
	var pe *ProviderError
	return errors.As(err, &pe) && (pe.Class == ClassAuth || pe.Class == ClassPermanent && pe.Category == CategoryQuota)
}

// attemptAttrs are the attributes of an attempt's span.
func attemptAttrs(r *Runner, l *store.Lease, provider, version string, more ...attribute.KeyValue) []attribute.KeyValue {
	return append([]attribute.KeyValue{attribute.String("invx.tenant", l.Tenant), attribute.String("invx.job_key", l.JobKey),
		attribute.Int("invx.attempt", l.AttemptNo), attribute.String("invx.run_id", r.RunID),
		attribute.String("invx.provider", provider), attribute.String("invx.schema_version", version)}, more...)
}

// account copies an answer's metadata to the attempt and adds its tokens
// to the job's and the run's.
func (r *Runner) account(j *jobRun, c *call) {
	l, resp, err := j.l, c.resp, c.err
	if resp != nil {
		c.info.Model, c.info.InputTokens, c.info.OutputTokens = resp.Model, resp.InputTokens, resp.OutputTokens
		c.info.RequestID, c.info.HTTPStatus = resp.RequestID, resp.HTTPStatus
	}
	j.tokens += c.info.InputTokens + c.info.OutputTokens
	r.count(func(s *Summary) {
		s.InputTokens += c.info.InputTokens
		s.OutputTokens += c.info.OutputTokens
	})
	c.log = j.log.With("attempt", l.AttemptNo, "provider", c.info.Provider, "model", c.info.Model)
	c.log.Debug("provider call", "stage", "provider_call", "duration_ms", c.info.Duration.Milliseconds(),
		"input_tokens", c.info.InputTokens, "output_tokens", c.info.OutputTokens, "outcome", outcomeOf(err),
		"error_class", errorClass(err))
	c.overBudget = r.TokenBudget > 0 && j.tokens >= r.TokenBudget
}

// judge turns the call's outcome into a valid result, a validation fault
// that may be repaired, or (done) the job's end on a provider error.
func (r *Runner) judge(j *jobRun, c *call) (res *schema.Result, ve *schema.ValidationError, out jobResult, done bool) {
	if c.err != nil {
		var pe *ProviderError
		if !errors.As(c.err, &pe) || pe.Class != ClassRejected {
			if c.overBudget && Classify(c.err) != ClassAuth && Classify(c.err) != ClassInterrupted {
				return nil, nil, r.overBudget(c.ctx, j.l, c.info, c.err, c.log), true
			}
			return nil, nil, r.failed(c.ctx, j.runCtx, j.l, c.err, c.info, c.log), true
		}
		// The provider answered but the answer is unusable (refusal,
		// truncation, content filter, prose): like an invalid answer,
		// it may be re-asked.
		c.info.HTTPStatus = max(c.info.HTTPStatus, pe.Status)
		ve = &schema.ValidationError{Path: "$", Category: schema.Category(cmp.Or(pe.Category, "provider")), Msg: Truncate(pe.Msg, 300)}
		return nil, ve, jobResult{}, false
	}
	res, verr := r.validate(j, c)
	if verr != nil && !errors.As(verr, &ve) {
		ve = &schema.ValidationError{Path: "$", Category: schema.CategoryDecode, Msg: verr.Error()}
	}
	if verr == nil {
		c.log.Debug("validated", "stage", "validated", "outcome", "valid", "schema_version", j.v.Name)
	}
	return res, ve, jobResult{}, false
}

// rejected records an unusable answer and either opens a repair attempt
// (reported as another attempt to follow) or ends the job as rejected.
func (r *Runner) rejected(j *jobRun, c *call, ve *schema.ValidationError) (jobResult, bool) {
	l, ctx, log := j.l, c.ctx, c.log
	info := c.info
	info.Outcome, info.ErrorClass = store.OutcomeRejected, string(ClassRejected)
	info.Category, info.Message = string(ve.Category), ve.Error()
	if c.resp != nil {
		info.Output = capBytes(c.resp.Output, 64<<10)
	}
	log.Info("answer rejected", "stage", "rejected", "outcome", "rejected", "error_class", "rejected", "category", string(ve.Category))
	if r.canRepair(j, c) {
		j.repairs++
		j.feedback = ve
		next, err := r.Store.NextAttempt(ctx, &store.NextAttemptParams{JobID: l.JobID, Token: l.Token,
			AttemptID: l.AttemptID, RunID: r.RunID, Owner: r.Owner, Attempt: info, Now: r.now()})
		if err != nil && store.IsTransient(err) && r.DBRetry > 0 {
			// Not written again: a NextAttempt whose reply was lost
			// may have landed, and a second one would open a second
			// attempt. The job is left to its lease: it expires and
			// the job is claimed again (lease_expired), safely.
			log.Warn("database unavailable: job left to lease expiry", "stage", "next_attempt",
				"error_class", "store_transient", "error", err)
			return jobResult{outcome: "error"}, false
		}
		if err != nil {
			return r.storeErr(ctx, l, info, err, log), false
		}
		r.observe(ctx, l, info, log)
		l.AttemptID, l.AttemptNo = next.AttemptID, next.AttemptNo
		return jobResult{}, true
	}
	r.count(func(s *Summary) { s.RejectedNow[string(ve.Category)]++ })
	return r.finish(ctx, l, store.StateRejected, time.Time{}, info, log), false
}

// commitAnswer commits a valid result with its outbox events and its
// review reasons (found in the same transaction: the store adds possible
// duplicates and holds the events while any reason is open), fenced by the
// lease token.
func (r *Runner) commitAnswer(j *jobRun, c *call, res *schema.Result) jobResult {
	l, v, ctx, log := j.l, j.v, c.ctx, c.log
	info := c.info
	info.Outcome = store.OutcomeSucceeded
	rv, err := r.assess(ctx, l, res)
	if err != nil {
		return r.storeErr(ctx, l, info, err, log)
	}
	cr, err := r.commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey, Token: l.Token,
		AttemptID: l.AttemptID, RunID: r.RunID, SchemaVersion: v.Name, Result: res.JSON, Shadow: r.Shadow,
		Outbox: outboxEvents(l, res), Attempt: info, Now: r.now(), Review: rv, HandedOver: j.handOver}, log)
	if err != nil {
		return r.storeErr(ctx, l, info, err, log)
	}
	r.count(func(s *Summary) { s.CommittedNow++ })
	r.reviewed(l, cr.Reasons)
	r.observe(ctx, l, info, log)
	if r.Metrics != nil {
		r.Metrics.Committed(l.Tenant, v.Name)
	}
	log.Info("committed", "stage", "committed", "outcome", "succeeded", "result_id", cr.ResultID, "existing", cr.Existing,
		"review", cr.Reasons)
	r.progress(Event{Kind: EventJobDone, Outcome: store.StateSucceeded})
	return jobResult{outcome: store.StateSucceeded}
}

// reached counts provider calls in a row that reached no server and
// reports whether the run must stop (MaxUnreachable of them). Any answer,
// even an error status, resets the count; an interrupted call says nothing.
func (r *Runner) reached(err error) bool {
	if r.MaxUnreachable <= 0 || Classify(err) == ClassInterrupted {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !Unreachable(err) {
		r.unreachableRun = 0
		return false
	}
	r.unreachableRun++
	return r.unreachableRun >= r.MaxUnreachable
}

// unreachable gives the job back (queued, outcome released, not failed)
// and stops the run: the provider cannot be reached.
func (r *Runner) unreachable(ctx context.Context, l *store.Lease, err error, info store.AttemptInfo, log *slog.Logger) jobResult {
	info.Outcome, info.ErrorClass = store.OutcomeReleased, string(ClassTransient)
	info.Category = CategoryUnreachable
	info.Message = Truncate(err.Error(), 500)
	log.Warn("provider unreachable: job given back", "stage", "provider_call", "outcome", store.OutcomeReleased,
		"error_class", string(ClassTransient), "category", CategoryUnreachable)
	res := r.finish(ctx, l, store.StateQueued, time.Time{}, info, log)
	res.abort = errors.Join(res.abort, fmt.Errorf("%w: %d calls in a row reached no server (--max-unreachable %d): %w",
		ErrUnreachable, r.MaxUnreachable, r.MaxUnreachable, err))
	return res
}

// overBudget fails a job whose attempts used up --token-budget.
func (r *Runner) overBudget(ctx context.Context, l *store.Lease, info store.AttemptInfo, err error, log *slog.Logger) jobResult {
	info.Outcome, info.ErrorClass = store.OutcomeFailed, "token_budget"
	info.Message = Truncate(fmt.Sprintf("token budget %d reached; last error: %v", r.TokenBudget, err), 500)
	r.count(func(s *Summary) { s.FailedNow++ })
	return r.finish(ctx, l, store.StateFailed, time.Time{}, info, log)
}

// errorClass is err's class for a log line, empty on success.
func errorClass(err error) string {
	if err == nil {
		return ""
	}
	return string(Classify(err))
}

func outcomeOf(err error) string {
	if err != nil {
		return string(Classify(err))
	}
	return "ok"
}

func capBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// failed applies the retry policy to a provider failure.
func (r *Runner) failed(ctx, runCtx context.Context, l *store.Lease, err error, info store.AttemptInfo, log *slog.Logger) jobResult {
	class := Classify(err)
	var pe *ProviderError
	if errors.As(err, &pe) {
		info.HTTPStatus = max(info.HTTPStatus, pe.Status)
		info.Category = pe.Category
	}
	info.ErrorClass = string(class)
	info.Message = Truncate(err.Error(), 500)
	switch class {
	case ClassAuth:
		info.Outcome = store.OutcomeReleased
		res := r.finish(ctx, l, store.StateQueued, time.Time{}, info, log)
		res.abort = fmt.Errorf("%w: %w", ErrAuth, err)
		return res
	case ClassInterrupted:
		info.Outcome = store.OutcomeReleased
		return r.finish(ctx, l, store.StateQueued, time.Time{}, info, log)
	case ClassPermanent:
		info.Outcome = store.OutcomeFailed
		r.count(func(s *Summary) { s.FailedNow++ })
		res := r.finish(ctx, l, store.StateFailed, time.Time{}, info, log)
		if pe != nil && pe.Category == CategoryQuota {
			res.abort = errors.Join(res.abort, fmt.Errorf("%w: %w", ErrQuota, err))
		}
		return res
	case ClassRejected:
		info.Outcome = store.OutcomeRejected
		r.count(func(s *Summary) { s.RejectedNow[cmp.Or(info.Category, "provider")]++ })
		return r.finish(ctx, l, store.StateRejected, time.Time{}, info, log)
	}
	// Transient or rate limited: try again later under a new lease.
	if l.AttemptNo-l.BudgetBase >= r.MaxAttempts {
		info.Outcome = store.OutcomeFailed
		r.count(func(s *Summary) { s.FailedNow++ })
		return r.finish(ctx, l, store.StateFailed, time.Time{}, info, log)
	}
	var retryAfter time.Duration
	if pe != nil {
		retryAfter = pe.RetryAfter
	}
	delay := r.backoff().Delay(l.AttemptNo, retryAfter)
	info.Outcome, info.NextDelay = store.OutcomeRetry, delay
	r.count(func(s *Summary) { s.Retried++ })
	log.Info("retry scheduled", "stage", "retry_scheduled", "error_class", string(class), "delay_ms", delay.Milliseconds())
	return r.finish(ctx, l, store.StateRetryWait, r.now().Add(delay), info, log)
}

// backoff is the retry wait of provider calls and database outages:
// exponential with full jitter, capped by MaxBackoff, honouring a
// provider's Retry-After.
func (r *Runner) backoff() backoff.Policy {
	return backoff.Policy{Base: r.Backoff, Max: r.MaxBackoff}
}

func (r *Runner) finish(ctx context.Context, l *store.Lease, state string, next time.Time, info store.AttemptInfo, log *slog.Logger) jobResult {
	err := r.withStore(ctx, "finish_attempt", log, func() error {
		return r.Store.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
			State: state, NextAttemptAt: next, Attempt: info, Now: r.now()})
	})
	if err != nil {
		return r.storeErr(ctx, l, info, err, log)
	}
	r.observe(ctx, l, info, log)
	switch state {
	case store.StateRejected, store.StateFailed:
		r.progress(Event{Kind: EventJobDone, Outcome: state})
	}
	return jobResult{outcome: state}
}

// storeErr handles a store failure while finishing a job. A lost fence is
// an outcome (another worker owns the job now); anything else is logged and
// the job is left to lease expiry, which is safe by construction.
func (r *Runner) storeErr(ctx context.Context, l *store.Lease, info store.AttemptInfo, err error, log *slog.Logger) jobResult {
	if errors.Is(err, store.ErrStaleLease) {
		r.count(func(s *Summary) { s.StaleLeases++ })
		info.Outcome = store.OutcomeStaleLease
		r.observe(ctx, l, info, log)
		if r.Metrics != nil {
			r.Metrics.StaleCommit(l.Tenant)
		}
		log.Warn("stale lease: commit rejected", "stage", "stale_commit", "outcome", store.OutcomeStaleLease)
		return jobResult{outcome: store.OutcomeStaleLease}
	}
	trace.SpanFromContext(ctx).End()
	log.Error("store write failed", "stage", "commit", "error_class", "store")
	return jobResult{outcome: "error", abort: fmt.Errorf("job %s: %w", l.JobKey, err)}
}

// maxDBBackoff caps one wait for the database, so a worker notices soon
// after a restart that it is back.
const maxDBBackoff = 5 * time.Second

// dbOutage is a run of transient store errors met by one caller.
type dbOutage struct {
	since time.Time
	tries int
}

// dbWait decides what a store error means: wait d and try again (nil
// error) while it is transient and the outage is younger than DBRetry;
// otherwise stop with the error. Outages are timed on the real clock, not
// NowFunc.
func (r *Runner) dbWait(o *dbOutage, err error) (time.Duration, error) {
	if !store.IsTransient(err) || r.DBRetry <= 0 {
		return 0, err
	}
	now := time.Now()
	if o.tries == 0 {
		o.since = now
	}
	o.tries++
	left := r.DBRetry - now.Sub(o.since)
	if left <= 0 {
		return 0, fmt.Errorf("database unavailable for %s (--db-retry %s): %w", now.Sub(o.since).Round(time.Second), r.DBRetry, err)
	}
	return min(r.backoff().Delay(o.tries, 0), maxDBBackoff, left), nil
}

// withStore runs a fenced store write, riding out transient errors for up
// to DBRetry. Running it again is safe: the lease token fences it.
func (r *Runner) withStore(ctx context.Context, stage string, log *slog.Logger, fn func() error) error {
	var o dbOutage
	for {
		err := fn()
		if err == nil {
			return nil
		}
		d, stop := r.dbWait(&o, err)
		if stop != nil {
			return stop
		}
		log.Warn("database unavailable, writing again later", "stage", stage, "error_class", "store_transient",
			"error", err, "retry_in_ms", d.Milliseconds())
		select {
		case <-r.after(d):
		case <-ctx.Done():
			return err
		}
	}
}

// commit commits a result, riding out transient store errors. A commit
// whose reply was lost may have landed: if a retry then finds the fence
// gone, the result row says whether it was this attempt's.
func (r *Runner) commit(ctx context.Context, p *store.CommitParams, log *slog.Logger) (*store.CommitResult, error) {
	var cr *store.CommitResult
	retried := false
	err := r.withStore(ctx, "commit", log, func() error {
		var err error
		cr, err = r.Store.Commit(ctx, p)
		if retried && errors.Is(err, store.ErrStaleLease) {
			if res, gerr := r.Store.GetResult(ctx, &store.GetResultParams{Tenant: p.Tenant, JobKey: p.JobKey}); gerr == nil && res.AttemptID == p.AttemptID {
				cr, err = &store.CommitResult{ResultID: res.ID}, nil
			}
		}
		retried = retried || store.IsTransient(err)
		return err
	})
	return cr, err
}

// finishChunk bounds the job keys one final-state read names.
const finishChunk = 500

// Finish computes the final state of this run's documents and records the
// run. It uses its own context so an interrupted run is still recorded, and
// rides out a database that is away (up to DBRetry), so a run that stopped
// because of the database is recorded aborted once it is back, not left to
// be reaped as abandoned.
func (r *Runner) Finish(ctx context.Context, started time.Time, status string) (*Summary, error) {
	ctx = context.WithoutCancel(ctx)
	r.mu.Lock()
	s := r.summary
	s.copyMaps(&r.summary)
	tenants := r.keys.seal()
	mine := r.keys.cursor(r.Tenant)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		_ = r.keys.close() // unlinked already where the system allows it
	}()
	// The states are read a chunk at a time from the run's merged keys,
	// so the finish of a large run holds one chunk of keys and states,
	// not a map of every job.
	//
	// A job the enqueue found succeeded or dismissed, or that this runner
	// committed (the key set merges the two: tagCommitted), is counted as
	// that, unread: no store operation moves a job out of either state (commit
	// needs a running job, Requeue takes failed or rejected, a release
	// takes held, Dismiss takes rejected, failed or held, and prune keeps
	// the row), so another process cannot have changed it since. Every
	// other state can move under this run (a worker commits a queued job,
	// invx retry requeues a rejected one, invx review releases a held
	// one): those are read again. A no-op rerun of committed documents,
	// and a first run whose documents were all committed by it, thus read
	// no job state here.
	ask := make([]string, 0, finishChunk)
	read := func() error {
		if len(ask) == 0 {
			return nil
		}
		var states map[string]store.JobState
		err := r.withStore(ctx, "finish_run", r.log(), func() error {
			var err error
			states, err = r.Store.JobStates(ctx, &store.JobStatesParams{Tenant: r.Tenant, Keys: ask})
			return err
		})
		if err != nil {
			return err
		}
		for _, k := range ask {
			s.Final.count(states[k])
		}
		ask = ask[:0]
		return nil
	}
	var err error
	for k, tag, ok := mine.next(); ok && err == nil; k, tag, ok = mine.next() {
		switch tag {
		case tagSucceeded:
			s.Final.count(store.JobState{State: store.StateSucceeded})
		case tagDismissed:
			s.Final.count(store.JobState{State: store.StateDismissed})
		case tagEnqueued:
			if ask = append(ask, k); len(ask) == finishChunk {
				err = read()
			}
		}
	}
	if err == nil {
		err = mine.err
	}
	if err == nil {
		err = read()
	}
	if err != nil {
		return nil, fmt.Errorf("read final job states: %w", err)
	}
	// Without the review counts the run could exit 0 over documents that
	// must not be paid blindly: the run is still recorded, and the error
	// returned.
	var reviewErr error
	s.Final.Review, s.Final.ReviewOpen, reviewErr = r.openReview(ctx, tenants)
	s.Status = status
	s.WallMS = r.now().Sub(started).Milliseconds()
	if sc := trace.SpanFromContext(ctx).SpanContext(); sc.HasTraceID() {
		s.TraceID = sc.TraceID().String()
	}
	body, _ := json.Marshal(&s)
	err = r.withStore(ctx, "finish_run", r.log(), func() error {
		return r.Store.FinishRun(ctx, &store.FinishRunParams{ID: r.RunID, Status: status, FinishedAt: r.now(), Summary: body})
	})
	return &s, errors.Join(err, reviewErr)
}
