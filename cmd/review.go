package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/invx/invx/review"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// ReviewOptions are the flags of invx review.
type ReviewOptions struct {
	JSON bool
	// Reason keeps one kind of entry: a review reason, a job state (held,
	// failed, rejected) or skipped.
	Reason string
}

func newCmdReview(f *Factory, runF func(context.Context, *ReviewOptions) error) *cobra.Command {
	opts := &ReviewOptions{}
	c := &cobra.Command{
		Use:   "review",
		Short: "List the documents that need a person, and resolve them",
		Long: `Review lists everything of the tenant that needs a person. First the open
review reasons of committed results, grouped, oldest first in each group:

  possible_duplicate  another committed result has the same supplier and
                      invoice number (a rescan or a resend): the other
                      job's key and path, whether totals and dates agree
  incomplete          a field the tenant's policy requires is null: the
                      missing fields
  arithmetic          sums or dates that do not add up: the messages

A result with an open reason holds its outbox events until it is resolved:
invx review accept KEY (release them), invx review correct KEY --set
FIELD=VALUE --reason TEXT (store a corrected revision) or invx review
dismiss KEY --reason TEXT (cancel them). Then the jobs and files:

  rejected  the provider's answer failed validation: the category and the
            validation message
  failed    the provider call failed for good: the error class and message
  held      the document's text changed after its earlier text was
            committed (an identity conflict): the job key of the committed
            text, the old and the new digest and the path
  skipped   a file invx run found but could not process (not a regular
            file, over --max-bytes, binary, not decodable in --encoding,
            unreadable): the path and the reason; no job exists for it

Resolve them with invx retry KEY (rejected, failed), invx review accept KEY
(held: process the new text, superseding the old result) or invx review
dismiss KEY|PATH --reason TEXT (any of them: close it without a result). A
skipped file also leaves the list when a later run processes its path (fix
the file, or rerun with --max-bytes or --encoding).

The list goes to stdout: aligned columns on a terminal, tab-separated when
piped, a JSON array with --json. Columns: KEY, STATE (the reason, the job
state or skipped), PATH, ATTEMPTS, REASON, AGE, then the values a clerk
decides on: SCHEMA, SUPPLIER, NUMBER, DATE (issue date, v2) and TOTAL (a
decimal with its currency); "-" where there is none. The IBAN is never
printed. --reason keeps one kind. Exit status 3 when anything needs review,
0 (and "nothing needs review" on stderr) when nothing does.`,
		Example: `  invx review
  invx review --reason possible_duplicate
  invx review --json | jq -r '.[] | select(.state == "held") | .job_key'
  invx review correct 3f2a9c1e --set total=5385.35 --reason "total from the PDF"
  invx review accept 3f2a9c1e
  invx review dismiss de_gutschrift.txt --reason "duplicate sent by the supplier"
  invx review dismiss scans/cover-sheet.pdf.txt --reason "not an invoice"`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{err: fmt.Errorf("review: unknown subcommand %q", args[0]), try: "invx review --help"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkReviewKind(opts.Reason); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return reviewRun(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the list as a JSON array")
	c.Flags().StringVar(&opts.Reason, "reason", "", "list only one kind: "+strings.Join(review.Kinds, ", "))
	c.AddCommand(newCmdReviewAccept(f, nil), newCmdReviewDismiss(f, nil), newCmdReviewCorrect(f, nil), newCmdReviewServe(f, nil))
	return c
}

func reviewRun(ctx context.Context, f *Factory, opts *ReviewOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	items, err := review.Queue(ctx, st, f.Tenant, opts.Reason)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		if opts.JSON {
			if err := printJSON(f.IO.Out, items); err != nil {
				return err
			}
		}
		fmt.Fprintln(f.IO.ErrOut, "nothing needs review")
		return nil
	}
	if opts.JSON {
		if err := printJSON(f.IO.Out, items); err != nil {
			return err
		}
	} else {
		// The clerk's values come after the columns invx review always
		// had, so scripts that cut piped output by position keep working.
		tp := newTable(f.IO.Out, f.IO.OutTTY, "KEY", "STATE", "PATH", "ATTEMPTS", "REASON", "AGE",
			"SCHEMA", "SUPPLIER", "NUMBER", "DATE", "TOTAL")
		// A path is cut at its start: the file name tells rows apart.
		tp.capColumnLeft(2, 48)
		tp.capColumn(4, 90)
		tp.capColumn(7, 32)
		for i := range items {
			it := &items[i]
			key, attempts := shortKey(it.JobKey), fmt.Sprint(it.Attempts)
			if it.State == review.KindSkipped {
				key, attempts = "-", "-"
			}
			tp.addRow(append([]string{key, it.State, it.SourcePath, attempts, it.Why(), humanAge(f.Now(), it.Opened)},
				valueCells(it)...)...)
		}
		if err := tp.render(); err != nil {
			return err
		}
	}
	counts := map[string]int{}
	docs := map[string]bool{}
	for _, it := range items {
		counts[it.State]++
		docs[it.JobKey+"\x00"+it.SourceSystem+"\x00"+it.SourcePath] = true
	}
	fmt.Fprintf(f.IO.ErrOut, "%d document(s) need review (%s): invx show KEY, invx retry KEY, "+
		"invx review accept KEY, invx review correct KEY --set FIELD=VALUE --reason TEXT, "+
		"invx review dismiss KEY|PATH --reason TEXT\n", len(docs), reviewListCounts(counts))
	return &needsReviewError{n: len(docs)}
}

// stateSkipped marks a review entry that is a skipped file, not a job.
const stateSkipped = review.KindSkipped

// reviewCounts says what needs review; skipped files only when there are.
func reviewCounts(rejected, failed, held, skipped int) string {
	s := fmt.Sprintf("rejected %d, failed %d, held %d", rejected, failed, held)
	if skipped > 0 {
		s += fmt.Sprintf(", skipped %d", skipped)
	}
	return s
}

// reviewListCounts is reviewCounts of invx review's entries, with the open
// review reasons when there are.
func reviewListCounts(counts map[string]int) string {
	s := reviewCounts(counts[store.StateRejected], counts[store.StateFailed], counts[store.StateHeld], counts[stateSkipped])
	for _, k := range review.Reasons {
		if counts[k] > 0 {
			s += fmt.Sprintf(", %s %d", k, counts[k])
		}
	}
	return s
}

// ReviewAcceptOptions are the flags of invx review accept.
type ReviewAcceptOptions struct {
	Ref  string
	Work WorkOptions
	// Actor and Note are kept with accepted review reasons.
	Actor, Note string
}

func newCmdReviewAccept(f *Factory, runF func(context.Context, *ReviewAcceptOptions) error) *cobra.Command {
	opts := &ReviewAcceptOptions{}
	c := &cobra.Command{
		Use:   "accept KEY|PATH",
		Short: "Accept a committed result's review reasons, or process a held document's changed text",
		Long: `For a committed result with open review reasons (possible_duplicate,
incomplete, arithmetic), accept closes them as accepted, keeping who
(--actor, default $USER) and --note, and releases the result's held outbox
events: invoice.committed and its actions are delivered by the next invx
outbox deliver. Nothing is processed again.

For a held job (a document whose text changed after its earlier text was
committed) accept releases it and processes it right away, as invx run
would, with the provider flags given here. Other queued jobs of the tenant
are worked too.

When the new text commits, the old result stays in the database marked
superseded by the new one: invx export shows only the new one, and the old
result's outbox events are not sent again.

KEY is a job key, a unique key prefix (at least 8 hex digits) or the
document's path. Exit status 3 when the new text is rejected or fails.`,
		Example: `  invx review accept 3f2a9c1e --note "resend of RE-2026-00417, paid once"
  invx review accept de_gutschrift.txt --provider openai --model gpt-4.1-mini`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("review accept: want exactly one KEY or PATH"), try: "invx review accept 3f2a9c1e"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if err := opts.Work.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return reviewAcceptRun(c.Context(), f, opts)
		},
	}
	addWorkFlags(c.Flags(), &opts.Work)
	c.Flags().StringVar(&opts.Actor, "actor", "", "who accepts review reasons (default $USER)")
	c.Flags().StringVar(&opts.Note, "note", "", "why the reasons are accepted, kept with them")
	return c
}

func reviewAcceptRun(ctx context.Context, f *Factory, opts *ReviewAcceptOptions) error {
	note, err := reviewText("review accept", "--note", opts.Note, false, "")
	if err != nil {
		return err
	}
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	job, err := findJob(ctx, st, f.Tenant, opts.Ref)
	if err != nil {
		return err
	}
	open, err := openReasonsOf(ctx, st, job)
	if err != nil {
		return err
	}
	if len(open) > 0 {
		return acceptReasons(ctx, f, st, job, open, opts.Actor, note)
	}
	// Check the provider before releasing the job: a missing key must not
	// leave the job queued behind a failed command.
	if _, _, err := f.providerFor(&opts.Work.Provider); err != nil {
		return err
	}
	if job.State != store.StateHeld {
		hint := ""
		switch job.State {
		case store.StateRejected, store.StateFailed:
			hint = " (to try it again: invx retry " + shortKey(job.JobKey) + ")"
		}
		return fmt.Errorf("review accept: job %s is %s, not held%s", shortKey(job.JobKey), job.State, hint)
	}
	if _, err := schema.Lookup(job.SchemaVersion); err != nil {
		return fmt.Errorf("review accept: job %s: %w", shortKey(job.JobKey), err)
	}
	err = st.ReleaseHeld(ctx, &store.JobActionParams{Tenant: job.Tenant, JobKey: job.JobKey, Reason: "accepted in review", Now: f.Now()})
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("review accept: job %s is no longer held (someone else resolved it?): %w", shortKey(job.JobKey), err)
		}
		return err
	}
	errOut := f.IO.ErrOut
	fmt.Fprintf(errOut, "accepted %s (%s): processing the new text\n", shortKey(job.JobKey), displayPath(job.SourcePath))
	out, err := workQueue(ctx, f, st, &opts.Work, []string{job.JobKey})
	if err != nil {
		return err
	}
	if !opts.Work.Quiet || out.needsReview() > 0 {
		renderWork(errOut, out)
	}
	after, err := st.GetJob(context.WithoutCancel(ctx), &store.GetJobParams{Tenant: job.Tenant, Ref: job.JobKey})
	if err != nil {
		return err
	}
	switch after.State {
	case store.StateSucceeded:
		msg := fmt.Sprintf("committed %s", shortKey(after.JobKey))
		if job.PrevJobKey != "" {
			msg += fmt.Sprintf("; the result of %s is superseded", shortKey(job.PrevJobKey))
		}
		fmt.Fprintln(errOut, msg)
		return nil
	case store.StateRejected, store.StateFailed, store.StateHeld:
		fmt.Fprintf(errOut, "%s is %s: invx show %s\n", shortKey(after.JobKey), after.State, shortKey(after.JobKey))
		return &needsReviewError{n: 1}
	default:
		fmt.Fprintf(errOut, "%s is %s: run invx run or invx retry again to carry on\n", shortKey(after.JobKey), after.State)
		return nil
	}
}

// ReviewDismissOptions are the flags of invx review dismiss.
type ReviewDismissOptions struct {
	Ref    string
	Reason string
	// Actor is kept with dismissed review reasons.
	Actor string
}

func newCmdReviewDismiss(f *Factory, runF func(context.Context, *ReviewDismissOptions) error) *cobra.Command {
	opts := &ReviewDismissOptions{}
	c := &cobra.Command{
		Use:   "dismiss KEY|PATH --reason TEXT",
		Short: "Close a result's review reasons without delivery, or a rejected, failed or held job, or a skipped file",
		Long: `For a committed result with open review reasons (possible_duplicate,
incomplete, arithmetic), dismiss closes them as dismissed, keeping who
(--actor, default $USER) and --reason: the result's held outbox events are
cancelled and never delivered, and one invoice.dismissed event is queued
instead. The result stays on record (invx show) and in invx export.

Otherwise dismiss closes a job that needs review without producing a
result: its state becomes dismissed, the reason is kept with it, and it
leaves the review list. Its text and attempts stay on record (invx show). A held job's old
result stays current.

A PATH that invx review lists as skipped (a file that could not be
processed) is dismissed the same way: it leaves the list with the reason
kept, and comes back if a later run skips it again.

KEY is a job key, a unique key prefix (at least 8 hex digits) or the
document's path. --reason is required: say why, for whoever looks next.`,
		Example: `  invx review dismiss 3f2a9c1e --reason "not an invoice: a delivery note"
  invx review dismiss de_gutschrift.txt --reason "duplicate sent by the supplier"
  invx review dismiss /data/invoices/scan-0042.txt --reason "a photo; keyed in by hand"`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("review dismiss: want exactly one KEY or PATH"),
					try: `invx review dismiss 3f2a9c1e --reason "not an invoice"`}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = args[0]
			opts.Reason = strings.TrimSpace(opts.Reason)
			if opts.Reason == "" {
				return &usageError{err: errors.New("review dismiss: --reason is required"),
					try: `invx review dismiss ` + args[0] + ` --reason "not an invoice"`}
			}
			if len(opts.Reason) > 1000 {
				return &usageError{err: errors.New("review dismiss: --reason is longer than 1000 bytes")}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return reviewDismissRun(c.Context(), f, opts)
		},
	}
	c.Flags().StringVar(&opts.Reason, "reason", "", "why the job needs no result (required)")
	c.Flags().StringVar(&opts.Actor, "actor", "", "who dismisses review reasons (default $USER)")
	return c
}

func reviewDismissRun(ctx context.Context, f *Factory, opts *ReviewDismissOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	// A skipped file is looked for first: its path may also name an older
	// job (committed before the file went bad), which is not what the
	// review list showed.
	skipped, err := findSkipped(ctx, st, f.Tenant, opts.Ref)
	if err != nil {
		return err
	}
	switch len(skipped) {
	case 0:
	case 1:
		in := skipped[0]
		err := st.DismissSkipped(ctx, &store.DismissSkippedParams{Tenant: in.Tenant, SourceSystem: in.SourceSystem,
			Path: in.Path, Reason: opts.Reason, Now: f.Now()})
		if err != nil {
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "dismissed skipped file %s (%s)\n", displayPath(in.Path), in.Reason)
		return nil
	default:
		var where []string
		for _, in := range skipped {
			where = append(where, displayPath(skippedLocation(&in)))
		}
		return &usageError{err: fmt.Errorf("review dismiss: %q names %d skipped files: %s", opts.Ref, len(skipped), strings.Join(where, ", ")),
			try: `invx review dismiss ` + skippedLocation(&skipped[0]) + ` --reason "not an invoice"`}
	}
	job, err := findJob(ctx, st, f.Tenant, opts.Ref)
	if err != nil {
		return err
	}
	open, err := openReasonsOf(ctx, st, job)
	if err != nil {
		return err
	}
	if len(open) > 0 {
		return dismissReasons(ctx, f, st, job, open, opts.Actor, opts.Reason)
	}
	err = st.Dismiss(ctx, &store.JobActionParams{Tenant: job.Tenant, JobKey: job.JobKey, Reason: opts.Reason, Now: f.Now()})
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("review dismiss: job %s is %s: only rejected, failed or held jobs can be dismissed",
			shortKey(job.JobKey), job.State)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.ErrOut, "dismissed %s (%s)\n", shortKey(job.JobKey), displayPath(job.SourcePath))
	return nil
}

// skippedLocation is where a skipped file is on disk when its source system
// is a walked folder ("fs:/abs/dir"), else its stored path.
func skippedLocation(in *store.SkippedInput) string {
	if dir, ok := strings.CutPrefix(in.SourceSystem, "fs:"); ok && filepath.IsAbs(dir) {
		return filepath.Join(dir, filepath.FromSlash(in.Path))
	}
	return in.Path
}

// findSkipped returns the tenant's open skipped files that ref names: by
// location on disk (as invx run printed it), else by stored path, else by a
// path relative to one of ref's parent folders (as findJob does).
func findSkipped(ctx context.Context, st store.Store, tenant, ref string) ([]store.SkippedInput, error) {
	open, err := st.ListSkipped(ctx, &store.ListSkippedParams{Tenant: tenant})
	if err != nil || len(open) == 0 {
		return nil, err
	}
	pick := func(match func(*store.SkippedInput) bool) []store.SkippedInput {
		var out []store.SkippedInput
		for i := range open {
			if match(&open[i]) {
				out = append(out, open[i])
			}
		}
		return out
	}
	abs, aerr := filepath.Abs(ref)
	if aerr == nil {
		if m := pick(func(in *store.SkippedInput) bool { return skippedLocation(in) == abs }); len(m) > 0 {
			return m, nil
		}
	}
	slash := filepath.ToSlash(ref)
	if m := pick(func(in *store.SkippedInput) bool { return in.Path == slash }); len(m) > 0 {
		return m, nil
	}
	if aerr != nil {
		return nil, nil
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if rel, err := filepath.Rel(dir, abs); err == nil {
			rel = filepath.ToSlash(rel)
			if m := pick(func(in *store.SkippedInput) bool { return in.Path == rel }); len(m) > 0 {
				return m, nil
			}
		}
		if dir == filepath.Dir(dir) {
			return nil, nil
		}
	}
}
