package cmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/invx/invx/eval"
	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// StatsOptions are the flags of invx stats.
type StatsOptions struct {
	Since      string
	AllTenants bool
	JSON       bool
	Format     string
	Prices     []string

	// Parsed by RunE.
	since  time.Duration
	prices eval.Prices
}

func newCmdStats(f *Factory, runF func(context.Context, *StatsOptions) error) *cobra.Command {
	opts := &StatsOptions{}
	c := &cobra.Command{
		Use:   "stats",
		Short: "Per-tenant figures: commits, attempts, rejections, tokens, cost, latency, queue and outbox",
		Long: `Stats prints, per tenant: the committed invoices per currency (how many
and the sum of their totals; superseded and shadow results left out),
documents seen (over all runs), commits,
rejected jobs by category, failed and held jobs, attempts and attempts per
commit, duplicates suppressed, lease recoveries, stale-lease rejections
(commits that lost the fence), input and output tokens by provider and
model, the estimated cost, the p50 and p95 time from enqueue to commit, the
age of the oldest queued job, pending outbox events and the oldest one's
age, and the share of attempts rejected by schema version and provider.

--since limits the figures to a recent window (a Go duration or a number of
days: 7d, 36h): jobs changed, attempts made, results committed and runs
started within it. The oldest queued job and the outbox figures are always
the current ones.

--price PROVIDER:MODEL=IN/OUT gives a model's price in currency units per
million input and output tokens (repeatable); the estimated cost sums the
priced models and names the unpriced ones that used tokens.

Output: a block per tenant; --json one JSON object; --format prom the
Prometheus text format for a node-exporter textfile collector (labels:
tenant, state, outcome, category, schema_version, provider, model; never a
job key or a path). Its metrics are named invx_store_* because they are
totals read from the database, unlike the per-run invx_* metrics of
invx run --metrics-file; the two may be scraped side by side. For a
collector, leave out --since so counters only grow, and write the file
atomically.`,
		Example: `  invx stats
  invx stats --since 7d --price openai:gpt-4.1-mini=0.40/1.60 --price anthropic:claude-sonnet-4-5=3/15
  invx stats --all-tenants --json | jq '.tenants[] | {tenant, attempts_per_commit}'
  invx stats --all-tenants --format prom > /var/lib/node_exporter/textfile/invx.prom.tmp &&
    mv /var/lib/node_exporter/textfile/invx.prom.tmp /var/lib/node_exporter/textfile/invx.prom`,
		Args: noArgs("stats", "", "invx stats --since 7d"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return statsRun(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Since, "since", "", "only attempts, commits and tokens within this age, such as 7d or 36h")
	fl.BoolVar(&opts.AllTenants, "all-tenants", false, "every tenant, not only --tenant")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON object (same as --format json)")
	fl.StringVar(&opts.Format, "format", "table", "output: table, json or prom (Prometheus text format)")
	fl.StringArrayVar(&opts.Prices, "price", nil, "PROVIDER:MODEL=IN/OUT price per million tokens (repeatable)")
	return c
}

func (o *StatsOptions) check() error {
	switch o.Format {
	case "table", "json", "prom":
	default:
		return &usageError{err: fmt.Errorf("--format %q: want table, json or prom", o.Format), try: "invx stats --format prom"}
	}
	if o.JSON {
		if o.Format != "table" && o.Format != "json" {
			return &usageError{err: fmt.Errorf("--json and --format %s exclude each other", o.Format), try: "invx stats --json"}
		}
		o.Format = "json"
	}
	if o.Since != "" {
		d, err := parseAge(o.Since)
		if err != nil {
			return &usageError{err: fmt.Errorf("--since %w", err), try: "invx stats --since 7d"}
		}
		o.since = d
	}
	o.prices = make(eval.Prices, 0, len(o.Prices))
	for _, s := range o.Prices {
		p, err := eval.ParsePrice(s)
		if err != nil {
			return &usageError{err: fmt.Errorf("--price %q: %w", s, err), try: "invx stats --price openai:gpt-4.1-mini=0.40/1.60"}
		}
		o.prices = append(o.prices, p)
	}
	return nil
}

// statsReport is invx stats --json.
type statsReport struct {
	GeneratedAt string         `json:"generated_at"`
	Since       string         `json:"since,omitempty"`
	Tenants     []*tenantStats `json:"tenants"`
}

// tenantStats are one tenant's figures, raw and derived.
type tenantStats struct {
	Tenant               string         `json:"tenant"`
	DocumentsSeen        int            `json:"documents_seen"`
	Committed            int            `json:"committed"`
	Rejected             int            `json:"rejected"`
	RejectedByCategory   map[string]int `json:"rejected_by_category"`
	Failed               int            `json:"failed"`
	Held                 int            `json:"held"`
	JobsByState          map[string]int `json:"jobs_by_state"`
	Attempts             int            `json:"attempts"`
	AttemptsByOutcome    map[string]int `json:"attempts_by_outcome"`
	AttemptsPerCommit    *float64       `json:"attempts_per_commit"`
	Duplicates           int            `json:"duplicates_suppressed"`
	LeaseRecoveries      int            `json:"lease_recoveries"`
	StaleLeases          int            `json:"stale_lease_rejections"`
	InputTokens          int64          `json:"input_tokens"`
	OutputTokens         int64          `json:"output_tokens"`
	Tokens               []tokenStats   `json:"tokens"`
	EstimatedCost        *float64       `json:"estimated_cost"`
	Unpriced             []string       `json:"unpriced"`
	CommitP50Seconds     float64        `json:"enqueue_to_commit_p50_seconds"`
	CommitP95Seconds     float64        `json:"enqueue_to_commit_p95_seconds"`
	OldestQueuedAt       string         `json:"oldest_queued_at,omitempty"`
	OldestQueuedSeconds  float64        `json:"oldest_queued_age_seconds"`
	OutboxPending        int            `json:"outbox_pending"`
	OldestPendingAt      string         `json:"outbox_oldest_pending_at,omitempty"`
	OldestPendingSeconds float64        `json:"outbox_oldest_pending_age_seconds"`
	OutboxFailed         int            `json:"outbox_failed"`
	// ReviewOpen counts the open review reasons by reason (incomplete,
	// possible_duplicate, arithmetic), whenever they were opened: what
	// clerks have still to look at, not a figure of the --since window.
	ReviewOpen    map[string]int `json:"review_open"`
	RejectionRate []rejectionRow `json:"rejection_rate"`
	// InvoiceTotals are the committed invoices per currency, for the
	// clerk: how many, and what they sum to.
	InvoiceTotals []currencyTotal `json:"invoice_totals"`

	p50, p95 time.Duration
}

// currencyTotal sums a tenant's committed (not superseded, not shadow)
// invoices in one currency ("" when the invoice states none).
type currencyTotal struct {
	Currency string `json:"currency"`
	Invoices int    `json:"invoices"`
	// WithoutTotal counts the invoices that state no total; they are not
	// in the sum.
	WithoutTotal int    `json:"without_total"`
	TotalMinor   int64  `json:"total_minor"`
	Total        string `json:"total"`
}

type tokenStats struct {
	Provider     string `json:"provider"`
	Model        string `json:"model"`
	Attempts     int    `json:"attempts"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	// BatchInputTokens and BatchOutputTokens are the part spent by batch
	// requests, priced at half (eval.BatchDiscount).
	BatchInputTokens  int64    `json:"batch_input_tokens"`
	BatchOutputTokens int64    `json:"batch_output_tokens"`
	EstimatedCost     *float64 `json:"estimated_cost"`
}

// rejectionRow is the share of a provider's attempts whose answer was
// rejected, for one schema version.
type rejectionRow struct {
	SchemaVersion string  `json:"schema_version"`
	Provider      string  `json:"provider"`
	Rejected      int     `json:"rejected"`
	Attempts      int     `json:"attempts"`
	Rate          float64 `json:"rate"`
}

func statsRun(ctx context.Context, f *Factory, opts *StatsOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return withTry(err, "invx --db PATH stats, with the database invx run wrote")
	}
	defer st.Close()
	now := f.Now()
	p := &store.StatsParams{Now: now}
	if !opts.AllTenants {
		p.Tenant = f.Tenant
	}
	if opts.since > 0 {
		p.Since = now.Add(-opts.since)
	}
	raw, err := st.Stats(ctx, p)
	if err != nil {
		return err
	}
	if !opts.AllTenants && len(raw) == 0 {
		// A tenant with nothing yet: its figures are zero, not absent.
		raw = []*store.TenantStats{{Tenant: f.Tenant}}
	}
	slices.SortFunc(raw, func(a, b *store.TenantStats) int { return strings.Compare(a.Tenant, b.Tenant) })
	rep := &statsReport{GeneratedAt: ts(now), Since: ts(p.Since), Tenants: make([]*tenantStats, 0, len(raw))}
	for _, r := range raw {
		rep.Tenants = append(rep.Tenants, deriveStats(r, now, opts.prices))
	}
	if err := addInvoiceTotals(ctx, st, p, rep); err != nil {
		return err
	}
	switch opts.Format {
	case "json":
		return printJSON(f.IO.Out, rep)
	case "prom":
		return writeStatsProm(f.IO.Out, rep)
	}
	if len(rep.Tenants) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no tenants yet")
		return nil
	}
	return renderStats(f.IO.Out, rep, opts, now)
}

// addInvoiceTotals sums the committed invoices of the report's tenants per
// currency, in the window. The facts are read with export's mapping of each
// schema version, so stats and export always agree; a result of a version
// export cannot read is left out of the sums.
func addInvoiceTotals(ctx context.Context, st store.Store, p *store.StatsParams, rep *statsReport) error {
	byTenant := map[string]map[string]*currencyTotal{}
	err := st.ListResults(ctx, &store.ListResultsParams{Tenant: p.Tenant, Since: p.Since}, func(r *store.ResultRow) error {
		var rec exportRecord
		if exportFacts(r.SchemaVersion, r.JSON, &rec) != nil {
			return nil
		}
		cur := deref(rec.Currency)
		if byTenant[r.Tenant] == nil {
			byTenant[r.Tenant] = map[string]*currencyTotal{}
		}
		ct := byTenant[r.Tenant][cur]
		if ct == nil {
			ct = &currencyTotal{Currency: cur}
			byTenant[r.Tenant][cur] = ct
		}
		ct.Invoices++
		if rec.TotalMinor == nil {
			ct.WithoutTotal++
		} else {
			ct.TotalMinor += *rec.TotalMinor
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range rep.Tenants {
		t.InvoiceTotals = []currencyTotal{}
		m := byTenant[t.Tenant]
		for _, cur := range slices.Sorted(maps.Keys(m)) {
			ct := *m[cur]
			ct.Total = schema.FormatMinor(ct.TotalMinor, cur)
			t.InvoiceTotals = append(t.InvoiceTotals, ct)
		}
	}
	return nil
}

// deriveStats adds rates, costs and ages to a tenant's raw figures.
func deriveStats(r *store.TenantStats, now time.Time, prices eval.Prices) *tenantStats {
	t := &tenantStats{
		Tenant: r.Tenant, DocumentsSeen: r.DocumentsSeen, Committed: r.Commits,
		Rejected: r.JobsByState[store.StateRejected], RejectedByCategory: cloneCounts(r.RejectedBy),
		Failed: r.JobsByState[store.StateFailed], Held: r.JobsByState[store.StateHeld],
		JobsByState: cloneCounts(r.JobsByState), Attempts: r.Attempts, AttemptsByOutcome: map[string]int{},
		Duplicates: r.Duplicates, LeaseRecoveries: r.LeaseRecoveries, StaleLeases: r.StaleLeases,
		Tokens: []tokenStats{}, Unpriced: []string{}, RejectionRate: []rejectionRow{},
		CommitP50Seconds: r.CommitLatencyP50.Seconds(), CommitP95Seconds: r.CommitLatencyP95.Seconds(),
		OutboxPending: r.OutboxPending, OutboxFailed: r.OutboxFailed, ReviewOpen: cloneCounts(r.ReviewOpen),
		p50: r.CommitLatencyP50, p95: r.CommitLatencyP95,
	}
	for k, n := range r.AttemptsByOutcome {
		t.AttemptsByOutcome[cmp.Or(k, "in_flight")] += n
	}
	if r.Commits > 0 {
		v := float64(r.Attempts) / float64(r.Commits)
		t.AttemptsPerCommit = &v
	}
	attemptsBy := map[string]int{} // by provider
	var cost float64
	priced := false
	for _, u := range r.Tokens {
		tu := tokenStats{Provider: u.Provider, Model: u.Model, Attempts: u.Attempts, InputTokens: u.InputTokens,
			OutputTokens: u.OutputTokens, BatchInputTokens: u.BatchInputTokens, BatchOutputTokens: u.BatchOutputTokens}
		t.InputTokens += u.InputTokens
		t.OutputTokens += u.OutputTokens
		attemptsBy[u.Provider] += u.Attempts
		if p, ok := prices.Lookup([]string{u.Provider}, u.Model); ok {
			// Batch requests cost half (--batch).
			c := p.CostWithBatch(u.InputTokens, u.OutputTokens, u.BatchInputTokens, u.BatchOutputTokens)
			tu.EstimatedCost = &c
			cost += c
			priced = true
		} else if u.InputTokens+u.OutputTokens > 0 {
			t.Unpriced = append(t.Unpriced, u.Provider+":"+u.Model)
		}
		t.Tokens = append(t.Tokens, tu)
	}
	slices.SortFunc(t.Tokens, func(a, b tokenStats) int {
		return strings.Compare(a.Provider+"\x00"+a.Model, b.Provider+"\x00"+b.Model)
	})
	slices.Sort(t.Unpriced)
	t.Unpriced = slices.Compact(t.Unpriced)
	if priced {
		t.EstimatedCost = &cost
	}
	for _, k := range slices.Sorted(maps.Keys(r.RejectedByProvider)) {
		schemaVersion, provider, _ := strings.Cut(k, "/")
		row := rejectionRow{SchemaVersion: schemaVersion, Provider: provider, Rejected: r.RejectedByProvider[k],
			Attempts: attemptsBy[provider]}
		if row.Attempts > 0 {
			row.Rate = float64(row.Rejected) / float64(row.Attempts)
		}
		t.RejectionRate = append(t.RejectionRate, row)
	}
	if !r.OldestQueued.IsZero() {
		t.OldestQueuedAt = ts(r.OldestQueued)
		t.OldestQueuedSeconds = max(now.Sub(r.OldestQueued), 0).Seconds()
	}
	if !r.OldestPending.IsZero() {
		t.OldestPendingAt = ts(r.OldestPending)
		t.OldestPendingSeconds = max(now.Sub(r.OldestPending), 0).Seconds()
	}
	return t
}

func cloneCounts(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// renderStats prints a block per tenant.
func renderStats(w io.Writer, rep *statsReport, opts *StatsOptions, now time.Time) error {
	var b strings.Builder
	line := func(label, format string, a ...any) {
		fmt.Fprintf(&b, "  %-24s %s\n", label, fmt.Sprintf(format, a...))
	}
	window := "all time"
	if rep.Since != "" {
		window = "since " + rep.Since
	}
	for i, t := range rep.Tenants {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "tenant %s (%s)\n", t.Tenant, window)
		if len(t.InvoiceTotals) == 0 {
			line("invoices", "-")
		}
		for i, ct := range t.InvoiceTotals {
			label := ""
			if i == 0 {
				label = "invoices"
			}
			v := fmt.Sprintf("%-3s %s", cmp.Or(safeCell(ct.Currency), "(no currency)"), plural(ct.Invoices, "invoice"))
			switch {
			case ct.WithoutTotal == ct.Invoices:
				v += ", no total stated"
			case ct.WithoutTotal > 0:
				v += fmt.Sprintf(", total %s (%d without a total)", ct.Total, ct.WithoutTotal)
			default:
				v += ", total " + ct.Total
			}
			line(label, "%s", v)
		}
		line("documents seen", "%d", t.DocumentsSeen)
		line("committed", "%d", t.Committed)
		if t.Rejected > 0 {
			line("rejected", "%d (%s)", t.Rejected, countsString(t.RejectedByCategory, ""))
		} else {
			line("rejected", "0")
		}
		line("failed", "%d", t.Failed)
		line("held", "%d", t.Held)
		if t.AttemptsPerCommit != nil {
			line("attempts", "%d (%.2f per commit)", t.Attempts, *t.AttemptsPerCommit)
		} else {
			line("attempts", "%d", t.Attempts)
		}
		line("duplicates suppressed", "%d", t.Duplicates)
		line("lease recoveries", "%d", t.LeaseRecoveries)
		line("stale-lease rejections", "%d", t.StaleLeases)
		line("tokens in / out", "%d / %d", t.InputTokens, t.OutputTokens)
		for _, u := range t.Tokens {
			name := cmp.Or(u.Provider, "(no provider)") + ":" + u.Model
			if u.Model == "" {
				name = cmp.Or(u.Provider, "(no provider)") + " (no model)"
			}
			usage := "no tokens"
			if u.InputTokens+u.OutputTokens > 0 {
				usage = fmt.Sprintf("%d / %d tokens, unpriced", u.InputTokens, u.OutputTokens)
				if u.EstimatedCost != nil {
					usage = fmt.Sprintf("%d / %d tokens, cost %s", u.InputTokens, u.OutputTokens, formatCost(*u.EstimatedCost))
				}
			}
			if u.BatchInputTokens+u.BatchOutputTokens > 0 {
				usage += fmt.Sprintf(" (batch %d / %d at half price)", u.BatchInputTokens, u.BatchOutputTokens)
			}
			fmt.Fprintf(&b, "    %-22s %s, %s\n", safeCell(name), plural(u.Attempts, "attempt"), usage)
		}
		switch {
		case t.EstimatedCost != nil && len(t.Unpriced) > 0:
			line("estimated cost", "%s (unpriced: %s)", formatCost(*t.EstimatedCost), safeCell(strings.Join(t.Unpriced, ", ")))
		case t.EstimatedCost != nil:
			line("estimated cost", "%s", formatCost(*t.EstimatedCost))
		case len(t.Unpriced) > 0:
			line("estimated cost", "- (unpriced: %s; add --price PROVIDER:MODEL=IN/OUT)", safeCell(strings.Join(t.Unpriced, ", ")))
		default:
			line("estimated cost", "-")
		}
		if t.Committed > 0 {
			line("enqueue to commit", "p50 %s, p95 %s", shortDuration(t.p50), shortDuration(t.p95))
		} else {
			line("enqueue to commit", "-")
		}
		if t.OldestQueuedAt != "" {
			line("oldest queued", "%s ago", shortDuration(time.Duration(t.OldestQueuedSeconds*float64(time.Second))))
		} else {
			line("oldest queued", "-")
		}
		pending := strconv.Itoa(t.OutboxPending)
		if t.OldestPendingAt != "" {
			pending += fmt.Sprintf(" (oldest %s ago)", shortDuration(time.Duration(t.OldestPendingSeconds*float64(time.Second))))
		}
		line("outbox pending", "%s, failed %d", pending, t.OutboxFailed)
		if n := sumCounts(t.ReviewOpen); n > 0 {
			line("review open", "%d (%s): invx review", n, countsString(t.ReviewOpen, ""))
		} else {
			line("review open", "0")
		}
		if len(t.RejectionRate) == 0 {
			line("rejection rate", "-")
		}
		for i, r := range t.RejectionRate {
			label := ""
			if i == 0 {
				label = "rejection rate"
			}
			line(label, "%s/%s %.1f%% (%d of %d attempts)", safeCell(r.SchemaVersion), safeCell(r.Provider),
				100*r.Rate, r.Rejected, r.Attempts)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sumCounts adds up m's counts.
func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// reviewReasonLabels are the reason label values of a tenant: every known
// reason (0 when none is open, so an alert sees the series), then any
// other the store reported, sorted.
func reviewReasonLabels(open map[string]int) []string {
	out := extract.ReviewReasons()
	for _, r := range slices.Sorted(maps.Keys(open)) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func formatCost(c float64) string { return strconv.FormatFloat(c, 'f', 4, 64) }

// shortDuration renders a duration for people: 850ms, 12.4s, 3m20s, 5h2m,
// 3d4h.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Hour:
		return strings.TrimSuffix(d.Round(time.Second).String(), "0s")
	case d < 48*time.Hour:
		return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
	default:
		days := d / (24 * time.Hour)
		return fmt.Sprintf("%dd%dh", days, (d-days*24*time.Hour)/time.Hour)
	}
}

// statsJobStates always get an invx_jobs sample, so a state's series does
// not vanish when its count drops to zero.
var statsJobStates = []string{store.StateQueued, store.StateRunning, store.StateRetryWait, store.StateSucceeded,
	store.StateRejected, store.StateFailed, store.StateHeld, store.StateDismissed}

// writeStatsProm prints the report as Prometheus text. Labels are bounded:
// tenant, state, outcome, category, schema_version, provider and model;
// never a job key or a path.
func writeStatsProm(w io.Writer, rep *statsReport) error {
	var p promText
	for _, t := range rep.Tenants {
		tl := []string{"tenant", t.Tenant}
		with := func(kv ...string) []string { return append(slices.Clone(tl), kv...) }
		p.add("invx_store_documents_seen_total", promCounter, "Documents seen by invx run, over all runs.", float64(t.DocumentsSeen), tl...)
		states := slices.Sorted(maps.Keys(t.JobsByState))
		for _, s := range statsJobStates {
			if !slices.Contains(states, s) {
				states = append(states, s)
			}
		}
		slices.Sort(states)
		for _, s := range states {
			p.add("invx_store_jobs", promGauge, "Jobs by current state.", float64(t.JobsByState[s]), with("state", s)...)
		}
		p.add("invx_store_commits_total", promCounter, "Results committed.", float64(t.Committed), tl...)
		for _, c := range slices.Sorted(maps.Keys(t.RejectedByCategory)) {
			p.add("invx_store_rejected_jobs", promGauge, "Rejected jobs by validation category.", float64(t.RejectedByCategory[c]),
				with("category", c)...)
		}
		for _, o := range slices.Sorted(maps.Keys(t.AttemptsByOutcome)) {
			p.add("invx_store_attempts_total", promCounter, "Provider attempts by outcome.", float64(t.AttemptsByOutcome[o]),
				with("outcome", o)...)
		}
		if t.AttemptsPerCommit != nil {
			p.add("invx_store_attempts_per_commit", promGauge, "Attempts per committed result.", *t.AttemptsPerCommit, tl...)
		}
		p.add("invx_store_duplicates_suppressed_total", promCounter, "Documents whose text was already known under another path.",
			float64(t.Duplicates), tl...)
		p.add("invx_store_lease_recoveries_total", promCounter, "Jobs taken over from an expired lease.", float64(t.LeaseRecoveries), tl...)
		p.add("invx_store_stale_lease_rejections_total", promCounter, "Commits refused because their lease token was stale.",
			float64(t.StaleLeases), tl...)
		for _, u := range t.Tokens {
			p.add("invx_store_input_tokens_total", promCounter, "Input tokens by provider and model.", float64(u.InputTokens),
				with("provider", u.Provider, "model", u.Model)...)
		}
		for _, u := range t.Tokens {
			p.add("invx_store_output_tokens_total", promCounter, "Output tokens by provider and model.", float64(u.OutputTokens),
				with("provider", u.Provider, "model", u.Model)...)
		}
		if t.EstimatedCost != nil {
			p.add("invx_store_estimated_cost", promGauge, "Estimated cost of the priced models' tokens, in the --price currency.",
				*t.EstimatedCost, tl...)
		}
		p.add("invx_store_enqueue_to_commit_p50_seconds", promGauge, "Median time from enqueue to commit.", t.CommitP50Seconds, tl...)
		p.add("invx_store_enqueue_to_commit_p95_seconds", promGauge, "95th percentile of the time from enqueue to commit.",
			t.CommitP95Seconds, tl...)
		p.add("invx_store_oldest_queued_age_seconds", promGauge, "Age of the oldest queued job (0: none).", t.OldestQueuedSeconds, tl...)
		p.add("invx_store_outbox_pending", promGauge, "Outbox events not delivered yet.", float64(t.OutboxPending), tl...)
		p.add("invx_store_outbox_oldest_pending_age_seconds", promGauge, "Age of the oldest pending outbox event (0: none).",
			t.OldestPendingSeconds, tl...)
		p.add("invx_store_outbox_failed", promGauge, "Outbox events parked as failed.", float64(t.OutboxFailed), tl...)
		for _, r := range reviewReasonLabels(t.ReviewOpen) {
			p.add("invx_store_review_open", promGauge, "Open review reasons by reason: results a clerk must look at before they are paid.",
				float64(t.ReviewOpen[r]), with("reason", r)...)
		}
		for _, r := range t.RejectionRate {
			p.add("invx_store_rejected_attempts_total", promCounter, "Attempts whose answer was rejected, by schema version and provider.",
				float64(r.Rejected), with("schema_version", r.SchemaVersion, "provider", r.Provider)...)
		}
		for _, r := range t.RejectionRate {
			p.add("invx_store_rejection_ratio", promGauge, "Share of a provider's attempts rejected, by schema version.",
				r.Rate, with("schema_version", r.SchemaVersion, "provider", r.Provider)...)
		}
	}
	return p.write(w)
}
