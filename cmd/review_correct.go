package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/invx/invx/review"
	"github.com/invx/invx/schema"
)

// ReviewCorrectOptions are the flags of invx review correct.
type ReviewCorrectOptions struct {
	Ref    string
	Sets   []review.Set
	Reason string
	Actor  string
}

func newCmdReviewCorrect(f *Factory, runF func(context.Context, *ReviewCorrectOptions) error) *cobra.Command {
	opts := &ReviewCorrectOptions{}
	var sets []string
	c := &cobra.Command{
		Use:   "correct KEY|PATH --set FIELD=VALUE ... --reason TEXT",
		Short: "Correct fields of a committed result, keeping who, when, why and the old values",
		Long: `Correct stores a new revision of a job's committed result with the fields
given by --set changed. The latest revision is what invx export, invx show
and the outbox give from then on; every revision keeps who made it
(--actor, default $USER), when, why (--reason) and each field's old and new
value (invx show KEY lists them).

The corrected result is validated like a provider's answer, except that a
corrected fact needs no evidence: a person typed it, so its evidence
becomes null. The completeness and duplicate checks run again on the new
values, and arithmetic that does not add up is a review reason again.
An invoice.corrected event goes to the outbox. When nothing remains open
the job's held events are released with it; otherwise they stay held and
the command exits 3, naming what is still open.

Values, per field:
  FIELD=null             the fact is not stated (not document_type)
  total_minor=538535     amounts in integer minor units (net_minor, tax_minor,
                         total_minor, amount_due_minor) ...
  total=5385.35          ... or as a decimal of the currency under the name
                         without _minor: net, tax, total, amount_due (at most
                         the currency's digits after a dot: EUR 2, JPY 0,
                         BHD 3; no thousands separators)
  issue_date=2026-11-02  dates as YYYY-MM-DD
  document_type=credit_note
                         one of invoice, credit_note, debit_note, receipt,
                         proforma, reminder, other
  supplier_vat_id=DE 123 456 789, supplier_iban=DE89 3704 ...
                         spaces, dots and dashes dropped, upper-cased
  anything else          the text as typed
invoice-summary-v1 results have supplier_name, invoice_number, currency,
total_minor (total) and due_date, also as invoice.total_minor.

An unknown field, a value of the wrong type, a value equal to the current
one or a corrected result that does not validate is a usage error (exit
2); nothing is written.`,
		Example: `  invx review correct 3f2a9c1e --set total=5385.35 --reason "total from the PDF"
  invx review correct scans/acme-417.txt --set total_minor=538535 --set issue_date=2026-11-02 \
      --reason "misread scan" --actor ann
  invx review correct 3f2a9c1e --set po_number=null --reason "not a PO: a delivery note number"`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("review correct: want exactly one KEY or PATH"),
					try: `invx review correct 3f2a9c1e --set total=5385.35 --reason "total from the PDF"`}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = args[0]
			try := `invx review correct ` + args[0] + ` --set total=5385.35 --reason "total from the PDF"`
			if len(sets) == 0 {
				return &usageError{err: errors.New("review correct: give at least one --set FIELD=VALUE"), try: try}
			}
			for _, s := range sets {
				set, err := review.ParseSet(s)
				if err != nil {
					return &usageError{err: fmt.Errorf("review correct: %w", err), try: try}
				}
				opts.Sets = append(opts.Sets, set)
			}
			reason, err := reviewText("review correct", "--reason", opts.Reason, true, try)
			if err != nil {
				return err
			}
			opts.Reason = reason
			if opts.Actor, err = reviewActor(f, "review correct", opts.Actor); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return reviewCorrectRun(c.Context(), f, opts)
		},
	}
	c.Flags().StringArrayVar(&sets, "set", nil, "FIELD=VALUE to correct (repeatable)")
	c.Flags().StringVar(&opts.Reason, "reason", "", "why the values are corrected (required)")
	c.Flags().StringVar(&opts.Actor, "actor", "", "who corrects (default $USER)")
	return c
}

func reviewCorrectRun(ctx context.Context, f *Factory, opts *ReviewCorrectOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	job, err := findJob(ctx, st, f.Tenant, opts.Ref)
	if err != nil {
		return err
	}
	out, err := review.Correct(ctx, st, &review.CorrectJob{Job: job, Sets: opts.Sets, Actor: opts.Actor, Reason: opts.Reason, Now: f.Now()})
	var inErr *review.InputError
	switch {
	case errors.As(err, &inErr):
		return &usageError{err: fmt.Errorf("review correct %s: %w", shortKey(job.JobKey), inErr.Err), try: "invx review correct --help"}
	case errors.Is(err, review.ErrNoResult):
		return fmt.Errorf("review correct: %w", err)
	case err != nil:
		return fmt.Errorf("review correct: %w", err)
	}
	w := f.IO.ErrOut
	if out.Pruned {
		fmt.Fprintf(w, "the text of %s was pruned: evidence is not checked against it\n", shortKey(job.JobKey))
	}
	fmt.Fprintf(w, "corrected %s (%s): revision %d by %s\n", shortKey(job.JobKey), jobPath(job), out.Revision, opts.Actor)
	for _, ch := range out.Changes {
		fmt.Fprintf(w, "  %s: %s -> %s\n", ch.Field, maskChange(ch.Field, ch.Old), maskChange(ch.Field, ch.New))
	}
	if len(out.Open) > 0 {
		fmt.Fprintf(w, "still open: %s (invx review; its events stay held)\n", strings.Join(out.Open, ", "))
		return &needsReviewError{n: 1}
	}
	fmt.Fprintln(w, "nothing open: its held events are released")
	return nil
}

// reviewActor is who acts in review: --actor, else $USER. An audit trail
// needs a name, so without either it is a usage error.
func reviewActor(f *Factory, cmdName, flag string) (string, error) {
	actor := strings.TrimSpace(flag)
	if actor == "" {
		actor = strings.TrimSpace(f.Env("USER"))
	}
	if actor == "" {
		return "", &usageError{err: fmt.Errorf("%s: --actor is required when $USER is not set", cmdName),
			try: "invx " + cmdName + " ... --actor ann"}
	}
	if len(actor) > 200 {
		return "", &usageError{err: fmt.Errorf("%s: --actor is longer than 200 bytes", cmdName)}
	}
	return actor, nil
}

// reviewText checks a --reason or --note: trimmed, at most 1000 bytes,
// required or not.
func reviewText(cmdName, flag, s string, required bool, try string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" && required {
		return "", &usageError{err: fmt.Errorf("%s: %s is required", cmdName, flag), try: try}
	}
	if len(s) > 1000 {
		return "", &usageError{err: fmt.Errorf("%s: %s is longer than 1000 bytes", cmdName, flag)}
	}
	return s, nil
}

// maskChange prints a changed value; an IBAN masked, as every listing does.
func maskChange(field string, v []byte) string {
	s := string(v)
	if field == "supplier_iban" && strings.HasPrefix(s, `"`) {
		return `"` + schema.MaskIBAN(strings.Trim(s, `"`)) + `"`
	}
	return s
}
