package review

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// CorrectStore is what a correction reads and writes (store.Store has it).
type CorrectStore interface {
	PolicyReader
	GetResult(ctx context.Context, p *store.GetResultParams) (*store.Result, error)
	ListRevisions(ctx context.Context, p *store.ListRevisionsParams) ([]*store.Revision, error)
	CorrectResult(ctx context.Context, p *store.CorrectParams) (*store.CorrectResult, error)
}

// CorrectJob is one correction a person asks for: the job, the fields to
// set and who does it why.
type CorrectJob struct {
	Job    *store.Job
	Sets   []Set
	Actor  string
	Reason string
	Now    time.Time
}

// Corrected says what a correction stored.
type Corrected struct {
	Revision int
	Changes  []store.FieldChange
	// Open are the reasons still open after it (its events stay held).
	Open []string
	// Pruned: the job's text was pruned, so evidence was not checked.
	Pruned bool
}

// InputError is a correction the person must change: an unknown field, a
// value of the wrong type or one that does not validate. Nothing was
// written. The CLI makes it a usage error, the review desk shows it beside
// the form.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// ErrNoResult: the job has no current result a correction may change (not
// committed, a shadow result, or superseded by a changed text).
var ErrNoResult = errors.New("no result to correct")

// Correct stores a corrected revision of the job's latest result: the
// fields of c.Sets changed, validated like a provider's answer except that
// corrected facts need no evidence, the completeness and duplicate checks
// run again, and an invoice.corrected event is queued (store.CorrectResult).
// This is the one implementation behind `invx review correct` and the
// review desk's correct form.
func Correct(ctx context.Context, st CorrectStore, c *CorrectJob) (*Corrected, error) {
	job := c.Job
	res, err := st.GetResult(ctx, &store.GetResultParams{Tenant: job.Tenant, JobKey: job.JobKey})
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("job %s is %s and has %w", short(job.JobKey), job.State, ErrNoResult)
	}
	if err != nil {
		return nil, fmt.Errorf("read result of job %s: %w", job.JobKey, err)
	}
	if res.Shadow {
		return nil, fmt.Errorf("the result of job %s is a shadow result, %w: correct the current one", short(job.JobKey), ErrNoResult)
	}
	if res.SupersededBy != 0 {
		return nil, fmt.Errorf("the result of job %s is superseded by a changed text, %w: correct the current one", short(job.JobKey), ErrNoResult)
	}
	v, err := schema.Lookup(res.SchemaVersion)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", job.JobKey, err)
	}
	corr, err := Apply(v, res.JSON, c.Sets)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	// Facts corrected by earlier revisions have no evidence either.
	typed, err := correctedFields(ctx, st, job)
	if err != nil {
		return nil, err
	}
	valid, err := v.ValidateCorrection(corr.JSON, job.SourceText, append(typed, corr.Fields...))
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("the corrected result does not validate: %w", err)}
	}
	require, err := Require(ctx, st, job.Tenant, v.Name)
	if err != nil {
		return nil, err
	}
	out, err := st.CorrectResult(ctx, &store.CorrectParams{Tenant: job.Tenant, JobKey: job.JobKey, Result: valid.JSON,
		Changes: corr.Changes, Actor: c.Actor, Reason: c.Reason, Review: Assess(valid, require), Now: c.Now})
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("job %s has %w any more (superseded meanwhile?)", short(job.JobKey), ErrNoResult)
	}
	if err != nil {
		return nil, fmt.Errorf("correct job %s: %w", job.JobKey, err)
	}
	return &Corrected{Revision: out.Revision, Changes: corr.Changes, Open: out.Open, Pruned: job.SourceText == ""}, nil
}

// correctedFields lists the facts the job's earlier revisions corrected.
func correctedFields(ctx context.Context, st CorrectStore, job *store.Job) ([]string, error) {
	revs, err := st.ListRevisions(ctx, &store.ListRevisionsParams{Tenant: job.Tenant, JobKey: job.JobKey})
	if err != nil {
		return nil, fmt.Errorf("revisions of job %s: %w", job.JobKey, err)
	}
	var out []string
	for _, r := range revs {
		for _, ch := range r.Changes {
			out = append(out, ch.Field)
		}
	}
	return out, nil
}

// short is the 12-character job key prefix the commands print.
func short(key string) string {
	if len(key) > 12 {
		return key[:12]
	}
	return key
}
