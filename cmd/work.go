package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// WorkOnlyOptions are the flags of invx work.
type WorkOnlyOptions struct {
	Work         WorkOptions
	profile      profileOptions
	AllTenants   bool
	Wait         bool
	MaxPerTenant int
	JSON         bool
	// Schema, when set, limits the work to jobs of that schema version.
	Schema string
	// Require is --require: nil, each tenant's review policy applies.
	Require []string
}

func newCmdWork(f *Factory, runF func(context.Context, *WorkOnlyOptions) error) *cobra.Command {
	opts := &WorkOnlyOptions{}
	c := &cobra.Command{
		Use:   "work",
		Short: "Process queued jobs (no discovery): any number may run at once, on any hosts",
		Long: `Work processes jobs that are already queued (by invx run --enqueue-only, or
left by an interrupted run) until the queue is empty; with --wait it keeps
polling for new jobs until Ctrl-C. Any number of invx work processes may
share one database: a PostgreSQL database from many hosts, or one SQLite file
on one host. Each job is leased with a fencing token, so it is committed
exactly once however many workers see it or die.

By default work takes --tenant's jobs; --all-tenants takes every tenant's,
rotating between tenants so one large batch cannot starve a small one
(--max-per-tenant caps one tenant's jobs in flight). Ctrl-C stops claiming;
what is in flight finishes or gives its lease back.

--schema VERSION takes only jobs of that schema version (queued, due for a
retry, or left by a worker that died), so workers built or configured for
one version, such as a model prompted for invoice-v2, leave the others'
jobs alone; without it work takes every version, each job under the
version it was queued with.

--batch sends the jobs through the provider's batch API (openai,
anthropic) at half the price, as invx run --batch does; it first takes
over the batches of workers that died. Two workers never send one job
twice.`,
		Example: `  invx run --enqueue-only /data/invoices/2026-11 && invx work
  invx --db postgres://invx@db/invx work --all-tenants --wait --concurrency 8
  invx work --all-tenants --max-per-tenant 4 --json
  invx work --schema invoice-v2 --provider openai
  invx work --batch --provider anthropic --model claude-sonnet-4-5`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.Work.check(); err != nil {
				return err
			}
			if opts.Schema != "" {
				if err := knownSchema(opts.Schema, "invx work --schema invoice-v2 (invx schema --list names the versions)"); err != nil {
					return err
				}
			}
			req, err := requireFlag(c.Flags(), opts.Require, "invx work --require total_minor,invoice_number")
			if err != nil {
				return err
			}
			opts.Require = req
			if err := opts.Work.batch.check(&opts.Work.Provider, "invx work --batch --provider openai --model gpt-4o-mini"); err != nil {
				return err
			}
			if opts.MaxPerTenant < 0 {
				return &usageError{err: fmt.Errorf("--max-per-tenant %d: want 0 (no cap) or more", opts.MaxPerTenant)}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return profiled(&opts.profile, func() error { return workRun(c.Context(), f, opts) })
		},
	}
	fl := c.Flags()
	addWorkFlags(fl, &opts.Work)
	fl.BoolVar(&opts.AllTenants, "all-tenants", false, "work every tenant's queue, fairly, not only --tenant's")
	fl.BoolVar(&opts.Wait, "wait", false, "keep polling for new jobs when the queue is empty (until Ctrl-C)")
	fl.IntVar(&opts.MaxPerTenant, "max-per-tenant", 0, "cap one tenant's jobs in flight in this process (0: no cap)")
	fl.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object on stdout")
	fl.StringVar(&opts.Schema, "schema", "", "work only jobs of this schema version, "+schemaChoices()+" (default: every version)")
	addRequireFlag(fl, &opts.Require)
	addBatchFlags(fl, &opts.Work.batch)
	addProfileFlags(fl, &opts.profile)
	return c
}

func workRun(ctx context.Context, f *Factory, opts *WorkOnlyOptions) error {
	st, err := f.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	w := opts.Work
	w.allTenants, w.wait, w.maxPerTenant, w.command, w.schema = opts.AllTenants, opts.Wait, opts.MaxPerTenant, "work", opts.Schema
	w.require = opts.Require
	out, err := workQueue(ctx, f, st, &w, nil)
	if err != nil {
		if errors.As(err, new(interruptedError)) && opts.Wait {
			// Ctrl-C is how a waiting worker is meant to stop.
			return nil
		}
		return err
	}
	if opts.JSON {
		if err := json.NewEncoder(f.IO.Out).Encode(out.Summary); err != nil {
			return err
		}
	} else if !w.Quiet {
		renderWork(f.IO.ErrOut, out)
	}
	if w.batch.Detach && !opts.JSON {
		if err := printDetached(f, out.batch); err != nil {
			return err
		}
	}
	rej := 0
	for _, n := range out.Summary.RejectedNow {
		rej += n
	}
	// Results it committed with a reason still open need a person too.
	if n := rej + out.Summary.FailedNow + out.Summary.Final.Review; n > 0 {
		return &needsReviewError{n: n}
	}
	return nil
}
