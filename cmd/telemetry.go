package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/store"
	"github.com/invx/invx/telemetry"
)

// flushTimeout bounds how long the end of a command waits for the trace
// exporter and the Pushgateway.
const flushTimeout = 5 * time.Second

// TelemetryOptions are the flags that say where a run's metrics go.
type TelemetryOptions struct {
	MetricsFile string
	Pushgateway string
}

func addTelemetryFlags(fl *pflag.FlagSet, o *TelemetryOptions) {
	fl.StringVar(&o.MetricsFile, "metrics-file", "", "write the run's Prometheus metrics to this file at the end (textfile collector, e.g. invx.prom)")
	fl.StringVar(&o.Pushgateway, "pushgateway", "", "push the run's Prometheus metrics to this Pushgateway URL (job invx, grouped by tenant)")
}

// runTelemetry is what one run reports besides its summary: metrics in a
// registry of their own, and the run's span.
type runTelemetry struct {
	opts     TelemetryOptions
	series   telemetry.InitParams
	log      *slog.Logger
	reg      *prometheus.Registry
	metrics  *telemetry.Metrics
	tp       trace.TracerProvider
	shutdown func(context.Context) error
	span     trace.Span
	once     sync.Once
}

// startTelemetry sets up tracing (Factory.TracerProvider, or the OTEL_*
// environment), starts the span of the run and creates its metrics; series
// says which the run can touch (an empty Tenant: every tenant it meets).
// The returned context carries the span; call finish when the run is over.
func (f *Factory) startTelemetry(ctx context.Context, o TelemetryOptions, series telemetry.InitParams, name string, attrs ...attribute.KeyValue) (context.Context, *runTelemetry, error) {
	t := &runTelemetry{opts: o, series: series, log: f.Logger(), reg: prometheus.NewRegistry(), tp: f.TracerProvider,
		shutdown: func(context.Context) error { return nil }}
	t.metrics = telemetry.NewMetrics(t.reg)
	t.metrics.SetBuildInfo(versionString(), telemetry.Revision())
	if t.tp == nil {
		shutdown, err := telemetry.SetupTracing(ctx, f.Env, versionString())
		if err != nil {
			return ctx, nil, err
		}
		t.shutdown, t.tp = shutdown, otel.GetTracerProvider()
	}
	ctx, t.span = t.tp.Tracer("github.com/invx/invx/cmd").Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, t, nil
}

// tracer is the tracer the runner's attempt and provider-call spans use.
func (t *runTelemetry) tracer() trace.Tracer {
	return t.tp.Tracer("github.com/invx/invx/extract")
}

// endSpan ends the run's span with its final status (idempotent).
func (t *runTelemetry) endSpan(status string) {
	t.span.SetAttributes(attribute.String("invx.status", status))
	if status != "completed" && status != "enqueued" {
		t.span.SetStatus(codes.Error, status)
	}
	t.span.End()
}

// fullyCommitted reports whether a run finished with every document it saw
// committed: what invx_last_success_timestamp_seconds records.
func fullyCommitted(status string, sum *extract.Summary) bool {
	if status != "completed" || sum == nil {
		return false
	}
	rejected := 0
	for _, n := range sum.RejectedNow {
		rejected += n
	}
	return sum.NeedsReview() == 0 && sum.Final.Unfinished == 0 && sum.FailedNow == 0 && rejected == 0
}

// finish fills the queue gauges, starts the run's series at 0, writes and
// pushes the metrics and flushes the traces. It runs after an interrupt
// too: what the run did is still worth reporting. succeeded says the run
// committed every document (fullyCommitted).
//
// The error is a local failure (the store, --metrics-file): the run fails.
// A Pushgateway or trace collector that cannot be reached is logged as a
// warning and the run's outcome stands: monitoring being down must not fail
// a batch whose results are committed, nor make cron retry it.
func (t *runTelemetry) finish(ctx context.Context, st store.Store, tenant string, now time.Time, succeeded bool) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	var errs []error
	if t.opts.MetricsFile != "" || t.opts.Pushgateway != "" {
		if err := t.metrics.RecordQueue(ctx, st, tenant, now); err != nil {
			errs = append(errs, err)
		}
		tenants := []string{tenant}
		if tenant == "" {
			tenants = t.metrics.Tenants()
		}
		for _, tn := range tenants {
			p := t.series
			p.Tenant = tn
			t.metrics.Init(p)
		}
		if succeeded {
			t.metrics.Succeeded(now)
		} else if last, ok := telemetry.LastSuccessIn(t.opts.MetricsFile); ok && t.opts.MetricsFile != "" {
			// The file is replaced: carry the last success over, so an
			// alert on its age does not fire at the first failed run. (The
			// Pushgateway keeps it by itself: see telemetry.Push.)
			t.metrics.Succeeded(last)
		}
	}
	if t.opts.MetricsFile != "" {
		if err := telemetry.WriteTextfile(t.opts.MetricsFile, t.reg); err != nil {
			errs = append(errs, err)
		}
	}
	if t.opts.Pushgateway != "" {
		// One group per tenant, as invx run --tenant pushes: a tenant's
		// series sit in the same group whichever command worked its jobs.
		var failed []error
		tenants := t.metrics.Tenants()
		for _, tn := range tenants {
			if err := telemetry.Push(ctx, t.opts.Pushgateway, tn, t.reg); err != nil {
				failed = append(failed, err)
			}
		}
		if len(failed) > 0 {
			t.log.Warn("metrics not pushed", "stage", "telemetry", "groups_failed", len(failed),
				"groups", len(tenants), "error", failed[0].Error())
		}
	}
	if err := t.flush(ctx); err != nil {
		t.log.Warn("traces not exported", "stage", "telemetry", "error", err.Error())
	}
	return errors.Join(errs...)
}

// abandon ends the span and flushes the traces of a run that returned
// before finish (deferred; nothing once finish ran).
func (t *runTelemetry) abandon(ctx context.Context) {
	t.span.End()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	_ = t.flush(ctx) // the run's own error is the one to report
}

// flush shuts the tracer provider down once.
func (t *runTelemetry) flush(ctx context.Context) error {
	var err error
	t.once.Do(func() { err = t.shutdown(ctx) })
	return err
}

// providerStopError is the one line shown when a provider stopped a run
// (authentication or exhausted quota). It names the class, HTTP status and
// category, never the provider's message: a server may echo the request,
// and so the document, in it. The message is kept with the attempt (invx
// show).
func providerStopError(err error, provider string) error {
	err = firstLine(err)
	sentinel := extract.ErrAuth
	if !errors.Is(err, extract.ErrAuth) {
		sentinel = extract.ErrQuota
	}
	msg := sentinel.Error()
	var pe *extract.ProviderError
	if errors.As(err, &pe) {
		detail := ""
		if pe.Status != 0 {
			detail = fmt.Sprintf("HTTP %d", pe.Status)
		}
		if pe.Category != "" && pe.Category != extract.CategoryQuota {
			detail = joinNonEmpty(", ", detail, safeCategory(pe.Category))
		}
		if detail != "" {
			msg += " (" + detail + ")"
		}
		// The local providers' configuration messages name a folder or a
		// command and the versions, never document text or a secret: the
		// user needs them to act.
		if pe.Category == "config" && (provider == "replay" || provider == "command") && pe.Msg != "" {
			msg += ": " + pe.Msg
		}
	}
	if v := keyVariable(provider); v != "" && sentinel == extract.ErrAuth {
		msg += "; check " + v
	}
	return &stopError{msg: msg, err: err}
}

// stopError shows msg and matches the error it stands for (ErrAuth,
// ErrQuota) for the exit code.
type stopError struct {
	msg string
	err error
}

func (e *stopError) Error() string { return e.msg }
func (e *stopError) Unwrap() error { return e.err }

// safeCategory keeps a category that is a short identifier: some come from
// the provider's answer.
func safeCategory(c string) string {
	if len(c) > 32 {
		return ""
	}
	for _, r := range c {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return ""
		}
	}
	return c
}

func joinNonEmpty(sep string, parts ...string) string {
	out := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		if out != "" {
			out += sep
		}
		out += p
	}
	return out
}
