package eval

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// report builds a one-provider report with the given admission and field
// accuracies (right out of 100).
func report(label string, committed int, right map[string]int) *Report {
	p := &ProviderReport{Label: label, Documents: 100, Committed: committed, Admission: float64(committed) / 100,
		Accuracy: map[string]*FieldScore{}, Actions: &ActionScore{}}
	for f, n := range right {
		p.Accuracy[f] = &FieldScore{Right: n, Scored: 100, Accuracy: ratio(n, 100)}
	}
	return &Report{Providers: []*ProviderReport{p}}
}

// wrongReport has total_minor right on 90 of 100 documents and wrong (a
// value, not a null) on n.
func wrongReport(n int) *Report {
	r := report("llm", 100, map[string]int{"total_minor": 90})
	fs := r.Providers[0].Accuracy["total_minor"]
	fs.Wrong, fs.WrongRate = n, ratio(n, 100)
	return r
}

func TestGates(t *testing.T) {
	t.Parallel()
	floor := 0.95
	base := report("llm", 99, map[string]int{"total_minor": 98, "invoice_number": 97})
	tests := []struct {
		name  string
		gates Gates
		rep   *Report
		want  []string
		notes int
	}{
		{"all pass at the threshold", Gates{MinAdmission: &floor, MinAccuracy: map[string]float64{"total_minor": 0.95}},
			report("llm", 95, map[string]int{"total_minor": 95}), nil, 0},
		{"admission below", Gates{MinAdmission: &floor},
			report("llm", 94, nil), []string{"llm: admission 94.0% (94/100) is below --min-admission 95.0%"}, 0},
		{"field below", Gates{MinAccuracy: map[string]float64{"total_minor": 0.98, "invoice_number": 0.9}},
			report("llm", 100, map[string]int{"total_minor": 97, "invoice_number": 90}),
			[]string{"llm: total_minor accuracy 97.0% (97/100) is below --min-accuracy 98.0%"}, 0},
		{"field never scored", Gates{MinAccuracy: map[string]float64{"due_date": 0.5}},
			report("llm", 100, nil), []string{"llm: due_date accuracy cannot be gated: no document of the suite scores it"}, 0},
		{"regression within the margin", Gates{Baseline: base, BaselineName: "base.json", MaxRegression: 0.02},
			report("llm", 97, map[string]int{"total_minor": 96, "invoice_number": 97}), nil, 0},
		{"regression beyond the margin", Gates{Baseline: base, BaselineName: "base.json", MaxRegression: 0.02},
			report("llm", 99, map[string]int{"total_minor": 95, "invoice_number": 99}),
			[]string{"llm: total_minor accuracy fell from 98.0% to 95.0% (base.json), more than --max-regression 2.0%"}, 0},
		{"confidently wrong at the ceiling passes", Gates{MaxWrong: map[string]float64{"total_minor": 0.03}},
			wrongReport(3), nil, 0},
		{"confidently wrong above the ceiling", Gates{MaxWrong: map[string]float64{"total_minor": 0.03}},
			wrongReport(4), []string{"llm: total_minor is confidently wrong on 4.0% (4/100), above --max-wrong 3.0%"}, 0},
		{"wrong rate of a field never scored", Gates{MaxWrong: map[string]float64{"due_date": 0.03}},
			report("llm", 100, nil), []string{"llm: due_date wrong rate cannot be gated: no document of the suite scores it"}, 0},
		{"single providers compared across labels", Gates{Baseline: base, MaxRegression: 0},
			report("other", 98, nil), []string{"other: admission fell from 99.0% to 98.0% (the baseline), more than --max-regression 0.0%"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := tc.gates.Check(tc.rep)
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, res.Failures); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if res.Passed != (len(want) == 0) {
				t.Errorf("passed = %v", res.Passed)
			}
			if len(res.Notes) != tc.notes {
				t.Errorf("notes = %q, want %d", res.Notes, tc.notes)
			}
		})
	}
}

func TestParseMinAccuracy(t *testing.T) {
	t.Parallel()
	m := map[string]float64{}
	if err := ParseMinAccuracy("total_minor=0.98, invoice_number=0.95", m); err != nil {
		t.Fatal(err)
	}
	if err := ParseMinAccuracy("due_date=1", m); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]float64{"total_minor": 0.98, "invoice_number": 0.95, "due_date": 1}, m); diff != "" {
		t.Error(diff)
	}
	for _, bad := range []string{"total=0.9", "total_minor", "total_minor=95", "total_minor=x"} {
		if err := ParseMinAccuracy(bad, map[string]float64{}); err == nil {
			t.Errorf("%q: no error", bad)
		} else if !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: error %q does not quote it", bad, err)
		}
	}
}

func TestParsePrice(t *testing.T) {
	t.Parallel()
	p, err := ParsePrice("openai:gpt-4o-mini=0.15/0.60")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Price{Provider: "openai", Model: "gpt-4o-mini", In: 0.15, Out: 0.6}, p); diff != "" {
		t.Error(diff)
	}
	if got := p.Cost(1_000_000, 500_000); got != 0.45 {
		t.Errorf("cost = %v, want 0.45", got)
	}
	ps := Prices{{Provider: "*", Model: "*", In: 1}, {Provider: "openai", Model: "*", In: 2}, {Provider: "*", Model: "m", In: 3}}
	for _, tc := range []struct {
		names []string
		model string
		in    float64
	}{{[]string{"openai"}, "x", 2}, {[]string{"openai"}, "m", 3}, {[]string{"ollama"}, "x", 1}} {
		if got, ok := ps.Lookup(tc.names, tc.model); !ok || got.In != tc.in {
			t.Errorf("Lookup(%v, %s) = %v, %v; want in %v", tc.names, tc.model, got, ok, tc.in)
		}
	}
	// A model name may hold colons; the prices follow the last "=".
	if p, err := ParsePrice("ollama:llama3.1:8b=0/ 0"); err != nil || p.Provider != "ollama" || p.Model != "llama3.1:8b" {
		t.Errorf("ParsePrice(ollama:llama3.1:8b=0/ 0) = %+v, %v", p, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"openai=1/2", "want PROVIDER:MODEL=IN/OUT, prices per million tokens"},
		{":m=1/2", "want PROVIDER:MODEL=IN/OUT, prices per million tokens"},
		{"openai:m=1", "want IN/OUT after =, such as 0.40/1.60"},
		{"openai:m=-1/2", `"-1" is not a price (a non-negative number)`},
		{"openai:m=a/b", `"a" is not a price (a non-negative number)`},
		{"openai:m=1/NaN", `"NaN" is not a price (a non-negative number)`},
		{"openai:m=1/2e9", `"2e9" is not a price (a non-negative number)`},
	} {
		if _, err := ParsePrice(tc.in); err == nil || err.Error() != tc.want {
			t.Errorf("ParsePrice(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestGatesPerSchemaVersion(t *testing.T) {
	t.Parallel()
	v2 := func(right map[string]int) *Report {
		t.Helper()
		r := report("llm", 100, right)
		r.SchemaVersion, r.Fields = "invoice-v2", FieldsV2
		return r
	}
	tests := []struct {
		name  string
		gates Gates
		rep   *Report
		want  []string
	}{
		{"a v2 field gated on a v2 report", Gates{MinAccuracy: map[string]float64{"net_minor": 0.9}},
			v2(map[string]int{"net_minor": 80}), []string{"llm: net_minor accuracy 80.0% (80/100) is below --min-accuracy 90.0%"}},
		{"a v2 field gated on a v1 report", Gates{MinAccuracy: map[string]float64{"net_minor": 0.9}},
			report("llm", 100, map[string]int{"net_minor": 100}), []string{"--min-accuracy net_minor: schema invoice-summary-v1 does not score net_minor"}},
		{"a v1 baseline for a v2 report", Gates{Baseline: report("llm", 100, nil), BaselineName: "v1.json"},
			v2(nil), []string{"v1.json is a report of schema invoice-summary-v1, this one of invoice-v2: not comparable"}},
		{"a v2 baseline gates v2-only fields", Gates{Baseline: v2(map[string]int{"line_count": 90}), BaselineName: "v2.json"},
			v2(map[string]int{"line_count": 80}), []string{"llm: line_count accuracy fell from 90.0% to 80.0% (v2.json), more than --max-regression 0.0%"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := tc.gates.Check(tc.rep)
			if diff := cmp.Diff(tc.want, res.Failures); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
	m := map[string]float64{}
	if err := ParseMinAccuracyFor("invoice-v2", "line_sum_minor=0.9", m); err != nil || m["line_sum_minor"] != 0.9 {
		t.Errorf("v2 field: %v, %v", err, m)
	}
	if err := ParseMinAccuracyFor("invoice-summary-v1", "line_sum_minor=0.9", m); err == nil || !strings.Contains(err.Error(), `unknown field "line_sum_minor"`) {
		t.Errorf("v2 field under v1: %v", err)
	}
}
