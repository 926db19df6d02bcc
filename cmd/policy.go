package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/invx/invx/review"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// addRequireFlag declares --require on a command that commits results
// (invx run, invx work).
func addRequireFlag(fl *pflag.FlagSet, require *[]string) {
	fl.StringSliceVar(require, "require", nil,
		"fields a result must have to be paid, for this run (default: the tenant's policy, see invx policy show)")
}

// requireFlag is --require checked: nil when not given (the tenant's
// policy applies), else the fields, trimmed and without repeats. An
// unknown field or an empty list is a usage error: a typo must not
// silently require nothing.
func requireFlag(fl *pflag.FlagSet, given []string, try string) ([]string, error) {
	if !fl.Changed("require") {
		return nil, nil
	}
	var out []string
	for _, f := range given {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, &usageError{err: fmt.Errorf("--require: name at least one field (fields: %s)",
			strings.Join(review.Requirable(schema.V2), ", ")), try: try}
	}
	if err := review.CheckRequire(out); err != nil {
		return nil, &usageError{err: fmt.Errorf("--require: %w", err), try: try}
	}
	return out, nil
}

func newCmdPolicy(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "Show or set the tenant's review policy: the fields a result needs to be paid",
		Long: `A committed result with a required field left null (no total, no invoice
number, ...) is committed as incomplete: it is listed by invx review, its
invoice.committed event is held, and the run exits 3 until a clerk accepts,
corrects or dismisses it.

Which fields are required: invx run/work --require for one run, else the
tenant's stored policy (invx policy set), else the schema version's
default (invx policy show lists them). A policy is one list for every
schema version; a field a version does not have is not checked for it.`,
		Example: `  invx policy show
  invx --tenant acme policy set --require invoice_number,issue_date,currency,total_minor,po_number`,
		Args: noArgs("policy", "", "invx policy show"),
	}
	c.AddCommand(newCmdPolicySet(f, nil), newCmdPolicyShow(f, nil))
	return c
}

// PolicySetOptions are the flags of invx policy set.
type PolicySetOptions struct {
	Require []string
	Actor   string
}

func newCmdPolicySet(f *Factory, runF func(context.Context, *PolicySetOptions) error) *cobra.Command {
	opts := &PolicySetOptions{}
	c := &cobra.Command{
		Use:   "set --require FIELD,...",
		Short: "Store the fields the tenant's results must have to be paid (replaces the policy)",
		Long: `Set stores the tenant's review policy, replacing the one stored before. It
applies to results committed from then on (a running invx work --wait sees
it within a minute); results already committed keep their reasons.
--actor (default $USER) is recorded with it.`,
		Example: `  invx policy set --require document_type,supplier_name,invoice_number,issue_date,currency,total_minor,po_number
  invx --tenant acme policy set --require total_minor,invoice_number --actor alice`,
		Args: noArgs("policy set", "", "invx policy set --require total_minor,invoice_number"),
		RunE: func(c *cobra.Command, args []string) error {
			const try = "invx policy set --require total_minor,invoice_number"
			if !c.Flags().Changed("require") {
				return &usageError{err: errors.New("policy set: --require is required"), try: try}
			}
			req, err := requireFlag(c.Flags(), opts.Require, try)
			if err != nil {
				return err
			}
			opts.Require = req
			if opts.Actor == "" {
				opts.Actor = f.Env("USER")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return policySetRun(c.Context(), f, opts)
		},
	}
	c.Flags().StringSliceVar(&opts.Require, "require", nil, "fields a result must have to be paid (comma-separated)")
	c.Flags().StringVar(&opts.Actor, "actor", "", "who sets the policy (default $USER)")
	return c
}

func policySetRun(ctx context.Context, f *Factory, opts *PolicySetOptions) error {
	st, err := f.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.SetPolicy(ctx, &store.SetPolicyParams{Tenant: f.Tenant, Require: opts.Require, Actor: opts.Actor,
		Now: f.Now()}); err != nil {
		return fmt.Errorf("set review policy: %w", err)
	}
	fmt.Fprintf(f.IO.ErrOut, "tenant %s requires %s\n", f.Tenant, strings.Join(opts.Require, ", "))
	return nil
}

// PolicyShowOptions are the flags of invx policy show.
type PolicyShowOptions struct {
	JSON bool
}

func newCmdPolicyShow(f *Factory, runF func(context.Context, *PolicyShowOptions) error) *cobra.Command {
	opts := &PolicyShowOptions{}
	c := &cobra.Command{
		Use:   "show",
		Short: "Print the tenant's review policy, or the defaults that apply without one",
		Example: `  invx policy show
  invx --tenant acme policy show --json`,
		Args: noArgs("policy show", "", "invx policy show"),
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return policyShowRun(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON object")
	return c
}

// policyReport is invx policy show --json. Require is null when the tenant
// has no stored policy; Defaults are what applies then, per version.
type policyReport struct {
	Tenant    string              `json:"tenant"`
	Require   []string            `json:"require"`
	Actor     string              `json:"actor,omitempty"`
	UpdatedAt string              `json:"updated_at,omitempty"`
	Defaults  map[string][]string `json:"defaults"`
}

func policyShowRun(ctx context.Context, f *Factory, opts *PolicyShowOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return withTry(err, "invx --db PATH policy show, with the database invx run wrote")
	}
	defer st.Close()
	rep := &policyReport{Tenant: f.Tenant, Defaults: map[string][]string{}}
	for _, v := range schema.Versions() {
		rep.Defaults[v] = review.DefaultRequire(v)
	}
	p, err := st.GetPolicy(ctx, &store.GetPolicyParams{Tenant: f.Tenant})
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return fmt.Errorf("read review policy: %w", err)
	default:
		rep.Require, rep.Actor = append([]string{}, p.Require...), p.Actor
		if !p.UpdatedAt.IsZero() {
			rep.UpdatedAt = p.UpdatedAt.UTC().Format(time.RFC3339)
		}
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, rep)
	}
	return renderPolicy(f.IO.Out, rep)
}

func renderPolicy(w io.Writer, rep *policyReport) error {
	var b strings.Builder
	if rep.Require != nil {
		fmt.Fprintf(&b, "tenant %s requires: %s\n", rep.Tenant, strings.Join(rep.Require, ", "))
		if rep.Actor != "" || rep.UpdatedAt != "" {
			fmt.Fprintf(&b, "  set by %s at %s\n", safeCell(cmp.Or(rep.Actor, "-")), cmp.Or(rep.UpdatedAt, "-"))
		}
		b.WriteString("  (replaces the defaults for every schema version)\n")
	} else {
		fmt.Fprintf(&b, "tenant %s has no stored policy; the schema's default applies\n", rep.Tenant)
		for _, v := range schema.Versions() {
			fmt.Fprintf(&b, "  default for %s: %s\n", v, strings.Join(rep.Defaults[v], ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
