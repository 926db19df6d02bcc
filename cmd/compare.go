package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/invx/invx/compare"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// CompareOptions are the flags of invx compare.
type CompareOptions struct {
	Schema     string
	With       string
	JSON       bool
	AllTenants bool
}

func newCmdCompare(f *Factory, runF func(context.Context, *CompareOptions) error) *cobra.Command {
	opts := &CompareOptions{}
	c := &cobra.Command{
		Use:   "compare --schema VERSION --with VERSION",
		Short: "Compare the committed results of two schema versions on the same documents",
		Long: `Compare reports how far two schema versions agree on the documents that
have a committed result under both: the check of a shadow rollout (run the
new version with invx run --shadow beside the old one, compare, then make
it the default). Documents are matched by tenant and source digest (the
same text under another path is the same document); documents with a
result under one version only are counted, not compared. Shadow results
are included; superseded ones are not.

For each shared fact (supplier_name, invoice_number, currency, total_minor,
due_date, action_kinds) it prints how many documents agree, and then every
document and fact that differ with both values. Values are compared
exactly; two nulls agree. total_minor is the magnitude of what the document
asks to be paid: invoice-summary-v1's total_minor is the amount due, so an
invoice-v2 result contributes |amount_due_minor| when it states one, else
|total_minor| (a credit note's negative total compares with v1's positive
one). action_kinds are the distinct kinds, sorted.

A table on a terminal, tab-separated when piped, --json for machines. Exit
0 whatever the agreement (it is a report); 2 for a usage error.`,
		Example: `  invx run --schema invoice-v2 --shadow invoices/
  invx compare --schema invoice-summary-v1 --with invoice-v2
  invx compare --schema invoice-summary-v1 --with invoice-v2 --json | jq '.fields[] | select(.percent < 95)'`,
		Args: noArgs("compare", "", "invx compare --schema invoice-summary-v1 --with invoice-v2"),
		RunE: func(c *cobra.Command, args []string) error {
			try := "invx compare --schema invoice-summary-v1 --with invoice-v2"
			if opts.With == "" {
				return &usageError{err: errors.New("compare: --with names the version to compare with"), try: try}
			}
			for _, v := range []struct{ flag, name string }{{"--schema", opts.Schema}, {"--with", opts.With}} {
				if _, err := schema.Lookup(v.name); err != nil {
					return &usageError{err: fmt.Errorf("%s: %w (released: %s)", v.flag, err, joinVersions()), try: try}
				}
				if !compare.Comparable(v.name) {
					return &usageError{err: fmt.Errorf("%s %s: compare does not know this version's facts", v.flag, v.name), try: try}
				}
			}
			if opts.Schema == opts.With {
				return &usageError{err: fmt.Errorf("compare: --schema and --with both name %s; name two versions", opts.With), try: try}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return compareRun(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Schema, "schema", schema.Latest().Name, "the version compared from (the one in use): "+schemaChoices())
	fl.StringVar(&opts.With, "with", "", "the version compared with (the one being tried, often a --shadow run)")
	fl.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	fl.BoolVar(&opts.AllTenants, "all-tenants", false, "compare every tenant's documents, not only --tenant's")
	return c
}

func compareRun(ctx context.Context, f *Factory, opts *CompareOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return withTry(err, "invx --db PATH compare --schema invoice-summary-v1 --with invoice-v2, with the database invx run wrote")
	}
	defer st.Close()
	var docs []compare.Doc
	for _, v := range []string{opts.Schema, opts.With} {
		p := &store.ListResultsParams{SchemaVersion: v, IncludeShadow: true}
		if !opts.AllTenants {
			p.Tenant = f.Tenant
		}
		err := st.ListResults(ctx, p, func(r *store.ResultRow) error {
			docs = append(docs, compare.Doc{Tenant: r.Tenant, SourceDigest: r.SourceDigest, Path: cmp.Or(r.DisplayPath, r.SourcePath),
				JobKey: r.JobKey, Version: r.SchemaVersion, JSON: r.JSON, Shadow: r.Shadow})
			return nil
		})
		if err != nil {
			return fmt.Errorf("list %s results: %w", v, err)
		}
	}
	rep, err := compare.Compare(opts.Schema, opts.With, docs)
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.Out, rep)
	}
	return renderCompare(f, rep)
}

// renderCompare prints the report: a summary line, the agreement per fact,
// then the differences.
func renderCompare(f *Factory, r *compare.Report) error {
	w := f.IO.Out
	fmt.Fprintf(w, "%d document(s) with results under both %s and %s; %d under %s only, %d under %s only (not compared)\n\n",
		r.Compared, r.Schema, r.With, r.OnlySchema, r.Schema, r.OnlyWith, r.With)
	tp := newTable(w, f.IO.OutTTY, "FIELD", "AGREE", "DIFFER", "AGREEMENT")
	tp.headers = "always"
	for _, fa := range r.Fields {
		pct := "-"
		if r.Compared > 0 {
			pct = strconv.FormatFloat(fa.Percent, 'f', 1, 64) + "%"
		}
		tp.addRow(fa.Field, strconv.Itoa(fa.Agree), strconv.Itoa(fa.Differ), pct)
	}
	if err := tp.render(); err != nil {
		return err
	}
	if len(r.Differences) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%d difference(s):\n", len(r.Differences))
	header := []string{"PATH", "FIELD", r.Schema, r.With, "KEYS"}
	if multiTenant(r) {
		header = append([]string{"TENANT"}, header...)
	}
	tp = newTable(w, f.IO.OutTTY, header...)
	tp.headers = "always"
	for _, d := range r.Differences {
		val := func(p *string) string {
			if p == nil {
				return "null"
			}
			return strconv.Quote(*p)
		}
		keys := shortKey(d.SchemaKey) + " " + shortKey(d.WithKey)
		if d.WithShadow {
			keys += " (shadow)"
		}
		row := []string{displayPath(d.Path), d.Field, val(d.SchemaVal), val(d.WithVal), keys}
		if len(header) == 6 {
			row = append([]string{d.Tenant}, row...)
		}
		tp.addRow(row...)
	}
	return tp.render()
}

// multiTenant reports whether the differences span more than one tenant.
func multiTenant(r *compare.Report) bool {
	for _, d := range r.Differences {
		if d.Tenant != r.Differences[0].Tenant {
			return true
		}
	}
	return false
}
