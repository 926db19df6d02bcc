package desk

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/invx/invx/review"
	"github.com/invx/invx/store"
)

// The actions call exactly what invx review accept, dismiss and correct
// call; the actor is the desk's (--actor).

func (d *Desk) accept(w http.ResponseWriter, r *http.Request) {
	job, ok := d.job(w, r)
	if !ok {
		return
	}
	note, ok := formText(w, r, "note", false)
	if !ok {
		return
	}
	_, err := d.cfg.Store.AcceptReview(r.Context(), &store.ReviewActionParams{Tenant: job.Tenant, JobKey: job.JobKey,
		Actor: d.cfg.Actor, Note: note, Now: d.cfg.Now()})
	if errors.Is(err, store.ErrNotFound) {
		http.Error(w, "409 conflict: this document has no open review reason any more (someone else resolved it?)", http.StatusConflict)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.cfg.Log.Info("review desk: accepted", "job_key", job.JobKey, "actor", d.cfg.Actor)
	redirectDone(w, r, job, "accepted")
}

func (d *Desk) dismiss(w http.ResponseWriter, r *http.Request) {
	job, ok := d.job(w, r)
	if !ok {
		return
	}
	reason, ok := formText(w, r, "reason", true)
	if !ok {
		return
	}
	ctx := r.Context()
	var err error
	if job.State == store.StateSucceeded {
		// A committed result: its review reasons are dismissed and its held
		// events cancelled (invx review dismiss does the same).
		_, err = d.cfg.Store.DismissReview(ctx, &store.ReviewActionParams{Tenant: job.Tenant, JobKey: job.JobKey,
			Actor: d.cfg.Actor, Note: reason, Now: d.cfg.Now()})
	} else {
		err = d.cfg.Store.Dismiss(ctx, &store.JobActionParams{Tenant: job.Tenant, JobKey: job.JobKey, Reason: reason, Now: d.cfg.Now()})
	}
	if errors.Is(err, store.ErrNotFound) {
		http.Error(w, "409 conflict: this document has nothing open to dismiss any more (someone else resolved it?)", http.StatusConflict)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.cfg.Log.Info("review desk: dismissed", "job_key", job.JobKey, "actor", d.cfg.Actor)
	redirectDone(w, r, job, "dismissed")
}

// correct stores a corrected revision (review.Correct, as invx review
// correct). A correction that does not parse or validate is shown on the
// page beside the form, with what was typed, and nothing is written.
func (d *Desk) correct(w http.ResponseWriter, r *http.Request) {
	job, ok := d.job(w, r)
	if !ok {
		return
	}
	typed := r.PostForm.Get("sets")
	reason := strings.TrimSpace(r.PostForm.Get("reason"))
	var sets []review.Set
	var inputErr error
	for _, line := range strings.Split(typed, "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		s, err := review.ParseSet(line)
		if err != nil {
			inputErr = err
			break
		}
		sets = append(sets, s)
	}
	switch {
	case inputErr != nil:
	case len(sets) == 0:
		inputErr = errors.New("give at least one FIELD=VALUE line")
	case reason == "":
		inputErr = errors.New("say why the values are corrected (reason)")
	case len(reason) > 1000:
		inputErr = errors.New("the reason is longer than 1000 bytes")
	}
	var out *review.Corrected
	if inputErr == nil {
		var err error
		out, err = review.Correct(r.Context(), d.cfg.Store, &review.CorrectJob{Job: job, Sets: sets, Actor: d.cfg.Actor, Reason: reason, Now: d.cfg.Now()})
		var in *review.InputError
		switch {
		case errors.As(err, &in):
			inputErr = in.Err
		case errors.Is(err, review.ErrNoResult):
			http.Error(w, "409 conflict: "+err.Error(), http.StatusConflict)
			return
		case err != nil:
			d.fail(w, r, err)
			return
		}
	}
	if inputErr != nil {
		v, err := d.docView(r, job.JobKey)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		v.CorrectError, v.Sets, v.Reason = inputErr.Error(), typed, reason
		d.renderStatus(w, r, http.StatusUnprocessableEntity, "document.html", v)
		return
	}
	d.cfg.Log.Info("review desk: corrected", "job_key", job.JobKey, "actor", d.cfg.Actor, "revision", out.Revision)
	done := "corrected"
	if len(out.Open) > 0 {
		done = "reopened"
	}
	redirectDone(w, r, job, done)
}

// job reads the job a POST names; it has answered when ok is false.
func (d *Desk) job(w http.ResponseWriter, r *http.Request) (*store.Job, bool) {
	job, err := d.cfg.Store.GetJob(r.Context(), &store.GetJobParams{Tenant: d.cfg.Tenant, Ref: r.PathValue("key")})
	if err != nil {
		d.fail(w, r, err)
		return nil, false
	}
	return job, true
}

// formText reads a trimmed form value of at most 1000 bytes, as the CLI's
// --reason and --note.
func formText(w http.ResponseWriter, r *http.Request, name string, required bool) (string, bool) {
	s := strings.TrimSpace(r.PostForm.Get(name))
	switch {
	case s == "" && required:
		http.Error(w, "400 bad request: a "+name+" is required", http.StatusBadRequest)
		return "", false
	case len(s) > 1000:
		http.Error(w, "400 bad request: the "+name+" is longer than 1000 bytes", http.StatusBadRequest)
		return "", false
	}
	return s, true
}

func redirectDone(w http.ResponseWriter, r *http.Request, job *store.Job, done string) {
	http.Redirect(w, r, "/doc/"+url.PathEscape(job.JobKey)+"?done="+done, http.StatusSeeOther)
}
