package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"
)

// Report is one evaluation of a suite against one or more providers. Every
// figure except those under "timing" keys is a function of the suite and
// the providers' answers, so the same suite evaluated twice with a
// deterministic provider gives the same report once timings are dropped.
type Report struct {
	Suite         string            `json:"suite"`
	SchemaVersion string            `json:"schema_version"`
	Tenant        string            `json:"tenant"`
	Documents     int               `json:"documents"`
	Fields        []string          `json:"fields"`
	Providers     []*ProviderReport `json:"providers"`
	// Gates is the verdict of the gates, when any were given.
	Gates *GateResult `json:"gates,omitempty"`
	// Provenance names the invx, revision, date and suite digest.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Timing holds the wall-clock figures, which differ between runs.
	Timing *ReportTiming `json:"timing"`
}

// ReportTiming are the run-dependent figures of a report.
type ReportTiming struct {
	StartedAt time.Time `json:"started_at"`
	WallMS    float64   `json:"wall_ms"`
}

// ProviderReport is what one provider did on the suite.
type ProviderReport struct {
	// Label names the provider in the comparison ("rules",
	// "openai:gpt-4o-mini", "replay:fake-llm").
	Label string `json:"label"`
	// Provider is the adapter ("rules", "openai", "replay", ...).
	Provider string `json:"provider"`
	// Models are the models the attempts report, sorted.
	Models []string `json:"models"`

	Documents  int `json:"documents"`
	Committed  int `json:"committed"`
	Rejected   int `json:"rejected"`
	Failed     int `json:"failed"`
	Unfinished int `json:"unfinished"`
	// Admission is the share of documents whose answer passed validation
	// and was committed.
	Admission float64 `json:"admission"`
	// Accuracy is per field; a document without a committed result counts
	// as wrong on every field it is scored on.
	Accuracy map[string]*FieldScore `json:"accuracy"`
	// Actions is action-kind detection over the documents that score
	// action_kinds.
	Actions *ActionScore `json:"action_kinds"`

	Attempts int `json:"attempts"`
	// Repairs are rejected attempts followed by a success: answers the
	// repair re-ask saved. RepairedDocuments committed after at least one.
	Repairs           int   `json:"repairs"`
	RepairedDocuments int   `json:"repaired_documents"`
	InputTokens       int64 `json:"input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	// Cost is the estimated cost from --price, nil when no price applies.
	Cost *float64 `json:"cost"`
	// BatchCost is what the same tokens cost through the providers' batch
	// APIs (invx run --batch, BatchDiscount), nil when Cost is.
	BatchCost *float64 `json:"cost_batch"`

	Results []*DocResult    `json:"results"`
	Timing  *ProviderTiming `json:"timing"`
}

// ProviderTiming are the run-dependent figures of one provider.
type ProviderTiming struct {
	WallMS float64 `json:"wall_ms"`
	// Attempt latency percentiles (provider call durations).
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
}

// FieldScore is one field's accuracy.
type FieldScore struct {
	Right  int `json:"right"`
	Scored int `json:"scored"`
	// Accuracy is Right/Scored, nil when no document scores the field.
	Accuracy *float64 `json:"accuracy"`
	// Wrong counts the confidently wrong answers: a value that is not the
	// expected one. A null is not wrong, it goes to review; a wrong value
	// goes to payment, so the two are reported apart.
	Wrong int `json:"wrong"`
	// WrongRate is Wrong/Scored, nil when no document scores the field.
	WrongRate *float64 `json:"wrong_rate"`
}

// ActionScore is action-kind detection: micro-averaged precision and recall
// over all kinds, and the counts per kind.
type ActionScore struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
	// Precision and Recall are nil when undefined (nothing found, nothing
	// expected).
	Precision *float64              `json:"precision"`
	Recall    *float64              `json:"recall"`
	ByKind    map[string]*KindCount `json:"by_kind"`
}

// DocResult is one document's outcome for one provider.
type DocResult struct {
	Name     string `json:"name"`
	SubSuite string `json:"suite"`
	JobKey   string `json:"job_key"`
	// State is the job's final state: succeeded, rejected, failed, or
	// another state when the run did not finish it.
	State string `json:"state"`
	// Category and Error say why a document was rejected or failed.
	Category     string     `json:"category,omitempty"`
	Error        string     `json:"error,omitempty"`
	Attempts     int        `json:"attempts"`
	Repairs      int        `json:"repairs"`
	InputTokens  int64      `json:"input_tokens"`
	OutputTokens int64      `json:"output_tokens"`
	Mismatches   []Mismatch `json:"mismatches"`
	Timing       *DocTiming `json:"timing"`
}

// DocTiming is the time one document's attempts took.
type DocTiming struct {
	MS float64 `json:"ms"`
}

// Admitted reports whether the document's answer was committed.
func (d *DocResult) Admitted() bool { return d.State == "succeeded" }

// Fields lists the names of the mismatched fields.
func (d *DocResult) Fields() []string {
	out := make([]string, len(d.Mismatches))
	for i, m := range d.Mismatches {
		out[i] = m.Field
	}
	return out
}

// ScoredFields are the fields the report scores, in report order: Fields
// as recorded, or, for a report that does not list them, those of its
// schema version.
func (r *Report) ScoredFields() []string {
	if len(r.Fields) > 0 {
		return r.Fields
	}
	return FieldsFor(r.SchemaVersion)
}

// Provider returns the provider report with the label, or nil.
func (r *Report) Provider(label string) *ProviderReport {
	for _, p := range r.Providers {
		if p.Label == label {
			return p
		}
	}
	return nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// ReadReport reads a report written by WriteJSON (a --baseline).
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not an invx eval --json report: %v", path, err)
	}
	if len(r.Providers) == 0 {
		return nil, fmt.Errorf("%s: not an invx eval --json report: no providers", path)
	}
	for _, p := range r.Providers {
		if p == nil || p.Label == "" {
			return nil, errors.New(path + ": not an invx eval --json report: a provider without a label")
		}
	}
	return &r, nil
}

// ratio is n/d rounded to 6 decimals (so reports print and compare
// stably), nil when d is 0.
func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	v := round6(float64(n) / float64(d))
	return &v
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// ms is a duration in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return math.Round(float64(d.Microseconds())) / 1000 }

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func sortedDurations(ds []time.Duration) []time.Duration {
	out := slices.Clone(ds)
	slices.Sort(out)
	return out
}
