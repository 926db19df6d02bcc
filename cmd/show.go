package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/invx/invx/store"
)

// ShowOptions are the flags of invx show.
type ShowOptions struct {
	Ref  string
	JSON bool
	Text bool
}

func newCmdShow(f *Factory, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{}
	c := &cobra.Command{
		Use:   "show KEY|PATH",
		Short: "Show one job: state, source, every attempt and the committed result",
		Long: `Show prints one job of the tenant, found by its job key, a unique key prefix
(at least 8 hex digits) or its source path (relative to the walked directory,
or as given to invx run). The newest job at a path is shown.

Document text is not printed unless --text is given.`,
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
	ID            int64           `json:"id"`
	SchemaVersion string          `json:"schema_version"`
	CommittedAt   string          `json:"committed_at"`
	RunID         string          `json:"run_id"`
	Shadow        bool            `json:"shadow,omitempty"`
	Document      json.RawMessage `json:"document"`
}

type showJob struct {
	JobKey          string        `json:"job_key"`
	Tenant          string        `json:"tenant"`
	State           string        `json:"state"`
	SourceSystem    string        `json:"source_system"`
	SourcePath      string        `json:"source_path"`
	SourceDigest    string        `json:"source_digest"`
	SourceEncoding  string        `json:"source_encoding,omitempty"`
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
	atts, err := st.ListAttempts(ctx, job.ID)
	if err != nil {
		return err
	}
	out := showJob{JobKey: job.JobKey, Tenant: job.Tenant, State: job.State, SourceSystem: job.SourceSystem,
		SourcePath: job.SourcePath, SourceDigest: job.SourceDigest, SourceEncoding: job.SourceEncoding, SchemaVersion: job.SchemaVersion,
		Transformation: job.Transformation, Attempts: job.Attempts, LeaseRecoveries: job.LeaseRecoveries,
		HeldReason: job.HeldReason, PrevJobKey: job.PrevJobKey, LastErrorClass: job.LastErrorClass,
		LastCategory: job.LastCategory, LastError: job.LastError, NextAttemptAt: ts(job.NextAttemptAt),
		CreatedAt: ts(job.CreatedAt), UpdatedAt: ts(job.UpdatedAt), AttemptList: []showAttempt{}}
	if opts.Text {
		out.Text = job.SourceText
	}
	for _, a := range atts {
		out.AttemptList = append(out.AttemptList, showAttempt{No: a.AttemptNo, Outcome: firstNonEmpty(a.Outcome, "in_flight"),
			ErrorClass: a.ErrorClass, Category: a.Category, Message: a.Message, Provider: a.Provider, Model: a.Model,
			HTTPStatus: a.HTTPStatus, RequestID: a.RequestID, DurationMS: a.Duration.Milliseconds(),
			InputTokens: a.InputTokens, OutputTokens: a.OutputTokens, RunID: a.RunID, LeaseToken: a.LeaseToken,
			StartedAt: ts(a.StartedAt)})
	}
	res, err := st.GetResult(ctx, job.Tenant, job.JobKey)
	switch {
	case err == nil:
		out.Result = &showResult{ID: res.ID, SchemaVersion: res.SchemaVersion, CommittedAt: ts(res.CommittedAt),
			RunID: res.RunID, Shadow: res.Shadow, Document: res.JSON}
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

// findJob looks a reference up as given, then as a path relative to a
// walked directory: "fixtures/invoices/a.txt" finds the job stored as
// "a.txt" when the directory was the root of the walk.
func findJob(ctx context.Context, st store.Store, tenant, ref string) (*store.Job, error) {
	job, err := st.GetJob(ctx, &store.GetJobParams{Tenant: tenant, Ref: filepath.ToSlash(ref)})
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return job, err
	}
	if abs, aerr := filepath.Abs(ref); aerr == nil {
		for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
			rel, rerr := filepath.Rel(dir, abs)
			if rerr == nil {
				if j, err2 := st.GetJob(ctx, &store.GetJobParams{Tenant: tenant, Ref: filepath.ToSlash(rel)}); err2 == nil {
					return j, nil
				}
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return nil, fmt.Errorf("no job %q for tenant %s: %w", ref, tenant, store.ErrNotFound)
}

func firstNonEmpty(a ...string) string {
	for _, s := range a {
		if s != "" {
			return s
		}
	}
	return ""
}

func renderJob(w io.Writer, j *showJob) {
	p := func(label, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-16s%s\n", label, v)
		}
	}
	p("job", j.JobKey)
	p("tenant", j.Tenant)
	p("state", j.State)
	p("source", displayPath(j.SourcePath))
	p("source system", displayPath(j.SourceSystem))
	p("digest", j.SourceDigest)
	p("encoding", j.SourceEncoding)
	p("schema", j.SchemaVersion)
	p("held", j.HeldReason)
	p("previous job", j.PrevJobKey)
	if j.LastErrorClass != "" || j.LastCategory != "" {
		p("last error", firstNonEmpty(j.LastCategory, j.LastErrorClass)+": "+j.LastError)
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
	if j.Result != nil {
		fmt.Fprintf(w, "%-16sid %d, %s, committed %s\n", "result", j.Result.ID, j.Result.SchemaVersion, j.Result.CommittedAt)
		var buf bytes.Buffer
		if json.Indent(&buf, j.Result.Document, "  ", "  ") == nil {
			fmt.Fprintf(w, "  %s\n", buf.String())
		}
	}
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
