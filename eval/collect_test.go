package eval

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/store/sqlite"
)

// evalFiles runs the small fake over a suite of the given files on a real
// SQLite store and returns the provider's report.
func evalFiles(t *testing.T, files map[string]string, prices Prices) *ProviderReport {
	t.Helper()
	s, err := Load(context.Background(), writeSuite(t, files))
	if err != nil {
		t.Fatalf("load suite: %v", err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "eval.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	pr, err := Run(ctx, s, &Config{Store: st, Provider: smallFake(), Label: "fake:1", Schema: extracttest.V1(), Tenant: "t1",
		Runner: &extract.Runner{RunID: "eval-test", Owner: "eval-test", Concurrency: 1, MaxAttempts: 5, Repair: 1}, Prices: prices})
	if err != nil {
		t.Fatalf("run eval: %v", err)
	}
	return pr
}

// TestCollect covers what collect adds beyond TestRun: a text that appears
// twice in a suite is one job (called and priced once, reported twice),
// a call without a price leaves the cost unknown rather than low, and
// actions are counted per kind.
func TestCollect(t *testing.T) {
	t.Parallel()
	right := extracttest.Invoice + "Marker: right\n"
	priced := Prices{{Provider: "fake", Model: "fake-1", In: 1, Out: 10}}
	cost := func(v float64) *float64 { return &v }
	tests := []struct {
		name     string
		files    map[string]string
		prices   Prices
		attempts int
		results  int
		cost     *float64
		batch    *float64
		byKind   map[string]*KindCount
	}{
		{
			name: "a repeated text is one job",
			files: map[string]string{"a.txt": right, "a.expect.json": expectRight,
				"b.txt": right, "b.expect.json": expectRight},
			prices: priced, attempts: 1, results: 2, cost: cost(0.002), batch: cost(0.001),
			byKind: map[string]*KindCount{"verify_purchase_order": {TP: 2}},
		},
		{
			name:   "an unpriced model leaves the cost unknown",
			files:  map[string]string{"a.txt": right, "a.expect.json": expectRight},
			prices: Prices{{Provider: "fake", Model: "other", In: 1, Out: 10}}, attempts: 1, results: 1, cost: nil,
			byKind: map[string]*KindCount{"verify_purchase_order": {TP: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := evalFiles(t, tt.files, tt.prices)
			if p.Attempts != tt.attempts || len(p.Results) != tt.results || p.Committed != tt.results {
				t.Errorf("attempts %d, results %d, committed %d; want %d, %d, %d",
					p.Attempts, len(p.Results), p.Committed, tt.attempts, tt.results, tt.results)
			}
			if diff := cmp.Diff(tt.cost, p.Cost); diff != "" {
				t.Errorf("cost (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.batch, p.BatchCost); diff != "" {
				t.Errorf("cost via --batch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.byKind, p.Actions.ByKind); diff != "" {
				t.Errorf("actions by kind (-want +got):\n%s", diff)
			}
		})
	}
}
