package desk

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/invx/invx/review"
	"github.com/invx/invx/store"
)

// docView is everything the document page shows.
type docView struct {
	Job       *store.Job
	Key       string // short key
	Path      string
	Open      []review.Item // open review reasons, or the job's own state
	Facts     []fact
	Lines     []lineItem
	Revision  int
	Segments  []segment
	Pruned    bool
	Dup       *dupView
	Attempts  []attemptRow
	Revisions []revisionRow
	CSRF      string
	Done      string // what the last action did
	// The correct form's error and what was typed, shown again.
	CorrectError string
	Sets, Reason string

	HasReasons, CanCorrect, CanDismiss bool
	Correctable                        []string
}

// dupView is the other document of a possible duplicate.
type dupView struct {
	Key, Path string
}

type attemptRow struct {
	No                        int
	Outcome, Provider, Model  string
	Category, Message, Start  string
	DurationMS                int64
	InputTokens, OutputTokens int64
}

type revisionRow struct {
	Revision      int
	Actor, Reason string
	At            string
	Changes       []store.FieldChange
}

// done messages a redirect after an action may show (a fixed set: the
// query string is the user's, its text is never echoed).
var doneText = map[string]string{
	"accepted":  "Accepted: its review reasons are closed and its held events released for delivery.",
	"dismissed": "Dismissed: its held events are cancelled and invoice.dismissed is queued.",
	"corrected": "Corrected: a new revision is stored and invoice.corrected is queued.",
	"reopened":  "Corrected, but a review reason is still open: its events stay held.",
}

func (d *Desk) document(w http.ResponseWriter, r *http.Request) {
	v, err := d.docView(r, r.PathValue("key"))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	v.Done = doneText[r.URL.Query().Get("done")]
	d.render(w, r, "document.html", v)
}

// docView reads a job and everything about it.
func (d *Desk) docView(r *http.Request, ref string) (*docView, error) {
	ctx := r.Context()
	st := d.cfg.Store
	job, err := st.GetJob(ctx, &store.GetJobParams{Tenant: d.cfg.Tenant, Ref: ref})
	if err != nil {
		return nil, err
	}
	v := &docView{Job: job, Key: short(job.JobKey), Path: firstOf(job.DisplayPath, job.SourcePath), CSRF: d.csrf,
		Pruned: job.SourceText == ""}
	all, err := review.Open(ctx, st, d.cfg.Tenant, "")
	if err != nil {
		return nil, err
	}
	for _, it := range all {
		if it.JobKey == job.JobKey {
			v.Open = append(v.Open, it)
		}
	}
	if err := review.Fill(ctx, st, v.Open); err != nil {
		return nil, err
	}
	v.HasReasons = slices.ContainsFunc(v.Open, func(it review.Item) bool { return slices.Contains(review.Reasons, it.State) })
	v.CanDismiss = v.HasReasons || slices.Contains(review.States, job.State)
	res, err := st.GetResult(ctx, &store.GetResultParams{Tenant: job.Tenant, JobKey: job.JobKey})
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		if v.Facts, v.Lines, err = readFacts(res); err != nil {
			return nil, err
		}
		v.Revision = res.Revision
		v.CanCorrect = !res.Shadow && res.SupersededBy == 0
		for _, f := range v.Facts {
			v.Correctable = append(v.Correctable, f.Field)
		}
	}
	d.annotate(v)
	if err := d.duplicate(r, v); err != nil {
		return nil, err
	}
	v.Segments = highlight(job.SourceText, v.Facts)
	if err := d.history(r, v); err != nil {
		return nil, err
	}
	return v, nil
}

// annotate puts the open reasons' findings on the facts they concern: the
// missing fields, the arithmetic messages.
func (d *Desk) annotate(v *docView) {
	for _, it := range v.Open {
		for i := range v.Facts {
			f := &v.Facts[i]
			if slices.Contains(it.Missing, f.Field) {
				f.Missing = true
			}
			for _, p := range it.Problems {
				if strings.Contains(p.Path, f.Field) {
					f.Messages = append(f.Messages, p.Message)
				}
			}
		}
	}
}

// duplicate reads the other document of a possible duplicate and marks the
// facts that differ.
func (d *Desk) duplicate(r *http.Request, v *docView) error {
	var dup *review.Duplicate
	for _, it := range v.Open {
		if it.Duplicate != nil {
			dup = it.Duplicate
			break
		}
	}
	if dup == nil {
		return nil
	}
	v.Dup = &dupView{Key: short(dup.JobKey), Path: firstOf(dup.SourcePath, dup.Path)}
	res, err := d.cfg.Store.GetResult(r.Context(), &store.GetResultParams{Tenant: v.Job.Tenant, JobKey: dup.JobKey})
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	other, _, err := readFacts(res)
	if err != nil {
		return err
	}
	for i := range v.Facts {
		f := &v.Facts[i]
		for _, o := range other {
			if o.Field == f.Field {
				f.Other, f.Differs = o.Value, o.Value != f.Value
			}
		}
	}
	return nil
}

// history reads the attempts and the corrections.
func (d *Desk) history(r *http.Request, v *docView) error {
	atts, err := d.cfg.Store.ListAttempts(r.Context(), &store.ListAttemptsParams{JobID: v.Job.ID})
	if err != nil {
		return err
	}
	for _, a := range atts {
		v.Attempts = append(v.Attempts, attemptRow{No: a.AttemptNo, Outcome: a.Outcome, Provider: a.Provider, Model: a.Model,
			Category: a.Category, Message: a.Message, Start: stamp(a.StartedAt), DurationMS: a.Duration.Milliseconds(),
			InputTokens: a.InputTokens, OutputTokens: a.OutputTokens})
	}
	revs, err := d.cfg.Store.ListRevisions(r.Context(), &store.ListRevisionsParams{Tenant: v.Job.Tenant, JobKey: v.Job.JobKey})
	if err != nil {
		return err
	}
	for _, rv := range revs {
		v.Revisions = append(v.Revisions, revisionRow{Revision: rv.Revision, Actor: rv.Actor, Reason: rv.Reason,
			At: stamp(rv.CreatedAt), Changes: rv.Changes})
	}
	return nil
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func short(key string) string {
	if len(key) > 12 {
		return key[:12]
	}
	return key
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
