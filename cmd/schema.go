package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/invx/invx/schema"
)

// SchemaOptions are the flags of invx schema.
type SchemaOptions struct {
	Version string
	List    bool
	Strict  bool
}

func newCmdSchema(f *Factory, runF func(context.Context, *SchemaOptions) error) *cobra.Command {
	opts := &SchemaOptions{}
	c := &cobra.Command{
		Use:   "schema [VERSION]",
		Short: "Print the JSON Schema of a result schema version",
		Long: `Schema prints the JSON Schema generated from the Go types of a released
schema version; with none named, invoice-v2, the default for new jobs.
--list prints the released versions; --strict prints the form sent to
providers' strict structured outputs (every property required, nullable as
a type array).`,
		Example: `  invx schema
  invx schema --list
  invx schema invoice-summary-v1 > invoice-summary-v1.schema.json
  invx schema invoice-v2 --strict`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &usageError{err: errors.New("schema: at most one VERSION"), try: "invx schema --list"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Version = schema.Latest().Name
			if len(args) == 1 {
				opts.Version = args[0]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return schemaRun(f, opts)
		},
	}
	c.Flags().BoolVar(&opts.List, "list", false, "list the released schema versions")
	c.Flags().BoolVar(&opts.Strict, "strict", false, "print the strict structured-output form")
	return c
}

func schemaRun(f *Factory, opts *SchemaOptions) error {
	if opts.List {
		for _, v := range schema.Versions() {
			fmt.Fprintln(f.IO.Out, v)
		}
		return nil
	}
	v, err := schema.Lookup(opts.Version)
	if err != nil {
		return &usageError{err: err, try: "invx schema --list"}
	}
	if opts.Strict {
		return writeJSON(f.IO.Out, v.StrictJSONSchema())
	}
	b := v.JSONSchema()
	_, err = f.IO.Out.Write(b)
	if err == nil && (len(b) == 0 || b[len(b)-1] != '\n') {
		_, err = fmt.Fprintln(f.IO.Out)
	}
	return err
}
