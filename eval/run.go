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
	for _, f := range Fields {
		pr.Accuracy[f] = &FieldScore{}
	}
	var (
		latencies []time.Duration
		cost      float64
		priced    = len(c.Prices) > 0
		seen      = map[string]bool{}
	)
	for _, d := range s.Docs {
		key, err := extract.JobKey(c.Tenant, extract.Transformation, c.Schema.Name, d.Found.Digest)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Found.Display, err)
		}
		job, err := c.Store.GetJob(ctx, &store.GetJobParams{Tenant: c.Tenant, Ref: key})
		if err != nil {
			return nil, fmt.Errorf("read job of %s: %w", d.Found.Display, err)
		}
		attempts, err := c.Store.ListAttempts(ctx, &store.ListAttemptsParams{JobID: job.ID})
		if err != nil {
			return nil, fmt.Errorf("read attempts of %s: %w", d.Found.Display, err)
		}
		dr := &DocResult{Name: d.Name, SubSuite: d.SubSuite, JobKey: key, State: job.State, Attempts: len(attempts),
			Mismatches: []Mismatch{}, Timing: &DocTiming{}}
		first := !seen[key] // the same text twice in a suite is one job
		seen[key] = true
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
				latencies = append(latencies, a.Duration)
			}
			if a.Model != "" && !slices.Contains(pr.Models, a.Model) {
				pr.Models = append(pr.Models, a.Model)
			}
			if priced && a.InputTokens+a.OutputTokens > 0 {
				p, ok := c.Prices.Lookup([]string{a.Provider, pr.Provider, label}, a.Model)
				if ok {
					cost += p.Cost(a.InputTokens, a.OutputTokens)
				} else {
					priced = false
				}
			}
		}
		dr.Timing.MS = ms(took)
		if first {
			pr.Attempts += dr.Attempts
			pr.InputTokens += dr.InputTokens
			pr.OutputTokens += dr.OutputTokens
			pr.Repairs += dr.Repairs
		}

		var res *schema.Result
		switch job.State {
		case store.StateSucceeded:
			res, err = readResult(ctx, c, key, d)
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
		sc := Score(d.Expect, res)
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
		dr.Mismatches = append(dr.Mismatches, sc.Mismatches...)
		pr.Results = append(pr.Results, dr)
	}
	slices.Sort(pr.Models)
	for _, fs := range pr.Accuracy {
		fs.Accuracy = ratio(fs.Right, fs.Scored)
	}
	pr.Actions.Precision = ratio(pr.Actions.TP, pr.Actions.TP+pr.Actions.FP)
	pr.Actions.Recall = ratio(pr.Actions.TP, pr.Actions.TP+pr.Actions.FN)
	if a := ratio(pr.Committed, pr.Documents); a != nil {
		pr.Admission = *a
	}
	if priced {
		v := round6(cost)
		pr.Cost = &v
	}
	lat := sortedDurations(latencies)
	pr.Timing.P50MS, pr.Timing.P95MS = ms(percentile(lat, 50)), ms(percentile(lat, 95))
	return pr, nil
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
	res, err := v.Validate(row.JSON, d.Found.Text)
	if err != nil {
		return nil, fmt.Errorf("stored result of %s no longer validates: %w", d.Found.Display, err)
	}
	return res, nil
}
