package eval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// Config is the evaluation of one provider.
type Config struct {
	// Store is a fresh store that only this evaluation uses.
	Store    store.Store
	Provider extract.Provider
	// Label names the provider in reports; Provider.Name() when empty.
	Label  string
	Schema *schema.Version
	Tenant string
	// Runner works the suite. The caller builds it with the same
	// constructor as invx run (retry policy, leases, liveness, clock), so an
	// evaluation measures what a run would do; Run sets its Store,
	// Provider, Schema, Tenant, SourceSystem and ProgressFunc from this
	// Config.
	Runner *extract.Runner
	// Prices estimate the cost of the tokens used.
	Prices Prices

	NowFunc func() time.Time
	// ProgressFunc, if set, receives the Runner's progress events.
	ProgressFunc func(extract.Event)
}

func (c *Config) now() time.Time {
	if c.NowFunc != nil {
		return c.NowFunc()
	}
	return time.Now()
}

// Run evaluates one provider on the suite: it enqueues every document into
// c.Store and works the queue with an extract.Runner, exactly as invx run
// does, then reads each document's final state, attempts and committed
// result back from the store and scores it. The error is the run's
// (extract.ErrAuth, extract.ErrQuota, a store failure, an interrupt): a
// document that is rejected or fails is an outcome, not an error.
func Run(ctx context.Context, s *Suite, c *Config) (*ProviderReport, error) {
	label := c.Label
	if label == "" {
		label = c.Provider.Name()
	}
	if c.Runner == nil {
		return nil, errors.New("evaluate: no runner configured")
	}
	r := c.Runner
	r.Store, r.Provider, r.Schema, r.Tenant = c.Store, c.Provider, c.Schema, c.Tenant
	r.SourceSystem, r.ProgressFunc = "eval:"+s.Name, c.ProgressFunc
	started := c.now()
	if err := r.Begin(ctx); err != nil {
		return nil, err
	}
	docs := make([]extract.Found, len(s.Docs))
	for i, d := range s.Docs {
		docs[i] = d.Found
	}
	if err := r.Enqueue(ctx, docs); err != nil {
		return nil, err
	}
	workErr := r.Work(ctx)
	status := extract.RunStatus(ctx, workErr)
	_, ferr := r.Finish(ctx, started, status)
	switch {
	case workErr != nil:
		return nil, workErr
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case ferr != nil:
		return nil, ferr
	}
	pr, err := collect(ctx, s, c, label)
	if err != nil {
		return nil, err
	}
	pr.Timing.WallMS = ms(c.now().Sub(started))
	return pr, nil
}

// collect reads the evaluation back from the store and scores it.
func collect(ctx context.Context, s *Suite, c *Config, label string) (*ProviderReport, error) {
	pr := &ProviderReport{Label: label, Provider: c.Provider.Name(), Models: []string{}, Documents: len(s.Docs),
		Accuracy: map[string]*FieldScore{}, Actions: &ActionScore{ByKind: map[string]*KindCount{}},
		Results: make([]*DocResult, 0, len(s.Docs)), Timing: &ProviderTiming{}}
	for _, f := range FieldsFor(c.Schema.Name) {
		pr.Accuracy[f] = &FieldScore{}
	}
	col := &collector{c: c, pr: pr, label: label, priced: len(c.Prices) > 0, seen: map[string]bool{}}
	for _, d := range s.Docs {
		if err := col.doc(ctx, d); err != nil {
			return nil, err
		}
	}
	col.totals()
	return pr, nil
}

// collector accumulates a provider's report over the suite's documents.
type collector struct {
	c         *Config
	pr        *ProviderReport
	label     string
	latencies []time.Duration
	cost      float64
	batchCost float64         // the same tokens priced as batch requests
	priced    bool            // every priced call so far had a price
	seen      map[string]bool // job keys already counted
}

// doc reads one document's job, attempts and result back and adds them to
// the report.
func (col *collector) doc(ctx context.Context, d *Doc) error {
	c, pr := col.c, col.pr
	key, err := extract.JobKey(c.Tenant, extract.Transformation, c.Schema.Name, d.Found.Digest)
	if err != nil {
		return fmt.Errorf("%s: %w", d.Found.Display, err)
	}
	job, err := c.Store.GetJob(ctx, &store.GetJobParams{Tenant: c.Tenant, Ref: key})
	if err != nil {
		return fmt.Errorf("read job of %s: %w", d.Found.Display, err)
	}
	attempts, err := c.Store.ListAttempts(ctx, &store.ListAttemptsParams{JobID: job.ID})
	if err != nil {
		return fmt.Errorf("read attempts of %s: %w", d.Found.Display, err)
	}
	dr := &DocResult{Name: d.Name, SubSuite: d.SubSuite, JobKey: key, State: job.State, Attempts: len(attempts),
		Mismatches: []Mismatch{}, Timing: &DocTiming{}}
	first := !col.seen[key] // the same text twice in a suite is one job
	col.seen[key] = true
	col.attempts(dr, job, attempts, first)
	if first {
		pr.Attempts += dr.Attempts
		pr.InputTokens += dr.InputTokens
		pr.OutputTokens += dr.OutputTokens
		pr.Repairs += dr.Repairs
	}
	res, err := col.state(ctx, d, key, job, dr)
	if err != nil {
		return err
	}
	col.score(d, res, dr)
	pr.Results = append(pr.Results, dr)
	return nil
}

// attempts sums a job's attempts into its document result and, for the
// first document of a job only (a repeated text is not called again),
// into the latencies, models and cost.
func (col *collector) attempts(dr *DocResult, job *store.Job, attempts []*store.Attempt, first bool) {
	pr := col.pr
	var took time.Duration
	for _, a := range attempts {
		dr.InputTokens += a.InputTokens
		dr.OutputTokens += a.OutputTokens
		if a.Outcome == store.OutcomeRejected && job.State == store.StateSucceeded {
			dr.Repairs++
		}
		took += a.Duration
		if !first {
			continue
		}
		if a.Outcome != "" {
			col.latencies = append(col.latencies, a.Duration)
		}
		if a.Model != "" && !slices.Contains(pr.Models, a.Model) {
			pr.Models = append(pr.Models, a.Model)
		}
		if col.priced && a.InputTokens+a.OutputTokens > 0 {
			p, ok := col.c.Prices.Lookup([]string{a.Provider, pr.Provider, col.label}, a.Model)
			if ok {
				full := p.Cost(a.InputTokens, a.OutputTokens)
				if a.BatchID != "" {
					// Answered through a batch API: billed at the discount.
					col.cost += BatchDiscount * full
				} else {
					col.cost += full
				}
				col.batchCost += BatchDiscount * full
			} else {
				col.priced = false
			}
		}
	}
	dr.Timing.MS = ms(took)
}

// state counts the job's final state and returns its committed result,
// nil unless the job succeeded.
func (col *collector) state(ctx context.Context, d *Doc, key string, job *store.Job, dr *DocResult) (*schema.Result, error) {
	pr := col.pr
	var res *schema.Result
	switch job.State {
	case store.StateSucceeded:
		var err error
		res, err = readResult(ctx, col.c, key, d)
		if err != nil {
			return nil, err
		}
		pr.Committed++
		if dr.Repairs > 0 {
			pr.RepairedDocuments++
		}
	case store.StateRejected:
		pr.Rejected++
	case store.StateFailed:
		pr.Failed++
	default:
		pr.Unfinished++
	}
	if job.State != store.StateSucceeded {
		dr.Category = cmp.Or(job.LastCategory, job.LastErrorClass)
		dr.Error = job.LastError
	}
	return res, nil
}

// score compares the result with the document's expectations and adds the
// field and action counts to the report.
func (col *collector) score(d *Doc, res *schema.Result, dr *DocResult) {
	pr := col.pr
	sc := ScoreVersion(col.c.Schema.Name, d.Expect, res)
	for f, right := range sc.Right {
		pr.Accuracy[f].Scored++
		if right {
			pr.Accuracy[f].Right++
		}
	}
	for k, n := range sc.Kinds {
		kc := pr.Actions.ByKind[k]
		if kc == nil {
			kc = &KindCount{}
			pr.Actions.ByKind[k] = kc
		}
		kc.TP, kc.FP, kc.FN = kc.TP+n.TP, kc.FP+n.FP, kc.FN+n.FN
		pr.Actions.TP, pr.Actions.FP, pr.Actions.FN = pr.Actions.TP+n.TP, pr.Actions.FP+n.FP, pr.Actions.FN+n.FN
	}
	for _, m := range sc.Mismatches {
		if fs := pr.Accuracy[m.Field]; fs != nil && m.Got != nil {
			fs.Wrong++
		}
	}
	dr.Mismatches = append(dr.Mismatches, sc.Mismatches...)
}

// totals derives the report's ratios, cost and latency percentiles once
// every document is in.
func (col *collector) totals() {
	pr := col.pr
	slices.Sort(pr.Models)
	for _, fs := range pr.Accuracy {
		fs.Accuracy = ratio(fs.Right, fs.Scored)
		fs.WrongRate = ratio(fs.Wrong, fs.Scored)
	}
	pr.Actions.Precision = ratio(pr.Actions.TP, pr.Actions.TP+pr.Actions.FP)
	pr.Actions.Recall = ratio(pr.Actions.TP, pr.Actions.TP+pr.Actions.FN)
	if a := ratio(pr.Committed, pr.Documents); a != nil {
		pr.Admission = *a
	}
	if col.priced {
		v, b := round6(col.cost), round6(col.batchCost)
		pr.Cost, pr.BatchCost = &v, &b
	}
	lat := sortedDurations(col.latencies)
	pr.Timing.P50MS, pr.Timing.P95MS = ms(percentile(lat, 50)), ms(percentile(lat, 95))
}

// readResult reads a committed result and validates it again against its
// schema version, to score its decoded facts.
func readResult(ctx context.Context, c *Config, key string, d *Doc) (*schema.Result, error) {
	row, err := c.Store.GetResult(ctx, &store.GetResultParams{Tenant: c.Tenant, JobKey: key})
	if err != nil {
		return nil, fmt.Errorf("read result of %s: %w", d.Found.Display, err)
	}
	v, err := schema.Lookup(row.SchemaVersion)
	if err != nil {
		return nil, fmt.Errorf("result of %s: %w", d.Found.Display, err)
	}
	// Reviewable: a result committed with review reasons (arithmetic on a
	// provider that cannot repair) is a committed result and is scored.
	res, err := v.ValidateReviewable(row.JSON, d.Found.Text)
	if err != nil {
		return nil, fmt.Errorf("stored result of %s no longer validates: %w", d.Found.Display, err)
	}
	return res, nil
}
