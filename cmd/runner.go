package cmd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
	"github.com/invx/invx/telemetry"
	"github.com/schollz/progressbar/v3"
)

// Defaults shared by every command that works the queue, so that invx run,
// work, retry, review accept and eval lease and back off alike.
const (
	defaultLease       = time.Minute
	defaultMaxBackoff  = time.Minute
	defaultMaxAttempts = 5
	defaultConcurrency = 4
	// defaultDBRetry and defaultMaxUnreachable: --db-retry and
	// --max-unreachable.
	defaultDBRetry        = time.Minute
	defaultMaxUnreachable = 5
)

// runnerOptions are the settings of one delivery that works the queue,
// whichever command starts it. Each command maps its flags to them in one
// place (its runnerOptions method); newRunner is the only code that turns
// them into an extract.Runner, so the commands cannot drift apart.
type runnerOptions struct {
	// Command is the delivery's kind as the runs table records it: work for
	// invx work, run for everything else (run, retry, review accept, eval).
	Command  string
	Provider extract.Provider
	// ProviderOpts are the provider flags: the call timeout and the model
	// name derive from them.
	ProviderOpts  *ProviderOptions
	Schema        *schema.Version
	Tenant        string
	Concurrency   int
	MaxAttempts   int
	MaxRecoveries int
	Repair        int
	MaxBackoff    time.Duration
	TokenBudget   int64
	Lease         time.Duration
	Shadow        bool
	// OnlySchema: see extract.Runner (invx work --schema).
	OnlySchema   string
	OnChange     store.OnChange
	SourceSystem string
	// Wait and MaxPerTenant: see extract.Runner (invx work).
	Wait         bool
	MaxPerTenant int
	// DBRetry and MaxUnreachable: see extract.Runner.
	DBRetry        time.Duration
	MaxUnreachable int
	// Require: see extract.Runner (invx run/work --require).
	Require []string
}

// newRunner builds the runner of one delivery. Liveness (dead local owners'
// leases are reaped), the store's clock for PostgreSQL leases and the
// lease, backoff and recovery bounds are set here for every command; tel
// may be nil (no metrics, the global tracer).
func newRunner(f *Factory, st store.Store, o *runnerOptions, tel *runTelemetry) *extract.Runner {
	runID := newRunID()
	r := &extract.Runner{
		Store: st, Provider: o.Provider, Schema: o.Schema, Tenant: o.Tenant, RunID: runID,
		Owner: extract.LocalOwner(runID), Command: o.Command, Concurrency: o.Concurrency, OnChange: o.OnChange,
		LeaseFor: o.Lease, MaxAttempts: o.MaxAttempts, MaxRecoveries: o.MaxRecoveries, Repair: o.Repair,
		MaxBackoff: o.MaxBackoff, TokenBudget: o.TokenBudget, Shadow: o.Shadow, OnlySchema: o.OnlySchema, SourceSystem: o.SourceSystem,
		Wait: o.Wait, MaxPerTenant: o.MaxPerTenant, DBRetry: o.DBRetry, MaxUnreachable: o.MaxUnreachable, Require: o.Require,
		NowFunc: f.Now, AliveFunc: extract.LocalOwnerAlive, Logger: f.Logger(),
		// With PostgreSQL every host leases by the database's time, so a
		// host whose clock is behind cannot shorten a lease.
		StoreClock: st.Driver() == "postgres",
	}
	if o.ProviderOpts != nil {
		r.CallTimeout, r.Model = callTimeout(o.ProviderOpts), o.ProviderOpts.Model
	}
	if tel != nil {
		r.Metrics, r.Tracer = tel.metrics, tel.tracer()
	}
	return r
}

// resolveRepair is the repair budget: the flag, or the provider's default
// when the flag is -1.
func resolveRepair(flag, providerDefault int) int {
	if flag < 0 {
		return providerDefault
	}
	return flag
}

// delivery is one run of the runner as a command sees it: begun, worked,
// finished and measured.
type delivery struct {
	f       *Factory
	st      store.Store
	r       *extract.Runner
	tel     *runTelemetry
	started time.Time
	// batch, when set, sends the work through a provider's batch API.
	batch *batchSetup
}

// startDelivery starts the run's telemetry, builds its runner and records
// the run. Call abandon when done (it is a no-op after finish).
func startDelivery(ctx context.Context, f *Factory, st store.Store, o *runnerOptions, to TelemetryOptions,
	series telemetry.InitParams) (context.Context, *delivery, error) {
	// The run id is the runner's: make the runner first, then the span.
	r := newRunner(f, st, o, nil)
	attrs := []attribute.KeyValue{attribute.String("invx.tenant", o.Tenant), attribute.String("invx.run_id", r.RunID),
		attribute.String("invx.provider", o.Provider.Name())}
	if series.Discovery {
		attrs = append(attrs, attribute.String("invx.schema_version", o.Schema.Name))
	}
	ctx, tel, err := f.startTelemetry(ctx, to, series, "invx."+o.Command, attrs...)
	if err != nil {
		return ctx, nil, err
	}
	r.Metrics, r.Tracer = tel.metrics, tel.tracer()
	d := &delivery{f: f, st: st, r: r, tel: tel, started: f.Now()}
	if err := r.Begin(ctx); err != nil {
		tel.abandon(ctx)
		return ctx, nil, err
	}
	return ctx, d, nil
}

// abandon ends the telemetry of a delivery that did not finish.
func (d *delivery) abandon(ctx context.Context) { d.tel.abandon(ctx) }

// work works the queue, with a progress bar when bar is set and the
// queue is not empty.
func (d *delivery) work(ctx context.Context, bar bool) error {
	if d.batch != nil {
		return d.workBatch(ctx, bar)
	}
	defer d.startBar(ctx, bar)()
	return d.r.Work(ctx)
}

// startBar shows a progress bar of the jobs to work when bar is set: the
// jobs pending now, plus those an enqueue running beside Work adds
// (EventEnqueued). The bar appears with the first job to work. It returns
// the function that finishes the bar.
func (d *delivery) startBar(ctx context.Context, bar bool) func() {
	if !bar {
		return func() {}
	}
	total := 0
	if p, err := d.st.Pending(ctx, &store.PendingParams{Tenant: d.r.Tenant, SchemaVersion: d.r.OnlySchema}); err == nil {
		total = p.Total()
	}
	var mu sync.Mutex
	var b *progressbar.ProgressBar
	grow := func(n int) {
		switch {
		case n <= 0:
		case b == nil:
			total += n
			b = newBar(d.f.IO.ErrOut, total)
		default:
			total += n
			b.ChangeMax(total)
		}
	}
	if total > 0 {
		b = newBar(d.f.IO.ErrOut, total)
	}
	d.r.ProgressFunc = func(e extract.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case extract.EventEnqueued:
			grow(e.N)
		case extract.EventJobDone:
			if b != nil {
				_ = b.Add(1)
			}
		}
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if b != nil {
			_ = b.Finish()
			fmt.Fprintln(d.f.IO.ErrOut)
		}
	}
}

// finish records the run with its final status and ends its telemetry.
// The summary may come with a store error (ferr); a telemetry error (terr)
// is only reported, after the summary.
func (d *delivery) finish(ctx context.Context, status string) (sum *extract.Summary, ferr, terr error) {
	sum, ferr = d.r.Finish(ctx, d.started, status)
	d.tel.endSpan(status)
	terr = d.tel.finish(ctx, d.st, d.r.Tenant, d.f.Now(), fullyCommitted(status, sum))
	return sum, ferr, terr
}

// workStopError maps why Work stopped to what the command returns (and so
// to its exit code); nil when the work ran to its end.
func workStopError(ctx context.Context, f *Factory, o *runnerOptions, workErr error) error {
	switch {
	case workErr != nil && (errors.Is(workErr, extract.ErrAuth) || errors.Is(workErr, extract.ErrQuota)):
		// The class and status only: provider messages may echo input.
		return providerStopError(workErr, o.ProviderOpts.Name)
	case workErr != nil && errors.Is(workErr, extract.ErrUnreachable):
		return unreachableStopError(f, o.ProviderOpts, o.MaxUnreachable, workErr)
	case workErr != nil && !errors.Is(workErr, context.Canceled):
		return workErr
	case ctx.Err() != nil:
		return interruptedError{}
	}
	return nil
}
