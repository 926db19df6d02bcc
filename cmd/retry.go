package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
	"github.com/invx/invx/telemetry"
)

// WorkOptions are the flags of commands that work the queue after changing
// it (invx retry, invx review accept): the provider and the retry policy,
// as for invx run.
type WorkOptions struct {
	Provider    ProviderOptions
	Concurrency int
	MaxAttempts int
	Repair      int
	MaxBackoff  time.Duration
	TokenBudget int64
	Lease       time.Duration
	Quiet       bool
	Telemetry   TelemetryOptions

	// MaxRecoveries bounds the lease takeovers of one job (crashed workers).
	MaxRecoveries int
	// DBRetry and MaxUnreachable: see extract.Runner.
	DBRetry        time.Duration
	MaxUnreachable int

	// Set by invx work only.
	allTenants   bool
	wait         bool
	maxPerTenant int
	command      string
	// schema, when set, is the only version whose jobs are claimed.
	schema string
	// require is invx work --require (nil: the tenant's policy).
	require []string
	// batch is invx work --batch and its flags.
	batch BatchFlags
}

func addWorkFlags(fl *pflag.FlagSet, o *WorkOptions) {
	addProviderFlags(fl, &o.Provider)
	fl.IntVar(&o.Concurrency, "concurrency", defaultConcurrency, "provider calls at once (as many jobs again are leased ahead)")
	fl.IntVar(&o.MaxAttempts, "max-attempts", defaultMaxAttempts, "attempts per job from now on, repairs included")
	fl.IntVar(&o.MaxRecoveries, "max-recoveries", extract.DefaultMaxRecoveries, "lease takeovers of one job (its worker crashed or stalled) before it fails; not counted in --max-attempts")
	fl.IntVar(&o.Repair, "repair", -1, "re-asks with the validation error after an invalid answer (-1: the provider's default)")
	fl.DurationVar(&o.MaxBackoff, "max-backoff", defaultMaxBackoff, "longest wait before retrying a job (caps backoff and Retry-After)")
	fl.Int64Var(&o.TokenBudget, "token-budget", 0, "stop retrying a job once its attempts used this many tokens (0: no budget)")
	fl.DurationVar(&o.Lease, "lease", defaultLease, "lease duration; leases are renewed while a call runs")
	fl.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress bar and no summary unless something needs review")
	addTelemetryFlags(fl, &o.Telemetry)
	addResilienceFlags(fl, &o.DBRetry, &o.MaxUnreachable)
}

func (o *WorkOptions) check() error {
	if o.Concurrency < 1 || o.Concurrency > 256 {
		return &usageError{err: fmt.Errorf("--concurrency %d: want 1..256", o.Concurrency)}
	}
	if o.MaxAttempts < 1 {
		return &usageError{err: fmt.Errorf("--max-attempts %d: want at least 1", o.MaxAttempts)}
	}
	if o.MaxRecoveries < 1 {
		return &usageError{err: fmt.Errorf("--max-recoveries %d: want at least 1", o.MaxRecoveries)}
	}
	if o.MaxBackoff <= 0 || o.TokenBudget < 0 || o.Provider.Timeout < 0 {
		return &usageError{err: errors.New("--max-backoff must be positive; --token-budget and --timeout must not be negative")}
	}
	if o.Lease < time.Second {
		return &usageError{err: fmt.Errorf("--lease %s: want at least 1s", o.Lease)}
	}
	return checkResilience(o.DBRetry, o.MaxUnreachable)
}

// workQueue works the tenant's queue the way invx run does after enqueueing
// (lease, provider call, validation, fenced commit), as a run of its own,
// until nothing is left. Every queued job of the tenant is worked, not only
// those the caller just queued. keys are the jobs the caller cares about:
// the returned counts say how they ended.
func workQueue(ctx context.Context, f *Factory, st store.Store, opts *WorkOptions, keys []string) (*workOutcome, error) {
	prov, defRepair, err := f.providerFor(&opts.Provider)
	if err != nil {
		return nil, err
	}
	bs, err := f.newBatchSetup(opts.batch, &opts.Provider)
	if err != nil {
		return nil, err
	}
	ro := opts.runnerOptions(prov, defRepair, f.Tenant)
	ctx, d, err := startDelivery(ctx, f, st, ro, opts.Telemetry, telemetry.InitParams{Tenant: ro.Tenant,
		SchemaVersion: ro.Schema.Name, Provider: extract.RouteOf(prov, extract.FormatText), Routes: routes(prov), Work: true})
	if err != nil {
		return nil, err
	}
	defer d.abandon(ctx)
	d.batch = bs
	workErr := d.work(ctx, f.IO.ErrTTY && !opts.Quiet && !opts.wait)
	sum, ferr, terr := d.finish(ctx, extract.RunStatus(ctx, workErr))
	if terr != nil {
		fmt.Fprintln(f.IO.ErrOut, "invx: "+terr.Error())
	}
	if err := workStopError(ctx, f, ro, workErr); err != nil {
		return nil, err
	}
	if ferr != nil {
		return nil, ferr
	}
	out := &workOutcome{Summary: sum, States: map[string]int{}, batch: bs}
	if len(keys) > 0 {
		states, err := st.JobStates(context.WithoutCancel(ctx), &store.JobStatesParams{Tenant: f.Tenant, Keys: keys})
		if err != nil {
			return nil, fmt.Errorf("read job states: %w", err)
		}
		for _, k := range keys {
			out.States[cmp.Or(states[k].State, "unknown")]++
		}
	}
	return out, nil
}

// runnerOptions maps the work flags (invx work, retry, review accept) to
// the runner's settings. A job is always worked under the schema version
// it was keyed with; the runner's version only labels the run.
func (o *WorkOptions) runnerOptions(prov extract.Provider, defRepair int, tenant string) *runnerOptions {
	if o.allTenants {
		tenant = ""
	}
	label := schema.Latest()
	if v, err := schema.Lookup(o.schema); err == nil {
		label = v
	}
	return &runnerOptions{Command: cmp.Or(o.command, "run"), Provider: prov, ProviderOpts: &o.Provider,
		Schema: label, OnlySchema: o.schema, Tenant: tenant, Concurrency: o.Concurrency, MaxAttempts: o.MaxAttempts,
		MaxRecoveries: o.MaxRecoveries, Repair: resolveRepair(o.Repair, defRepair), MaxBackoff: o.MaxBackoff,
		TokenBudget: o.TokenBudget, Lease: o.Lease, Wait: o.wait, MaxPerTenant: o.maxPerTenant,
		DBRetry: o.DBRetry, MaxUnreachable: o.MaxUnreachable, Require: o.require}
}

// workOutcome is what workQueue did: the run's counts, and the states the
// caller's jobs ended in.
type workOutcome struct {
	Summary *extract.Summary
	States  map[string]int
	// batch is the batch setup of invx work --batch (nil: none).
	batch *batchSetup
}

// needsReview counts the caller's jobs a person has to look at again.
func (w *workOutcome) needsReview() int {
	return w.States[store.StateRejected] + w.States[store.StateFailed] + w.States[store.StateHeld]
}

// unfinished counts the caller's jobs still waiting (another worker holds
// them, or their retry time has not come).
func (w *workOutcome) unfinished() int {
	return w.States[store.StateQueued] + w.States[store.StateRunning] + w.States[store.StateRetryWait]
}

// renderWork prints one line about the work done, for people.
func renderWork(w io.Writer, o *workOutcome) {
	s := o.Summary
	rej := 0
	for _, n := range s.RejectedNow {
		rej += n
	}
	line := fmt.Sprintf("run %s  provider %s: committed %d, rejected %d", s.RunID, s.Provider, s.CommittedNow, rej)
	if rej > 0 {
		line += " (" + countsString(s.RejectedNow, "") + ")"
	}
	line += fmt.Sprintf(", failed %d, attempts %d", s.FailedNow, s.Attempts)
	if s.Final.Review > 0 {
		line += fmt.Sprintf(", to review %d (%s): invx review", s.Final.Review, countsString(s.Final.ReviewOpen, ""))
	}
	fmt.Fprintln(w, line)
}

// RetryOptions are the flags of invx retry.
type RetryOptions struct {
	Refs        []string
	States      []string
	EnqueueOnly bool
	Work        WorkOptions
}

func newCmdRetry(f *Factory, runF func(context.Context, *RetryOptions) error) *cobra.Command {
	opts := &RetryOptions{}
	c := &cobra.Command{
		Use:   "retry [KEY|PATH...] [--state failed|rejected]...",
		Short: "Queue failed or rejected jobs again with a fresh attempt budget",
		Long: `Retry moves failed or rejected jobs of the tenant back to the queue, under
the same job key, with a fresh attempt budget: attempts already made stay on
record (invx show) and are numbered on from there, but no longer count
against --max-attempts. Then it works the queue as invx run would, with the
provider flags given here, unless --enqueue-only.

Name the jobs by key, unique key prefix (at least 8 hex digits) or source
path, or give --state to take every job of the tenant in that state; with
both, each named job must be in one of the states. Without a KEY, --state is
required.

Exit status 3 when a retried job still needs review afterwards.`,
		Example: `  invx retry --state failed
  invx retry 3f2a9c1e de_gutschrift.txt
  invx retry --state rejected --provider openai --model gpt-4.1-mini
  invx retry --state failed --enqueue-only && invx work`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Refs = args
			if len(opts.Refs) == 0 && len(opts.States) == 0 {
				return &usageError{err: errors.New("retry: name jobs (KEY or PATH) or give --state failed|rejected"),
					try: "invx retry --state failed"}
			}
			for _, s := range opts.States {
				if s != store.StateFailed && s != store.StateRejected {
					return &usageError{err: fmt.Errorf("--state %q: want failed or rejected", s), try: "invx retry --state failed"}
				}
			}
			if err := opts.Work.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return retryRun(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringSliceVar(&opts.States, "state", nil, "retry every job in this state: failed or rejected (repeatable)")
	fl.BoolVar(&opts.EnqueueOnly, "enqueue-only", false, "only queue the jobs; do not work the queue")
	addWorkFlags(fl, &opts.Work)
	return c
}

func retryRun(ctx context.Context, f *Factory, opts *RetryOptions) error {
	if !opts.EnqueueOnly {
		// Check the provider before changing anything: a missing key must
		// not leave jobs queued behind a failed command.
		if _, _, err := f.providerFor(&opts.Work.Provider); err != nil {
			return err
		}
	}
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()

	allowed := opts.States
	if len(allowed) == 0 {
		allowed = []string{store.StateFailed, store.StateRejected}
	}
	var keys []string
	for _, ref := range opts.Refs {
		job, err := findJob(ctx, st, f.Tenant, ref)
		if err != nil {
			return err
		}
		if !slices.Contains(allowed, job.State) {
			return fmt.Errorf("retry %s: job %s is %s, not %s", displayPath(ref), shortKey(job.JobKey), job.State,
				strings.Join(allowed, " or "))
		}
		if job.SourceText == "" {
			return fmt.Errorf("retry %s: the document text of job %s was pruned (invx prune), so it cannot be processed again; "+
				"close it with invx review dismiss %s --reason TEXT", displayPath(ref), shortKey(job.JobKey), shortKey(job.JobKey))
		}
		if !slices.Contains(keys, job.JobKey) {
			keys = append(keys, job.JobKey)
		}
	}
	if len(keys) == 0 {
		// Every job in the states, listed first so the outcome can be
		// reported per job; Requeue itself selects by state.
		jobs, err := st.ListJobs(ctx, &store.ListJobsParams{Tenant: f.Tenant, States: allowed})
		if err != nil {
			return err
		}
		for _, j := range jobs {
			keys = append(keys, j.JobKey)
		}
	}
	p := &store.RequeueParams{Tenant: f.Tenant, Keys: keys, Now: f.Now()}
	if len(opts.Refs) == 0 {
		p.Keys, p.States = nil, allowed
	}
	n, err := st.Requeue(ctx, p)
	if err != nil {
		return err
	}
	errOut := f.IO.ErrOut
	if len(opts.Refs) == 0 && n < len(keys) {
		// Requeue skips jobs whose text is gone: nothing could be sent.
		fmt.Fprintf(errOut, "%d job(s) not requeued: their document text was pruned (invx review dismiss KEY --reason TEXT)\n",
			len(keys)-n)
	}
	if n == 0 {
		fmt.Fprintln(errOut, "nothing to retry")
		return nil
	}
	fmt.Fprintf(errOut, "requeued %d job(s)\n", n)
	if opts.EnqueueOnly {
		return nil
	}
	out, err := workQueue(ctx, f, st, &opts.Work, keys)
	if err != nil {
		return err
	}
	if !opts.Work.Quiet || out.needsReview() > 0 {
		renderWork(errOut, out)
	}
	if k := out.unfinished(); k > 0 {
		fmt.Fprintf(errOut, "%d job(s) unfinished: run invx retry or invx run again to carry on\n", k)
	}
	if k := out.needsReview(); k > 0 {
		fmt.Fprintf(errOut, "%d job(s) still need review: invx review\n", k)
		return &needsReviewError{n: k}
	}
	return nil
}
