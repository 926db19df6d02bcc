// Package telemetry is invx's link to the outside observability world:
// Prometheus metrics for one run (extract.Metrics backed by a registry,
// written as a node-exporter textfile or pushed to a Pushgateway) and the
// OpenTelemetry tracer provider, configured only by the standard OTEL_*
// environment variables.
//
// Nothing here ever sees document text, model output or provider messages:
// labels come from small fixed sets (tenant, provider, outcome, schema
// version, category, token direction). Job keys, paths, invoice numbers and
// model names are never labels; model names stay out to keep the number of
// series bounded whatever a provider or --model says.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/invx/invx/internal/sanitize"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/protobuf/proto"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// Metrics counts what a run does. It implements extract.Metrics and is safe
// for concurrent use.
type Metrics struct {
	attempts        *prometheus.CounterVec
	commits         *prometheus.CounterVec
	rejections      *prometheus.CounterVec
	duplicates      *prometheus.CounterVec
	leaseRecoveries *prometheus.CounterVec
	staleCommits    *prometheus.CounterVec
	tokens          *prometheus.CounterVec
	skipped         *prometheus.CounterVec
	reviewOpened    *prometheus.CounterVec
	reviewOpen      *prometheus.GaugeVec
	latency         *prometheus.HistogramVec
	queueOldest     *prometheus.GaugeVec
	outboxPending   *prometheus.GaugeVec
	buildInfo       *prometheus.GaugeVec
	// lastSuccess has no labels but is a vector so that it is absent, not
	// 0, until a run succeeds: 0 would read as "last success in 1970".
	lastSuccess *prometheus.GaugeVec

	mu      sync.Mutex
	tenants map[string]bool
}

var _ extract.Metrics = (*Metrics)(nil)

// LatencyBuckets are the upper bounds, in seconds, of
// invx_provider_latency_seconds: from the offline rules provider
// (milliseconds) to a slow model call (minutes).
var LatencyBuckets = []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160}

// NewMetrics creates invx's metrics and registers them with reg. It panics
// if reg already holds metrics of the same names (as
// prometheus.MustRegister does): use one registry per Metrics.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, []string{"tenant"})
	}
	m := &Metrics{
		attempts: counter("invx_attempts_total", "Provider attempts by outcome.", "tenant", "provider", "outcome"),
		commits:  counter("invx_commits_total", "Results committed.", "tenant", "schema_version"),
		rejections: counter("invx_rejections_total", "Attempts whose answer was rejected, by validation category.",
			"tenant", "category", "schema_version", "provider"),
		duplicates: counter("invx_duplicates_suppressed_total",
			"Documents not enqueued again because their text was already known under another path.", "tenant"),
		leaseRecoveries: counter("invx_lease_recoveries_total", "Jobs taken over from an expired lease.", "tenant"),
		staleCommits:    counter("invx_stale_commits_total", "Commits refused because their lease token was stale.", "tenant"),
		tokens:          counter("invx_tokens_total", "Provider tokens by direction (input, output).", "tenant", "provider", "direction"),
		skipped: counter("invx_files_skipped_total",
			"Files discovery passed over, by reason (not_included: outside --include).", "tenant", "reason"),
		reviewOpened: counter("invx_review_opened_total",
			"Review reasons opened by commits (incomplete, possible_duplicate, arithmetic).", "tenant", "reason"),
		reviewOpen: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "invx_review_open",
			Help: "Review reasons open at the end of the run, by reason: results a clerk must look at before they are paid."},
			[]string{"tenant", "reason"}),
		// tenant is a label so that each tenant's Pushgateway group holds
		// its own calls only (invx work --all-tenants pushes one group per
		// tenant).
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "invx_provider_latency_seconds",
			Help: "Duration of provider calls.", Buckets: LatencyBuckets}, []string{"tenant", "provider"}),
		queueOldest: gauge("invx_queue_oldest_age_seconds",
			"Age of the tenant's oldest queued job at the end of the run (0: none)."),
		outboxPending: gauge("invx_outbox_pending", "Outbox events not delivered yet at the end of the run."),
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "invx_build_info",
			Help: "Always 1; the labels say which invx build ran."}, []string{"version", "revision"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "invx_last_success_timestamp_seconds",
			Help: "When a run last finished with every document committed (Unix time); absent until one does."}, nil),
		tenants: map[string]bool{},
	}
	reg.MustRegister(m.attempts, m.commits, m.rejections, m.duplicates, m.leaseRecoveries, m.staleCommits,
		m.tokens, m.skipped, m.reviewOpened, m.reviewOpen, m.latency, m.queueOldest, m.outboxPending, m.buildInfo, m.lastSuccess)
	return m
}

// SetBuildInfo sets invx_build_info{version,revision} to 1.
func (m *Metrics) SetBuildInfo(version, revision string) {
	m.buildInfo.WithLabelValues(bounded(version, "unknown"), bounded(revision, "unknown")).Set(1)
}

// Succeeded sets invx_last_success_timestamp_seconds to t. Call it only
// when a run finished with every document committed.
func (m *Metrics) Succeeded(t time.Time) {
	m.lastSuccess.WithLabelValues().Set(float64(t.UnixNano()) / 1e9)
}

// LastSuccessIn reads invx_last_success_timestamp_seconds from a metrics
// file an earlier run wrote; ok is false when there is none (no file, not
// parseable, no success recorded).
func LastSuccessIn(path string) (t time.Time, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	tp := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := tp.TextToMetricFamilies(f)
	if err != nil {
		return time.Time{}, false
	}
	mf := fams["invx_last_success_timestamp_seconds"]
	if mf == nil || len(mf.GetMetric()) != 1 || mf.GetMetric()[0].GetGauge() == nil {
		return time.Time{}, false
	}
	sec := mf.GetMetric()[0].GetGauge().GetValue()
	if sec <= 0 {
		return time.Time{}, false
	}
	return time.Unix(0, int64(sec*1e9)), true
}

// Init starts the counters a run of p can touch at 0, for every known label
// value (outcomes, rejection categories, skip reasons), so that rate() and
// increase() see a series before its first event. A tenant's first
// rejection is then an increase from 0, not a new series PromQL ignores.
func (m *Metrics) Init(p InitParams) {
	if p.Tenant == "" {
		return
	}
	m.seen(p.Tenant)
	version := bounded(p.SchemaVersion, "none")
	if p.Discovery {
		m.duplicates.WithLabelValues(p.Tenant)
		for _, r := range extract.SkipReasons() {
			m.skipped.WithLabelValues(p.Tenant, r)
		}
	}
	if !p.Work {
		return
	}
	for _, name := range append([]string{p.Provider}, p.Routes...) {
		provider := bounded(name, "none")
		for _, o := range outcomes {
			m.attempts.WithLabelValues(p.Tenant, provider, o)
		}
		for _, c := range categories() {
			m.rejections.WithLabelValues(p.Tenant, c, version, provider)
		}
		for _, d := range []string{"input", "output"} {
			m.tokens.WithLabelValues(p.Tenant, provider, d)
		}
		m.latency.WithLabelValues(p.Tenant, provider)
	}
	m.commits.WithLabelValues(p.Tenant, version)
	m.leaseRecoveries.WithLabelValues(p.Tenant)
	m.staleCommits.WithLabelValues(p.Tenant)
	for _, r := range extract.ReviewReasons() {
		m.reviewOpened.WithLabelValues(p.Tenant, r)
	}
}

// InitParams say which series a run can touch.
type InitParams struct {
	Tenant, SchemaVersion, Provider string
	// Routes are further provider labels the run's attempts can carry:
	// under --provider auto, each provider a document routes to.
	Routes []string
	// Discovery: the run walks directories (invx run): skip reasons and
	// duplicates.
	Discovery bool
	// Work: the run works the queue (not --enqueue-only): attempts,
	// commits, rejections, tokens, latency, lease counters.
	Work bool
}

// Tenants lists, sorted, the tenants the metrics hold series of.
func (m *Metrics) Tenants() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.tenants))
	for t := range m.tenants {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func (m *Metrics) seen(tenant string) {
	if tenant == "" {
		return
	}
	m.mu.Lock()
	m.tenants[tenant] = true
	m.mu.Unlock()
}

// Attempt implements extract.Metrics.
func (m *Metrics) Attempt(a extract.AttemptMetric) {
	m.seen(a.Tenant)
	provider := bounded(a.Provider, "none")
	m.attempts.WithLabelValues(a.Tenant, provider, outcomeLabel(a.Outcome)).Inc()
	if a.Outcome == store.OutcomeRejected {
		m.rejections.WithLabelValues(a.Tenant, categoryLabel(a.Category), bounded(a.SchemaVersion, "none"), provider).Inc()
	}
	if a.Provider == "" {
		// No call was made (the attempt budget was already spent).
		return
	}
	m.latency.WithLabelValues(a.Tenant, provider).Observe(a.Duration.Seconds())
	if a.InputTokens > 0 {
		m.tokens.WithLabelValues(a.Tenant, provider, "input").Add(float64(a.InputTokens))
	}
	if a.OutputTokens > 0 {
		m.tokens.WithLabelValues(a.Tenant, provider, "output").Add(float64(a.OutputTokens))
	}
}

// Committed implements extract.Metrics.
func (m *Metrics) Committed(tenant, schemaVersion string) {
	m.seen(tenant)
	m.commits.WithLabelValues(tenant, bounded(schemaVersion, "none")).Inc()
}

// Duplicates implements extract.Metrics.
func (m *Metrics) Duplicates(tenant string, n int) {
	m.seen(tenant)
	m.duplicates.WithLabelValues(tenant).Add(float64(n))
}

// LeaseRecovered implements extract.Metrics.
func (m *Metrics) LeaseRecovered(tenant string) {
	m.seen(tenant)
	m.leaseRecoveries.WithLabelValues(tenant).Inc()
}

// StaleCommit implements extract.Metrics.
func (m *Metrics) StaleCommit(tenant string) {
	m.seen(tenant)
	m.staleCommits.WithLabelValues(tenant).Inc()
}

// Skipped implements extract.Metrics.
func (m *Metrics) Skipped(tenant, reason string) {
	m.seen(tenant)
	if !slices.Contains(extract.SkipReasons(), reason) {
		reason = "other"
	}
	m.skipped.WithLabelValues(tenant, reason).Inc()
}

// ReviewOpened implements extract.Metrics.
func (m *Metrics) ReviewOpened(tenant, reason string) {
	m.seen(tenant)
	m.reviewOpened.WithLabelValues(tenant, reviewLabel(reason)).Inc()
}

// reviewLabel keeps the reason label to the known review reasons.
func reviewLabel(reason string) string {
	if slices.Contains(extract.ReviewReasons(), reason) {
		return reason
	}
	return "other"
}

// setReviewOpen sets invx_review_open of tenant: every known reason, 0
// when none is open, so an alert on it sees a series from the first run.
func (m *Metrics) setReviewOpen(tenant string, open map[string]int) {
	byLabel := map[string]int{}
	for reason, n := range open {
		byLabel[reviewLabel(reason)] += n
	}
	for _, r := range extract.ReviewReasons() {
		m.reviewOpen.WithLabelValues(tenant, r).Set(float64(byLabel[r]))
	}
	if n, ok := byLabel["other"]; ok {
		m.reviewOpen.WithLabelValues(tenant, "other").Set(float64(n))
	}
}

// RecordQueue sets the queue, outbox and review gauges from the store, for tenant
// (every tenant when empty). Call it at the end of a run; the gauges say
// what the run left behind.
func (m *Metrics) RecordQueue(ctx context.Context, st store.Store, tenant string, now time.Time) error {
	stats, err := st.Stats(ctx, &store.StatsParams{Tenant: tenant, Now: now})
	if err != nil {
		return fmt.Errorf("read queue stats: %w", err)
	}
	seen := false
	for _, s := range stats {
		// The all-tenants runs of invx work are recorded under the empty
		// tenant: it has no queue of its own, and a tenant="" series would
		// only confuse sums by tenant.
		if s.Tenant == "" || (tenant != "" && s.Tenant != tenant) {
			continue
		}
		m.seen(s.Tenant)
		seen = seen || s.Tenant == tenant
		age := 0.0
		if !s.OldestQueued.IsZero() {
			age = max(now.Sub(s.OldestQueued).Seconds(), 0)
		}
		m.queueOldest.WithLabelValues(s.Tenant).Set(age)
		m.outboxPending.WithLabelValues(s.Tenant).Set(float64(s.OutboxPending))
		m.setReviewOpen(s.Tenant, s.ReviewOpen)
	}
	if tenant != "" && !seen {
		m.seen(tenant)
		m.queueOldest.WithLabelValues(tenant).Set(0)
		m.outboxPending.WithLabelValues(tenant).Set(0)
		m.setReviewOpen(tenant, nil)
	}
	return nil
}

// WriteTextfile writes what g gathers to path in the text exposition format,
// atomically: a temporary file in the same directory, renamed over path, so
// a node-exporter textfile collector never reads half a file. Give path the
// .prom suffix the collector looks for; the temporary name does not end in
// it.
func WriteTextfile(path string, g prometheus.Gatherer) error {
	if err := prometheus.WriteToTextfile(path, g); err != nil {
		return fmt.Errorf("write metrics file %s: %w", path, err)
	}
	return nil
}

// Push sends what g gathers for tenant to the Pushgateway at gatewayURL, as
// job "invx", group tenant: the tenant's series without their tenant label
// (the group carries it) and the series that have no tenant label (build
// info, last success). Call it once per tenant the run touched.
//
// It uses POST, which replaces the metric families it sends and keeps the
// others: a run that did not succeed sends no
// invx_last_success_timestamp_seconds, so the group keeps the last
// success's (as client_golang's push example does), and invx work, which
// discovers nothing, leaves invx run's invx_files_skipped_total alone.
// Init starts every other family a run can touch, so the families it sends
// replace the previous run's entirely.
//
// User and password in the URL are sent as basic authentication and kept
// out of error messages.
func Push(ctx context.Context, gatewayURL, tenant string, g prometheus.Gatherer) error {
	u, err := url.Parse(gatewayURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("--pushgateway: want an http:// or https:// URL")
	}
	if tenant == "" {
		return errors.New("push metrics: no tenant to group them by")
	}
	var user *url.Userinfo
	user, u.User = u.User, nil
	p := push.New(u.String(), "invx").Gatherer(forTenant(g, tenant)).Grouping("tenant", tenant)
	if user != nil {
		pw, _ := user.Password()
		p = p.BasicAuth(user.Username(), pw)
	}
	if err := p.AddContext(ctx); err != nil {
		// The client quotes the gateway's answer, often an HTML page: keep
		// the error to one short line.
		return fmt.Errorf("push metrics to %s: %s", u, oneLine(err.Error(), 300))
	}
	return nil
}

// oneLine collapses whitespace and control characters and cuts s to about
// n bytes.
func oneLine(s string, n int) string { return sanitize.Line(s, n) }

// forTenant gathers g's series of one tenant with the tenant label removed,
// and the series without a tenant label, as a Pushgateway group keyed by
// tenant wants them.
func forTenant(g prometheus.Gatherer, tenant string) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		mfs, err := g.Gather()
		if err != nil {
			return nil, err
		}
		// Gathered metrics share their label slices with the collectors:
		// edit copies.
		var out []*dto.MetricFamily
		for _, mf := range mfs {
			var ms []*dto.Metric
			for _, m := range mf.Metric {
				i := slices.IndexFunc(m.Label, func(l *dto.LabelPair) bool { return l.GetName() == "tenant" })
				switch {
				case i < 0:
					ms = append(ms, m)
				case m.Label[i].GetValue() == tenant:
					c := proto.Clone(m).(*dto.Metric)
					c.Label = slices.Delete(c.Label, i, i+1)
					ms = append(ms, c)
				}
			}
			if len(ms) > 0 {
				out = append(out, &dto.MetricFamily{Name: mf.Name, Help: mf.Help, Type: mf.Type, Unit: mf.Unit, Metric: ms})
			}
		}
		return out, nil
	})
}

// outcomes are the store's attempt outcomes, the values of the outcome
// label besides "other".
var outcomes = []string{store.OutcomeSucceeded, store.OutcomeRejected, store.OutcomeRetry, store.OutcomeFailed,
	store.OutcomeStaleLease, store.OutcomeLeaseExpired, store.OutcomeReleased}

// outcomeLabel keeps the outcome label to the store's attempt outcomes.
func outcomeLabel(o string) string {
	if slices.Contains(outcomes, o) {
		return o
	}
	return "other"
}

// providerCategories are the rejection categories adapters report for an
// answer they could not use (a refusal, a truncated answer, ...), besides
// the schema's validation categories.
var providerCategories = []string{"provider", "refusal", "truncated", "content_filter", "empty"}

// categories are the known values of the category label: the schema's
// validation categories and the providers'.
func categories() []string {
	out := slices.Clone(providerCategories)
	for _, sc := range schema.Categories() {
		if !slices.Contains(out, string(sc)) {
			out = append(out, string(sc))
		}
	}
	return out
}

// categoryLabel keeps the category label to a known set: a provider that
// invents categories cannot grow the number of series.
func categoryLabel(c string) string {
	if slices.Contains(categories(), c) {
		return c
	}
	return "other"
}

// bounded returns s, or def when s is empty. Values are short identifiers
// chosen by invx (provider names, schema versions), never input.
func bounded(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
