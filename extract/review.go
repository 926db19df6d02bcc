package extract

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/invx/invx/review"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// policyTTL is how long a tenant's stored review policy is trusted before
// it is read again: a long-lived invx work --wait sees a clerk's invx
// policy set within a minute, and a batch reads it about once.
const policyTTL = time.Minute

// policyCache holds the tenants' stored review policies for one runner.
type policyCache struct {
	mu      sync.Mutex
	entries map[string]policyEntry
}

type policyEntry struct {
	require []string // nil: the tenant has no stored policy
	read    time.Time
}

// require returns the fields a result of version must have for tenant to
// be paid: Runner.Require (--require) when set, else the tenant's stored
// policy, else the version's default. A field version lacks is simply not
// checked (review.Missing), so one list serves every version.
func (r *Runner) require(ctx context.Context, tenant, version string) ([]string, error) {
	if r.Require != nil {
		return r.Require, nil
	}
	stored, err := r.storedPolicy(ctx, tenant)
	if err != nil {
		return nil, err
	}
	if stored != nil {
		return stored, nil
	}
	return review.DefaultRequire(version), nil
}

// storedPolicy is tenant's stored policy (nil: none), read at most once
// per policyTTL. Timed on the real clock, like database outages: NowFunc
// may be frozen in tests.
func (r *Runner) storedPolicy(ctx context.Context, tenant string) ([]string, error) {
	c := &r.policies
	c.mu.Lock()
	e, ok := c.entries[tenant]
	c.mu.Unlock()
	if ok && time.Since(e.read) < policyTTL {
		return e.require, nil
	}
	req, _, err := review.StoredRequire(ctx, r.Store, tenant)
	if err != nil {
		return nil, err
	}
	e = policyEntry{require: req, read: time.Now()}
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]policyEntry{}
	}
	c.entries[tenant] = e
	c.mu.Unlock()
	return e.require, nil
}

// assess is what a commit of res brings for review under the tenant's
// policy; nil for a shadow run, whose results publish nothing and so hold
// nothing.
func (r *Runner) assess(ctx context.Context, l *store.Lease, res *schema.Result) (*store.CommitReview, error) {
	if r.Shadow {
		return nil, nil
	}
	req, err := r.require(ctx, l.Tenant, res.Version)
	if err != nil {
		return nil, err
	}
	return review.Assess(res, req), nil
}

// canRepair reports whether an invalid answer of this attempt would be
// re-asked: repair budget and attempt budget left, the run not
// interrupted, the token budget not spent. The same condition decides, in
// rejected, whether a repair attempt follows.
func (r *Runner) canRepair(j *jobRun, c *call) bool {
	l := j.l
	return j.repairs < r.Repair && l.AttemptNo-l.BudgetBase < r.MaxAttempts && j.runCtx.Err() == nil && !c.overBudget
}

// validate checks an answer. An answer that will be re-asked if invalid
// gets the strict Validate: sums that do not add up are repairable, so the
// model is asked again. An answer that will not be (rules and replay, whose
// repair budget is 0, or the last repair) gets ValidateReviewable: a
// document whose only faults are arithmetic is committed with an
// arithmetic review reason and held for a clerk, rather than rejected.
func (r *Runner) validate(j *jobRun, c *call) (*schema.Result, error) {
	if r.canRepair(j, c) {
		return j.v.Validate(c.resp.Output, j.l.Text)
	}
	return j.v.ValidateReviewable(c.resp.Output, j.l.Text)
}

// reviewed records a commit: the job is succeeded for good, so a document
// this run enqueued is counted so at the finish without reading its state
// again (tagCommitted: without it, the finish of a 10k-document run read
// 10k job states back, about 0.1 s after the last commit); and what the
// commit opened for review: the run's counts and metrics by reason, and
// the job, whose reasons Finish looks up. A commit that opened no reason is
// not asked about (its reasons are opened by its commit, or by a clerk's
// correction, which is a person already looking at it). The keys go to the
// run's key set, which keeps a bounded chunk in memory (issue 17).
func (r *Runner) reviewed(l *store.Lease, reasons []string) {
	r.mu.Lock()
	r.keys.add(l.Tenant, l.JobKey, tagCommitted)
	if len(reasons) > 0 {
		r.keys.add(l.Tenant, l.JobKey, tagReviewed)
	}
	for _, reason := range reasons {
		r.summary.ReviewOpened[reason]++
	}
	r.mu.Unlock()
	if r.Metrics != nil {
		for _, reason := range reasons {
			r.Metrics.ReviewOpened(l.Tenant, reason)
		}
	}
}

// reviewScanMin is the number of documents from which a run's finish
// reads its tenant's open review reasons in one scan (reviewScanFactor
// of them per document at most) rather than by its job keys.
const (
	reviewScanMin    = 1000
	reviewScanFactor = 4
)

// openReview counts the open review reasons of the run's documents: those
// it enqueued (a rerun's already committed ones included, so a batch keeps
// exiting 3 until a clerk acts) and those its commits opened a reason on
// (reviewed), of tenants (keySet.seal). docs is the number of documents
// with at least one open reason. The store is asked about the run's own
// jobs, each once, a chunk at a time from the merged keys, so what the
// finish holds grows neither with the run nor with the tenant's open
// review queue.
func (r *Runner) openReview(ctx context.Context, tenants []string) (docs int, byReason map[string]int, err error) {
	byReason = map[string]int{}
	for _, tenant := range tenants {
		d, err := r.openReviewOf(ctx, tenant, byReason)
		if err != nil {
			return 0, byReason, fmt.Errorf("read open review reasons: %w", err)
		}
		docs += d
	}
	return docs, byReason, nil
}

// cursor is a cursor over tenant's keys, made under the runner's lock
// (the set's runs are not changed after seal, but its map is).
func (r *Runner) cursor(tenant string) *keyCursor {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys.cursor(tenant)
}

// openReviewOf adds tenant's open reasons to byReason and returns its
// documents with at least one.
func (r *Runner) openReviewOf(ctx context.Context, tenant string, byReason map[string]int) (docs int, err error) {
	r.mu.Lock()
	n := r.keys.count(tenant)
	r.mu.Unlock()
	// A large run (a rerun of a whole folder) reads its tenant's open
	// reasons once instead, when there are not many more of them than
	// the run has documents: one index scan rather than a key lookup per
	// document. The scan asks about keys in ascending order, so the
	// run's keys are walked alongside it, not looked up.
	if n >= cmp.Or(r.scanMin, reviewScanMin) {
		var has *keyCursor
		outOfOrder := false
		var c *store.ReviewCounts
		err := r.withStore(ctx, "finish_run", r.log(), func() error {
			has, outOfOrder = r.cursor(tenant), false // a retry walks from the start again
			var err error
			c, err = r.Store.CountReview(ctx, &store.CountReviewParams{Tenant: tenant, MaxOpen: reviewScanFactor * n,
				Has: has.hasFunc(&outOfOrder)})
			return err
		})
		switch {
		case err != nil:
			return 0, err
		case has.err != nil:
			return 0, has.err
		case outOfOrder:
			return 0, fmt.Errorf("the store asked about job keys out of order")
		case !c.TooMany:
			for reason, k := range c.ByReason {
				byReason[reason] += k
			}
			return c.Docs, nil
		}
	}
	ask := func(keys []string) error {
		var n *store.ReviewCounts
		err := r.withStore(ctx, "finish_run", r.log(), func() error {
			var err error
			n, err = r.Store.CountReview(ctx, &store.CountReviewParams{Tenant: tenant, JobKeys: keys})
			return err
		})
		if err != nil {
			return err
		}
		for reason, c := range n.ByReason {
			byReason[reason] += c
		}
		docs += n.Docs
		return nil
	}
	keys := make([]string, 0, finishChunk)
	c := r.cursor(tenant)
	for k, _, ok := c.next(); ok; k, _, ok = c.next() {
		if keys = append(keys, k); len(keys) == finishChunk {
			if err := ask(keys); err != nil {
				return 0, err
			}
			keys = keys[:0]
		}
	}
	if c.err != nil {
		return 0, c.err
	}
	if len(keys) > 0 {
		if err := ask(keys); err != nil {
			return 0, err
		}
	}
	return docs, nil
}
