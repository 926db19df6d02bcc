package eval

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/invx/invx/schema"
)

// Gates turn a report into a pass or a fail for CI.
type Gates struct {
	// MinAdmission is the least admission rate every provider must reach.
	MinAdmission *float64
	// MinAccuracy is the least accuracy per field (keys among Fields).
	MinAccuracy map[string]float64
	// MaxWrong is the largest confidently-wrong rate per field: a value
	// that is not the expected one, nulls excepted.
	MaxWrong map[string]float64
	// Baseline is an earlier report; BaselineName names it in messages.
	Baseline     *Report
	BaselineName string
	// MaxRegression is how far below the baseline a figure may fall.
	MaxRegression float64
}

// GateResult is the verdict of the gates.
type GateResult struct {
	Passed bool `json:"passed"`
	// Failures name each failed gate, one line each.
	Failures []string `json:"failures"`
	// Notes are things a reader should know that fail nothing (a provider
	// missing from the baseline).
	Notes []string `json:"notes,omitempty"`
}

// Empty reports whether no gate is set.
func (g *Gates) Empty() bool {
	return g.MinAdmission == nil && len(g.MinAccuracy) == 0 && len(g.MaxWrong) == 0 && g.Baseline == nil
}

// ParseMinAccuracy parses FIELD=MIN[,FIELD=MIN...] into m, with MIN a share
// between 0 and 1 ("total_minor=0.98,invoice_number=0.95"), FIELD one of
// Fields (invoice-summary-v1).
func ParseMinAccuracy(s string, m map[string]float64) error {
	return ParseMinAccuracyFor("", s, m)
}

// ParseMinAccuracyFor is ParseMinAccuracy for the fields scored under a
// schema version (FieldsFor): a gate on a field the version does not score
// could never be judged.
func ParseMinAccuracyFor(version, s string, m map[string]float64) error {
	return parseShares(version, s, "MIN", "total_minor=0.98", m)
}

// ParseMaxWrongFor parses FIELD=MAX[,FIELD=MAX...], the largest share of
// confidently wrong answers per field ("total_minor=0.03"), for the fields
// scored under a schema version.
func ParseMaxWrongFor(version, s string, m map[string]float64) error {
	return parseShares(version, s, "MAX", "total_minor=0.03", m)
}

func parseShares(version, s, name, example string, m map[string]float64) error {
	fields := FieldsFor(version)
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		field, val, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("%q: want FIELD=%s, such as %s", part, name, example)
		}
		if !slices.Contains(fields, field) {
			return fmt.Errorf("%q: unknown field %q (fields: %s)", part, field, strings.Join(fields, ", "))
		}
		share, err := strconv.ParseFloat(val, 64)
		if err != nil || share < 0 || share > 1 {
			return fmt.Errorf("%q: %s must be a share between 0 and 1", part, name)
		}
		m[field] = share
	}
	return nil
}

// figure is one gated number of a provider report.
type figure struct {
	name  string
	value *float64
}

// figures are the numbers a baseline comparison looks at, for the fields
// of the report.
func figures(p *ProviderReport, fields []string) []figure {
	adm := p.Admission
	out := []figure{{"admission", &adm}}
	for _, f := range fields {
		var v *float64
		if fs := p.Accuracy[f]; fs != nil {
			v = fs.Accuracy
		}
		out = append(out, figure{f + " accuracy", v})
	}
	if p.Actions != nil {
		out = append(out, figure{"action_kinds precision", p.Actions.Precision}, figure{"action_kinds recall", p.Actions.Recall})
	}
	return out
}

// eps absorbs float rounding: a figure exactly at its threshold passes.
const eps = 1e-9

// Check judges every provider of r.
func (g *Gates) Check(r *Report) *GateResult {
	res := &GateResult{Failures: []string{}}
	fail := func(format string, a ...any) { res.Failures = append(res.Failures, fmt.Sprintf(format, a...)) }
	for _, p := range r.Providers {
		if g.MinAdmission != nil && p.Admission < *g.MinAdmission-eps {
			fail("%s: admission %s (%d/%d) is below --min-admission %s", p.Label, pct(p.Admission), p.Committed, p.Documents, pct(*g.MinAdmission))
		}
		for _, f := range r.ScoredFields() {
			floor, ok := g.MinAccuracy[f]
			if !ok {
				continue
			}
			fs := p.Accuracy[f]
			switch {
			case fs == nil || fs.Accuracy == nil:
				fail("%s: %s accuracy cannot be gated: no document of the suite scores it", p.Label, f)
			case *fs.Accuracy < floor-eps:
				fail("%s: %s accuracy %s (%d/%d) is below --min-accuracy %s", p.Label, f, pct(*fs.Accuracy), fs.Right, fs.Scored, pct(floor))
			}
		}
	}
	for _, p := range r.Providers {
		for _, f := range r.ScoredFields() {
			ceil, ok := g.MaxWrong[f]
			if !ok {
				continue
			}
			fs := p.Accuracy[f]
			switch {
			case fs == nil || fs.WrongRate == nil:
				fail("%s: %s wrong rate cannot be gated: no document of the suite scores it", p.Label, f)
			case *fs.WrongRate > ceil+eps:
				fail("%s: %s is confidently wrong on %s (%d/%d), above --max-wrong %s", p.Label, f, pct(*fs.WrongRate), fs.Wrong, fs.Scored, pct(ceil))
			}
		}
	}
	for _, gate := range []struct {
		flag   string
		fields map[string]float64
	}{{"--min-accuracy", g.MinAccuracy}, {"--max-wrong", g.MaxWrong}} {
		var unscored []string
		for f := range gate.fields {
			if !slices.Contains(r.ScoredFields(), f) {
				unscored = append(unscored, f)
			}
		}
		slices.Sort(unscored)
		for _, f := range unscored {
			fail("%s %s: schema %s does not score %s", gate.flag, f, reportVersion(r), f)
		}
	}
	if g.Baseline != nil {
		g.checkBaseline(r, res, fail)
	}
	res.Passed = len(res.Failures) == 0
	return res
}

func (g *Gates) checkBaseline(r *Report, res *GateResult, fail func(string, ...any)) {
	name := g.BaselineName
	if name == "" {
		name = "the baseline"
	}
	// A baseline of another schema version scores other fields, some
	// under the same name with another meaning (v1's total_minor is the
	// amount payable, v2's the gross total): comparing them would gate on
	// noise.
	if bv, v := reportVersion(g.Baseline), reportVersion(r); bv != v {
		fail("%s is a report of schema %s, this one of %s: not comparable", name, bv, v)
		return
	}
	fields := r.ScoredFields()
	for _, p := range r.Providers {
		base := g.Baseline.Provider(p.Label)
		if base == nil && len(r.Providers) == 1 && len(g.Baseline.Providers) == 1 {
			base = g.Baseline.Providers[0]
			res.Notes = append(res.Notes, fmt.Sprintf("%s: compared with %s of %s (the only provider of each)", p.Label, base.Label, name))
		}
		if base == nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: not in %s, not compared", p.Label, name))
			continue
		}
		if base.Documents != p.Documents {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %d documents now, %d in %s", p.Label, p.Documents, base.Documents, name))
		}
		was := figures(base, fields)
		for i, now := range figures(p, fields) {
			before := was[i]
			if now.value == nil || before.value == nil {
				continue
			}
			if drop := *before.value - *now.value; drop > g.MaxRegression+eps {
				fail("%s: %s fell from %s to %s (%s), more than --max-regression %s", p.Label, now.name,
					pct(*before.value), pct(*now.value), name, pct(g.MaxRegression))
			}
		}
	}
}

// pct formats a share as a percentage with one decimal.
func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// reportVersion is the schema version a report was scored under, v1 for a
// report that does not say (reports before versions were recorded).
func reportVersion(r *Report) string {
	if r.SchemaVersion == "" {
		return schema.V1
	}
	return r.SchemaVersion
}
