package cmd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// ShowOptions are the flags of invx show.
type ShowOptions struct {
	Ref  string
	JSON bool
	Text bool
	// Reveal prints the supplier IBAN in full; otherwise it is masked
	// (DE89…3000) in the result and in the text.
	Reveal bool
}

func newCmdShow(f *Factory, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{}
	c := &cobra.Command{
		Use:   "show KEY|PATH",
		Short: "Show one job: state, source, every attempt and the committed result",
		Long: `Show prints one job of the tenant, found by its job key, a unique key prefix
(at least 8 hex digits) or its source path (relative to the walked directory,
or as given to invx run). A path that matches more than one job (the same
file name in two nightly folders, or a file whose text changed) lists the
candidates and exits 2: name one by its key.

Document text is not printed unless --text is given.

An invoice-v2 result is shown as its facts, each with the excerpt of the
text it was read from, then its tax lines, line items and action items.
The supplier IBAN is masked as its country code, check digits and last four
characters (DE89…3000) in the result, its evidence and the text; --reveal
prints it in full (invx export always does: a clerk pays from it).`,
		Example: `  invx show 3f2a9c1e
  invx show fixtures/invoices/de_gutschrift.txt
  invx show --json de_gutschrift.txt | jq .result`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("show: want exactly one KEY or PATH"), try: "invx show 3f2a9c1e"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return showRun(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the job as JSON")
	c.Flags().BoolVar(&opts.Text, "text", false, "include the normalised document text")
	c.Flags().BoolVar(&opts.Reveal, "reveal", false, "print the supplier IBAN in full instead of masked")
	return c
}

type showAttempt struct {
	No           int    `json:"attempt"`
	Outcome      string `json:"outcome"`
	ErrorClass   string `json:"error_class,omitempty"`
	Category     string `json:"category,omitempty"`
	Message      string `json:"message,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	HTTPStatus   int    `json:"http_status,omitempty"`
	RequestID    string `json:"request_id,omitempty"`
	DurationMS   int64  `json:"duration_ms"`
	InputTokens  int64  `json:"input_tokens,omitempty"`
	OutputTokens int64  `json:"output_tokens,omitempty"`
	RunID        string `json:"run_id"`
	LeaseToken   int64  `json:"lease_token"`
	StartedAt    string `json:"started_at"`
}

type showResult struct {
	ID            int64  `json:"id"`
	SchemaVersion string `json:"schema_version"`
	CommittedAt   string `json:"committed_at"`
	RunID         string `json:"run_id"`
	Shadow        bool   `json:"shadow,omitempty"`
	// Revision is the correction Document is: 0 as committed, n after n
	// corrections (invx review correct).
	Revision int             `json:"revision"`
	Document json.RawMessage `json:"document"`

	// corrected maps each fact a revision set to the latest such revision.
	corrected map[string]int
}

// showRevision is one correction of the result: who, when, why, and each
// field's old and new value (an IBAN masked unless --reveal).
type showRevision struct {
	Revision  int                 `json:"revision"`
	CreatedAt string              `json:"created_at"`
	Actor     string              `json:"actor"`
	Reason    string              `json:"reason"`
	Changes   []store.FieldChange `json:"changes"`
}

type showJob struct {
	JobKey          string        `json:"job_key"`
	Tenant          string        `json:"tenant"`
	State           string        `json:"state"`
	SourceSystem    string        `json:"source_system"`
	SourcePath      string        `json:"source_path"`
	DisplayPath     string        `json:"display_path,omitempty"`
	SourceDigest    string        `json:"source_digest"`
	SourceEncoding  string        `json:"source_encoding,omitempty"`
	SourceFormat    string        `json:"source_format,omitempty"`
	Route           string        `json:"route,omitempty"`
	SchemaVersion   string        `json:"schema_version"`
	Transformation  string        `json:"transformation"`
	Attempts        int           `json:"attempt_count"`
	LeaseRecoveries int           `json:"lease_recoveries"`
	HeldReason      string        `json:"held_reason,omitempty"`
	PrevJobKey      string        `json:"prev_job_key,omitempty"`
	LastErrorClass  string        `json:"last_error_class,omitempty"`
	LastCategory    string        `json:"last_category,omitempty"`
	LastError       string        `json:"last_error,omitempty"`
	NextAttemptAt   string        `json:"next_attempt_at,omitempty"`
	CreatedAt       string        `json:"created_at"`
	UpdatedAt       string        `json:"updated_at"`
	Text            string        `json:"text,omitempty"`
	AttemptList     []showAttempt `json:"attempts"`
	Result          *showResult   `json:"result"`
	// Revisions are the result's corrections, oldest first ([] when
	// none); OpenReasons its open review reasons.
	Revisions   []showRevision `json:"revisions"`
	OpenReasons []string       `json:"open_reasons,omitempty"`
}

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func showRun(ctx context.Context, f *Factory, opts *ShowOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	job, err := findJob(ctx, st, f.Tenant, opts.Ref)
	if errors.Is(err, store.ErrNotFound) {
		// A file that was skipped has no job, but invx review lists it.
		if skipped, serr := findSkipped(ctx, st, f.Tenant, opts.Ref); serr != nil || len(skipped) > 0 {
			if serr != nil {
				return serr
			}
			return showSkipped(f, opts, skipped)
		}
	}
	if err != nil {
		return err
	}
	atts, err := st.ListAttempts(ctx, &store.ListAttemptsParams{JobID: job.ID})
	if err != nil {
		return err
	}
	out := showJob{JobKey: job.JobKey, Tenant: job.Tenant, State: job.State, SourceSystem: job.SourceSystem,
		SourcePath: job.SourcePath, DisplayPath: job.DisplayPath, SourceDigest: job.SourceDigest, SourceEncoding: job.SourceEncoding,
		SourceFormat: job.SourceFormat, Route: job.Route,
		SchemaVersion: job.SchemaVersion, Transformation: job.Transformation, Attempts: job.Attempts, LeaseRecoveries: job.LeaseRecoveries,
		HeldReason: job.HeldReason, PrevJobKey: job.PrevJobKey, LastErrorClass: job.LastErrorClass,
		LastCategory: job.LastCategory, LastError: job.LastError, NextAttemptAt: ts(job.NextAttemptAt),
		CreatedAt: ts(job.CreatedAt), UpdatedAt: ts(job.UpdatedAt), AttemptList: []showAttempt{}, Revisions: []showRevision{}}
	if opts.Text {
		out.Text = job.SourceText
	}
	for _, a := range atts {
		out.AttemptList = append(out.AttemptList, showAttempt{No: a.AttemptNo, Outcome: cmp.Or(a.Outcome, "in_flight"),
			ErrorClass: a.ErrorClass, Category: a.Category, Message: a.Message, Provider: a.Provider, Model: a.Model,
			HTTPStatus: a.HTTPStatus, RequestID: a.RequestID, DurationMS: a.Duration.Milliseconds(),
			InputTokens: a.InputTokens, OutputTokens: a.OutputTokens, RunID: a.RunID, LeaseToken: a.LeaseToken,
			StartedAt: ts(a.StartedAt)})
	}
	res, err := st.GetResult(ctx, &store.GetResultParams{Tenant: job.Tenant, JobKey: job.JobKey})
	switch {
	case err == nil:
		doc := json.RawMessage(res.JSON)
		if !opts.Reveal {
			var iban string
			if doc, iban, err = maskedDocument(res.SchemaVersion, res.JSON); err != nil {
				return fmt.Errorf("show result of job %s: %w", shortKey(job.JobKey), err)
			}
			if iban != "" && out.Text != "" {
				out.Text, _ = schema.MaskIBANIn(out.Text, iban)
			}
		}
		out.Result = &showResult{ID: res.ID, SchemaVersion: res.SchemaVersion, CommittedAt: ts(res.CommittedAt),
			RunID: res.RunID, Shadow: res.Shadow, Revision: res.Revision, Document: doc}
		if out.Revisions, err = showRevisions(ctx, st, job, opts.Reveal); err != nil {
			return err
		}
		out.Result.corrected = map[string]int{}
		for _, r := range out.Revisions {
			for _, ch := range r.Changes {
				out.Result.corrected[ch.Field] = r.Revision
			}
		}
		open, err := openReasonsOf(ctx, st, job)
		if err != nil {
			return err
		}
		for _, it := range open {
			out.OpenReasons = append(out.OpenReasons, it.Reason)
		}
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	renderJob(f.IO.Out, &out)
	return nil
}

// findJob finds the one job a person means by ref: a job key or a unique
// key prefix, else a path: the source path relative to the walked folder or
// the path as named to invx run, as given, absolute, or any tail of it
// ("fixtures/invoices/a.txt" finds the job stored as "a.txt" when the
// folder was the root of the walk). Longer tails are tried first, so the
// most specific path wins. A path that matches more than one job (two
// nightly folders, or a text that changed) is a usage error listing the
// candidates: picking one would be a guess.
func findJob(ctx context.Context, st store.Store, tenant, ref string) (*store.Job, error) {
	if store.IsKeyPrefix(ref) {
		job, err := st.GetJob(ctx, &store.GetJobParams{Tenant: tenant, Ref: ref})
		if err == nil || !errors.Is(err, store.ErrNotFound) {
			return job, err
		}
	}
	for _, path := range pathCandidates(ref) {
		jobs, err := st.FindJobs(ctx, &store.FindJobsParams{Tenant: tenant, Path: path, Limit: maxCandidates + 1})
		if err != nil {
			return nil, err
		}
		switch {
		case len(jobs) == 1:
			return st.GetJob(ctx, &store.GetJobParams{Tenant: tenant, Ref: jobs[0].JobKey})
		case len(jobs) > 1:
			return nil, ambiguousJob(ref, jobs)
		}
	}
	return nil, fmt.Errorf("no job %q for tenant %s: %w", ref, tenant, store.ErrNotFound)
}

// maxCandidates caps the jobs an ambiguous reference lists.
const maxCandidates = 20

// pathCandidates are the paths ref may name, most specific first: as given,
// cleaned, absolute, then every tail of the absolute path, longest first.
func pathCandidates(ref string) []string {
	var out []string
	add := func(p string) {
		if p != "" && p != "." && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(ref)
	add(filepath.Clean(ref))
	add(filepath.ToSlash(filepath.Clean(ref)))
	abs, err := filepath.Abs(ref)
	if err != nil {
		return out
	}
	add(abs)
	var dirs []string
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == filepath.Dir(dir) {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if rel, err := filepath.Rel(dirs[i], abs); err == nil {
			add(filepath.ToSlash(rel))
		}
	}
	return out
}

// ambiguousJob lists the jobs a path matches (key, state, time, path), newest
// first, with a Try line naming the newest by its key.
func ambiguousJob(ref string, jobs []*store.Job) error {
	var b strings.Builder
	more := len(jobs) > maxCandidates
	if more {
		jobs = jobs[:maxCandidates]
	}
	fmt.Fprintf(&b, "%s matches %d jobs; name one by its key:\n", displayPath(ref), len(jobs))
	// The path comes last: it is the long, variable column.
	tp := newTable(&b, true, "KEY", "STATE", "UPDATED", "PATH")
	for _, j := range jobs {
		tp.addRow(shortKey(j.JobKey), j.State, jobTime(j).UTC().Format(time.RFC3339), jobPath(j))
	}
	_ = tp.render() // a strings.Builder does not fail
	msg := strings.TrimRight(b.String(), "\n")
	if more {
		msg += fmt.Sprintf("\n(the newest %d; there are more)", maxCandidates)
	}
	return &usageError{err: errors.New(msg), try: "invx show " + shortKey(jobs[0].JobKey)}
}

// jobPath is the path a person named a job by: the folder as given to invx
// run joined with the file's path in it, or, for jobs enqueued before invx
// kept that, the path relative to the folder.
func jobPath(j *store.Job) string { return cmp.Or(j.DisplayPath, j.SourcePath) }

func renderJob(w io.Writer, j *showJob) {
	p := func(label, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-16s%s\n", label, v)
		}
	}
	p("job", j.JobKey)
	p("tenant", j.Tenant)
	p("state", j.State)
	p("source", displayPath(cmp.Or(j.DisplayPath, j.SourcePath)))
	p("source system", displayPath(j.SourceSystem))
	p("digest", j.SourceDigest)
	p("encoding", j.SourceEncoding)
	p("format", j.SourceFormat)
	p("route", j.Route)
	p("schema", j.SchemaVersion)
	p("held", j.HeldReason)
	p("previous job", j.PrevJobKey)
	if j.LastErrorClass != "" || j.LastCategory != "" {
		p("last error", cmp.Or(j.LastCategory, j.LastErrorClass)+": "+j.LastError)
	}
	p("next attempt", j.NextAttemptAt)
	p("created", j.CreatedAt)
	p("updated", j.UpdatedAt)
	fmt.Fprintf(w, "%-16s%d\n", "attempts", len(j.AttemptList))
	for _, a := range j.AttemptList {
		line := fmt.Sprintf("  #%d %-13s %-8s %6dms  run %s", a.No, a.Outcome, a.Provider, a.DurationMS, a.RunID)
		if a.ErrorClass != "" {
			line += "  class " + a.ErrorClass
		}
		if a.Message != "" {
			line += "  " + a.Message
		}
		fmt.Fprintln(w, line)
	}
	if len(j.OpenReasons) > 0 {
		p("review", strings.Join(j.OpenReasons, ", ")+" (open: invx review)")
	}
	if j.Result != nil {
		renderResult(w, j.Result)
	}
	renderRevisions(w, j)
	if j.Text != "" {
		fmt.Fprintf(w, "text\n%s\n", j.Text)
	}
}

// showSkippedFile is invx show --json of a skipped file.
type showSkippedFile struct {
	Tenant       string `json:"tenant"`
	State        string `json:"state"` // always "skipped"
	SourceSystem string `json:"source_system"`
	SourcePath   string `json:"source_path"`
	Reason       string `json:"reason"`
	Detail       string `json:"detail,omitempty"`
	Size         int64  `json:"size"`
	RunID        string `json:"run_id"`
	FirstSeen    string `json:"first_seen"`
	LastSeen     string `json:"last_seen"`
}

// showSkipped prints files that runs found but could not process.
func showSkipped(f *Factory, opts *ShowOptions, skipped []store.SkippedInput) error {
	out := make([]showSkippedFile, len(skipped))
	for i, in := range skipped {
		out[i] = showSkippedFile{Tenant: in.Tenant, State: stateSkipped, SourceSystem: in.SourceSystem, SourcePath: in.Path,
			Reason: in.Reason, Detail: in.Detail, Size: in.Size, RunID: in.RunID, FirstSeen: ts(in.FirstSeen), LastSeen: ts(in.LastSeen)}
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if len(out) == 1 {
			return enc.Encode(out[0])
		}
		return enc.Encode(out)
	}
	w := f.IO.Out
	for i, s := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		p := func(label, v string) {
			if v != "" {
				fmt.Fprintf(w, "%-16s%s\n", label, v)
			}
		}
		p("state", "skipped: no job, the file was not processed")
		p("tenant", s.Tenant)
		p("source", displayPath(s.SourcePath))
		p("source system", displayPath(s.SourceSystem))
		p("reason", s.Reason)
		p("detail", s.Detail)
		fmt.Fprintf(w, "%-16s%d bytes\n", "size", s.Size)
		p("first seen", s.FirstSeen)
		p("last seen", s.LastSeen+" (run "+s.RunID+")")
		fmt.Fprintf(w, "%-16s%s\n", "resolve", "fix the file and run again, or invx review dismiss PATH --reason TEXT")
	}
	return nil
}

// renderResult prints a committed result: invoice-v2 as facts and tables
// (renderV2), other versions as indented JSON.
func renderResult(w io.Writer, r *showResult) {
	shadow := ""
	if r.Shadow {
		shadow = ", shadow (publishes nothing)"
	}
	rev := ""
	if r.Revision > 0 {
		rev = fmt.Sprintf(", revision %d", r.Revision)
	}
	fmt.Fprintf(w, "%-16sid %d, %s, committed %s%s%s\n", "result", r.ID, r.SchemaVersion, r.CommittedAt, rev, shadow)
	if r.SchemaVersion == schema.V2 {
		if d, err := schema.DecodeStoredV2(r.Document); err == nil {
			renderV2(w, d, r.corrected)
			return
		}
	}
	var buf bytes.Buffer
	if json.Indent(&buf, r.Document, "  ", "  ") == nil {
		fmt.Fprintf(w, "  %s\n", buf.String())
	}
}
