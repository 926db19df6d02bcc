package driver_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// tenant is the empty figures of one tenant, as StatsBuilder starts them.
func tenant(name string) *store.TenantStats {
	return &store.TenantStats{Tenant: name, JobsByState: map[string]int{}, RejectedBy: map[string]int{},
		RejectedByProvider: map[string]int{}, AttemptsByOutcome: map[string]int{}}
}

// with returns ts after fn changed it.
func with(ts *store.TenantStats, fn func(*store.TenantStats)) *store.TenantStats {
	fn(ts)
	return ts
}

func TestStatsBuilder(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		feed func(b *driver.StatsBuilder)
		want []*store.TenantStats
	}{
		{
			name: "nothing",
			feed: func(*driver.StatsBuilder) {},
			want: []*store.TenantStats{},
		},
		{
			name: "jobs by state, rejected by category, recoveries",
			feed: func(b *driver.StatsBuilder) {
				b.AddJobs("acme", store.StateSucceeded, "", 3, 1)
				b.AddJobs("acme", store.StateRejected, "schema", 2, 0)
				b.AddJobs("acme", store.StateRejected, "", 1, 2)
				b.AddJobs("acme", store.StateRejected, "schema", 4, 0)
				b.AddJobs("acme", store.StateFailed, "timeout", 5, 0)
			},
			want: []*store.TenantStats{with(tenant("acme"), func(ts *store.TenantStats) {
				ts.JobsByState = map[string]int{store.StateSucceeded: 3, store.StateRejected: 7, store.StateFailed: 5}
				ts.RejectedBy = map[string]int{"schema": 6, "unknown": 1}
				ts.LeaseRecoveries = 3
			})},
		},
		{
			name: "attempts by outcome, stale leases, rejections by provider, tokens sorted",
			feed: func(b *driver.StatsBuilder) {
				b.AddAttempts("acme", store.OutcomeSucceeded, "openai", "gpt", "v1", 4, 100, 10)
				b.AddAttempts("acme", store.OutcomeRejected, "openai", "gpt", "v1", 1, 20, 2)
				b.AddAttempts("acme", store.OutcomeRejected, "", "", "v2", 2, 0, 0)
				b.AddAttempts("acme", store.OutcomeStaleLease, "anthropic", "claude", "v1", 1, 5, 1)
				b.AddAttempts("acme", "", "anthropic", "claude", "v1", 1, 0, 0)
				b.AddAttempts("acme", store.OutcomeSucceeded, "anthropic", "a-model", "v1", 1, 7, 3)
			},
			want: []*store.TenantStats{with(tenant("acme"), func(ts *store.TenantStats) {
				ts.Attempts = 10
				ts.AttemptsByOutcome = map[string]int{store.OutcomeSucceeded: 5, store.OutcomeRejected: 3,
					store.OutcomeStaleLease: 1, "in_flight": 1}
				ts.StaleLeases = 1
				ts.RejectedByProvider = map[string]int{"v1/openai": 1, "v2/unknown": 2}
				ts.Tokens = []store.TokenUsage{
					{Provider: "", Model: "", Attempts: 2},
					{Provider: "anthropic", Model: "a-model", Attempts: 1, InputTokens: 7, OutputTokens: 3},
					{Provider: "anthropic", Model: "claude", Attempts: 2, InputTokens: 5, OutputTokens: 1},
					{Provider: "openai", Model: "gpt", Attempts: 5, InputTokens: 120, OutputTokens: 12},
				}
			})},
		},
		{
			name: "commit latency percentiles from unsorted rows",
			feed: func(b *driver.StatsBuilder) {
				for _, ms := range []int64{900, 100, 500, 300, 700, 200, 800, 400, 1000, 600, 0} {
					b.AddCommit("acme", ms)
				}
				b.AddCommit("solo", 42)
			},
			want: []*store.TenantStats{
				with(tenant("acme"), func(ts *store.TenantStats) {
					ts.Commits = 11
					ts.CommitLatencyP50 = 500 * time.Millisecond
					ts.CommitLatencyP95 = 1000 * time.Millisecond
				}),
				with(tenant("solo"), func(ts *store.TenantStats) {
					ts.Commits = 1
					ts.CommitLatencyP50 = 42 * time.Millisecond
					ts.CommitLatencyP95 = 42 * time.Millisecond
				}),
			},
		},
		{
			name: "run summaries and sums",
			feed: func(b *driver.StatsBuilder) {
				if err := b.AddRunSummary("acme", []byte(`{"files_seen": 10, "duplicates_suppressed": 2, "other": true}`)); err != nil {
					t.Errorf("AddRunSummary: %v", err)
				}
				if err := b.AddRunSummary("acme", []byte(`{"files_seen": 5}`)); err != nil {
					t.Errorf("AddRunSummary: %v", err)
				}
				b.AddRuns("acme", 1, 1)
			},
			want: []*store.TenantStats{with(tenant("acme"), func(ts *store.TenantStats) {
				ts.DocumentsSeen, ts.Duplicates = 16, 3
			})},
		},
		{
			name: "run summary that does not decode adds nothing, not even the tenant",
			feed: func(b *driver.StatsBuilder) {
				for _, body := range []string{`not json`, `{"files_seen": 1.5}`, `{"files_seen": "3"}`} {
					if err := b.AddRunSummary("broken", []byte(body)); err == nil {
						t.Errorf("AddRunSummary(%s): no error", body)
					}
				}
			},
			want: []*store.TenantStats{},
		},
		{
			name: "oldest queued and outbox",
			feed: func(b *driver.StatsBuilder) {
				b.SetOldestQueued("acme", at)
				b.SetOutbox("acme", store.OutboxPending, 3, at.Add(time.Hour))
				b.SetOutbox("acme", store.OutboxFailed, 2, at.Add(2*time.Hour))
				b.SetOutbox("beta", store.OutboxFailed, 1, time.Time{})
			},
			want: []*store.TenantStats{
				with(tenant("acme"), func(ts *store.TenantStats) {
					ts.OldestQueued = at
					ts.OutboxPending, ts.OldestPending, ts.OutboxFailed = 3, at.Add(time.Hour), 2
				}),
				with(tenant("beta"), func(ts *store.TenantStats) { ts.OutboxFailed = 1 }),
			},
		},
		{
			name: "tenants sorted, only those with attempts have tokens",
			feed: func(b *driver.StatsBuilder) {
				b.AddJobs("zeta", store.StateQueued, "", 1, 0)
				b.AddAttempts("beta", store.OutcomeSucceeded, "openai", "gpt", "v1", 1, 1, 1)
				b.AddCommit("alpha", 10)
			},
			want: []*store.TenantStats{
				with(tenant("alpha"), func(ts *store.TenantStats) {
					ts.Commits = 1
					ts.CommitLatencyP50, ts.CommitLatencyP95 = 10*time.Millisecond, 10*time.Millisecond
				}),
				with(tenant("beta"), func(ts *store.TenantStats) {
					ts.Attempts = 1
					ts.AttemptsByOutcome = map[string]int{store.OutcomeSucceeded: 1}
					ts.Tokens = []store.TokenUsage{{Provider: "openai", Model: "gpt", Attempts: 1, InputTokens: 1, OutputTokens: 1}}
				}),
				with(tenant("zeta"), func(ts *store.TenantStats) { ts.JobsByState = map[string]int{store.StateQueued: 1} }),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b driver.StatsBuilder
			tt.feed(&b)
			got := b.Build()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Build() (-want +got):\n%s", diff)
			}
			// Build twice gives the same figures (tokens not appended again).
			if diff := cmp.Diff(tt.want, b.Build()); diff != "" {
				t.Errorf("second Build() (-want +got):\n%s", diff)
			}
		})
	}
}
