package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/invx/invx/store"
)

// PruneOptions are the flags of invx prune.
type PruneOptions struct {
	OlderThan  string
	DryRun     bool
	AllTenants bool
	JSON       bool
}

func newCmdPrune(f *Factory, runF func(context.Context, *PruneOptions) error) *cobra.Command {
	opts := &PruneOptions{}
	c := &cobra.Command{
		Use:   "prune --older-than AGE",
		Short: "Remove the document text and attempt details of old finished jobs",
		Long: `Prune applies a retention horizon: for every finished job (succeeded,
rejected, failed or dismissed) that last changed before the horizon, it
removes the stored document text and the details of its attempts (messages
and the rejected answers kept for review). It keeps the jobs, their keys,
their attempt counts and the committed results, so invx export still has
them and a rerun over the same files stays idempotent: no document is
processed again.

Prune works on --tenant's jobs; --all-tenants applies the horizon to every
tenant in the database. Unfinished and held jobs are never pruned. --dry-run reports what would go
and changes nothing. The report goes to stderr, or to stdout as one JSON
object with --json.`,
		Example: `  invx prune --older-than 90d --dry-run
  invx prune --older-than 90d
  invx prune --older-than 2160h --json`,
		Args: noArgs("prune", "", "invx prune --older-than 90d"),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.OlderThan == "" {
				return &usageError{err: errors.New("prune: --older-than is required"), try: "invx prune --older-than 90d --dry-run"}
			}
			if _, err := parseAge(opts.OlderThan); err != nil {
				return &usageError{err: fmt.Errorf("--older-than %w", err), try: "invx prune --older-than 90d --dry-run"}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return pruneRun(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.OlderThan, "older-than", "", "prune jobs that last changed longer ago than this, such as 90d (required)")
	fl.BoolVar(&opts.AllTenants, "all-tenants", false, "prune every tenant, not only --tenant")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "report what would be removed; change nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print the report as one JSON object on stdout")
	return c
}

// pruneReport is invx prune --json.
type pruneReport struct {
	DryRun      bool   `json:"dry_run"`
	Before      string `json:"before"`
	Jobs        int    `json:"jobs"`
	TextBytes   int64  `json:"text_bytes"`
	Attempts    int    `json:"attempts"`
	OutputBytes int64  `json:"output_bytes"`
}

func pruneRun(ctx context.Context, f *Factory, opts *PruneOptions) error {
	d, _ := parseAge(opts.OlderThan)
	before := f.Now().Add(-d)
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	tenant := f.Tenant
	if opts.AllTenants {
		tenant = ""
	}
	res, err := st.Prune(ctx, &store.PruneParams{Tenant: tenant, Before: before, DryRun: opts.DryRun})
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.Out, pruneReport{DryRun: opts.DryRun, Before: before.UTC().Format(time.RFC3339),
			Jobs: res.Jobs, TextBytes: res.TextBytes, Attempts: res.Attempts, OutputBytes: res.OutputBytes})
	}
	verb := "pruned"
	if opts.DryRun {
		verb = "would prune"
	}
	fmt.Fprintf(f.IO.ErrOut, "%s %d job(s) last changed before %s: %d byte(s) of document text, %d attempt(s), %d byte(s) of attempt output\n",
		verb, res.Jobs, before.UTC().Format(time.RFC3339), res.TextBytes, res.Attempts, res.OutputBytes)
	if opts.DryRun {
		fmt.Fprintln(f.IO.ErrOut, "dry run: nothing was changed")
	}
	return nil
}
