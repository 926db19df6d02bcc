package driver

import (
	"cmp"
	"context"
	"fmt"

	"github.com/invx/invx/store"

	"encoding/json"
	"sort"
	"time"
)

// StatsBuilder sums the rows of a driver's Stats queries into store.TenantStats.
// Drivers run their own SQL and hand each row to the matching Add or Set
// method, so every driver derives the same figures from the same rows. The
// zero value is ready to use; rows may come in any order; Build comes last.
type StatsBuilder struct {
	by      map[string]*store.TenantStats
	tokens  map[string]map[[2]string]*store.TokenUsage // tenant -> (provider, model)
	latency map[string][]int64                         // tenant -> enqueue-to-commit, ms
}

// get returns the tenant's figures, creating them on first use.
func (b *StatsBuilder) get(tenant string) *store.TenantStats {
	if b.by == nil {
		b.by = map[string]*store.TenantStats{}
	}
	ts, ok := b.by[tenant]
	if !ok {
		ts = &store.TenantStats{Tenant: tenant, JobsByState: map[string]int{}, RejectedBy: map[string]int{},
			RejectedByProvider: map[string]int{}, AttemptsByOutcome: map[string]int{}}
		b.by[tenant] = ts
	}
	return ts
}

// AddJobs counts n jobs of a tenant in state, with recoveries lease
// recoveries between them. Rejected jobs are also counted by category
// ("unknown" when empty).
func (b *StatsBuilder) AddJobs(tenant, state, category string, n, recoveries int) {
	ts := b.get(tenant)
	ts.JobsByState[state] += n
	ts.LeaseRecoveries += recoveries
	if state == store.StateRejected {
		ts.RejectedBy[cmp.Or(category, "unknown")] += n
	}
}

// AddAttempts counts n attempts of a tenant with one outcome ("in_flight"
// when empty), provider, model and job schema version, and the tokens they
// used. Stale-lease attempts also count as stale leases; rejected ones also
// count by "schemaVersion/provider" (provider "unknown" when empty).
func (b *StatsBuilder) AddAttempts(tenant, outcome, provider, model, schemaVersion string, n int, in, out int64) {
	ts := b.get(tenant)
	ts.Attempts += n
	ts.AttemptsByOutcome[cmp.Or(outcome, "in_flight")] += n
	switch outcome {
	case store.OutcomeStaleLease:
		ts.StaleLeases += n
	case store.OutcomeRejected:
		ts.RejectedByProvider[schemaVersion+"/"+cmp.Or(provider, "unknown")] += n
	}
	u := b.usage(tenant, provider, model)
	u.Attempts += n
	u.InputTokens += in
	u.OutputTokens += out
}

// usage is a tenant's token usage of one provider and model, created on
// first use.
func (b *StatsBuilder) usage(tenant, provider, model string) *store.TokenUsage {
	if b.tokens == nil {
		b.tokens = map[string]map[[2]string]*store.TokenUsage{}
	}
	if b.tokens[tenant] == nil {
		b.tokens[tenant] = map[[2]string]*store.TokenUsage{}
	}
	k := [2]string{provider, model}
	u := b.tokens[tenant][k]
	if u == nil {
		u = &store.TokenUsage{Provider: provider, Model: model}
		b.tokens[tenant][k] = u
	}
	return u
}

// AddBatchTokens adds the tokens of a tenant's batch attempts with one
// provider and model (also counted in AddAttempts), so each model's batch
// part is priced at the discount.
func (b *StatsBuilder) AddBatchTokens(tenant, provider, model string, in, out int64) {
	ts := b.get(tenant)
	ts.BatchInputTokens += in
	ts.BatchOutputTokens += out
	u := b.usage(tenant, provider, model)
	u.BatchInputTokens += in
	u.BatchOutputTokens += out
}

// AddCommit counts one committed (not shadow) result of a tenant, latencyMS
// milliseconds after its job was enqueued.
func (b *StatsBuilder) AddCommit(tenant string, latencyMS int64) {
	b.get(tenant).Commits++
	if b.latency == nil {
		b.latency = map[string][]int64{}
	}
	b.latency[tenant] = append(b.latency[tenant], latencyMS)
}

// AddRuns adds documents seen and duplicates suppressed, as summed from the
// summaries of a tenant's runs.
func (b *StatsBuilder) AddRuns(tenant string, filesSeen, duplicates int) {
	ts := b.get(tenant)
	ts.DocumentsSeen += filesSeen
	ts.Duplicates += duplicates
}

// AddRunSummary adds the files_seen and duplicates_suppressed of one run's
// JSON summary, as AddRuns does. A summary that does not decode adds
// nothing, not even the tenant, and its decoding error is returned.
func (b *StatsBuilder) AddRunSummary(tenant string, summary []byte) error {
	var sum struct {
		FilesSeen  int `json:"files_seen"`
		Duplicates int `json:"duplicates_suppressed"`
	}
	if err := json.Unmarshal(summary, &sum); err != nil {
		return err
	}
	b.AddRuns(tenant, sum.FilesSeen, sum.Duplicates)
	return nil
}

// SetOldestQueued records when a tenant's oldest queued (or retry-waiting)
// job was created; the zero time means none.
func (b *StatsBuilder) SetOldestQueued(tenant string, at time.Time) {
	b.get(tenant).OldestQueued = at
}

// SetOutbox records a tenant's n outbox events in state: pending (with the
// oldest one's creation time) or failed. oldest is ignored for failed.
func (b *StatsBuilder) SetOutbox(tenant, state string, n int, oldest time.Time) {
	ts := b.get(tenant)
	if state == store.OutboxPending {
		ts.OutboxPending, ts.OldestPending = n, oldest
	} else {
		ts.OutboxFailed = n
	}
}

// AddReviewOpen counts n open review reasons of a tenant with reason.
func (b *StatsBuilder) AddReviewOpen(tenant, reason string, n int) {
	ts := b.get(tenant)
	if ts.ReviewOpen == nil {
		ts.ReviewOpen = map[string]int{}
	}
	ts.ReviewOpen[reason] += n
}

// Build returns the figures of every tenant seen, sorted by tenant: token
// usage sorted by provider then model, and the 50th and 95th percentile of
// commit latency. A tenant without attempts has nil Tokens; one without
// commits has zero latencies.
func (b *StatsBuilder) Build() []*store.TenantStats {
	for t, m := range b.tokens {
		ts := b.get(t)
		ts.Tokens = make([]store.TokenUsage, 0, len(m))
		for _, u := range m {
			ts.Tokens = append(ts.Tokens, *u)
		}
		sort.Slice(ts.Tokens, func(i, j int) bool {
			a, b := ts.Tokens[i], ts.Tokens[j]
			return a.Provider+"\x00"+a.Model < b.Provider+"\x00"+b.Model
		})
	}
	for t, ds := range b.latency {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		ts := b.get(t)
		ts.CommitLatencyP50 = time.Duration(percentile(ds, 0.50)) * time.Millisecond
		ts.CommitLatencyP95 = time.Duration(percentile(ds, 0.95)) * time.Millisecond
	}
	out := make([]*store.TenantStats, 0, len(b.by))
	for _, ts := range b.by {
		out = append(out, ts)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tenant < out[j].Tenant })
	return out
}

// percentile is the q-th quantile (0 to 1) of sorted values: the value at
// index q*(len-1), rounded half up; 0 for no values.
func percentile(sorted []int64, q float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)-1) + 0.5)
	return sorted[min(i, len(sorted)-1)]
}

// StatsSteps are a driver's queries of one Stats call, one per figure, each
// feeding the driver's StatsBuilder.
type StatsSteps struct {
	Jobs, Attempts, Results, Runs, Queue, Outbox func(context.Context) error
	// Review counts open review reasons; nil for a driver without them.
	Review func(context.Context) error
	// Batch sums the tokens of batch attempts; nil for a driver without
	// them.
	Batch func(context.Context) error
}

// RunStats runs the steps in a fixed order, naming the step that failed.
func RunStats(ctx context.Context, s StatsSteps) error {
	for _, step := range []struct {
		name string
		run  func(context.Context) error
	}{
		{"jobs", s.Jobs}, {"attempts", s.Attempts}, {"results", s.Results},
		{"runs", s.Runs}, {"queue", s.Queue}, {"outbox", s.Outbox}, {"review", s.Review}, {"batch", s.Batch},
	} {
		if step.run == nil {
			continue
		}
		if err := step.run(ctx); err != nil {
			return fmt.Errorf("stats %s: %w", step.name, err)
		}
	}
	return nil
}
