package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// ExportOptions are the flags of invx export.
type ExportOptions struct {
	Format     string
	Schema     string
	Since      string
	Out        string
	AllTenants bool
	BOM        bool
	// Lines writes one CSV row per line item instead of one per document
	// (invoice-v2 and later: versions whose results have line items).
	Lines bool
}

func newCmdExport(f *Factory, runF func(context.Context, *ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{}
	c := &cobra.Command{
		Use:   "export --format csv|jsonl",
		Short: "Write the committed invoices as CSV or JSON Lines, one row per invoice",
		Long: `Export writes the tenant's committed results, oldest first, one row per
invoice, for a ledger or a spreadsheet. Superseded results (replaced by a
changed document accepted in review) and shadow results are left out.

Columns, the invoice first and the bookkeeping of invx last: supplier_name,
invoice_number, due_date (YYYY-MM-DD), currency, total (a decimal string
with the currency's exponent: 1234.56 EUR, 534600 JPY, 2380.125 BHD),
total_minor (the same in integer minor units), action_kinds (the distinct
kinds of the action items, sorted), source_path (the file as it was named
to invx run: the folder as given joined with the file's path in it, so two
nightly folders stay apart), then tenant, job_key, schema_version and
committed_at (RFC 3339, UTC). A fact the invoice does not state is empty in
CSV and null in JSON Lines. Those are the invoice-summary-v1 columns
(--schema invoice-summary-v1).

invoice-v2 columns (the default), named as the schema's facts:
document_type, supplier_name, supplier_vat_id, supplier_iban (in full: a
clerk pays from it), buyer_name, invoice_number, issue_date, due_date,
po_number, currency, net_minor, tax_minor, total_minor (gross),
amount_due_minor, line_count, then the decimal net, tax and total, and
action_kinds, source_path, tenant, job_key, schema_version, committed_at as
above. Amounts of a credit note are negative. JSON Lines carry the same
fields plus "document", the whole stored result (tax lines, line items,
evidence). --lines writes one row per line item instead: job_key,
line_number (from 1), description, quantity, unit_price_minor,
amount_minor, tax_rate_bp, currency, unit_price, amount, source_path,
tenant, schema_version.

One schema version per export: --schema names the version the consumer
accepts (default: invoice-v2, the version of new jobs). Results of other versions are never mixed in;
their number is reported on stderr, one line per version, with the --schema
that exports them.

CSV is RFC 4180 (encoding/csv, CRLF line ends), UTF-8, with a header row.
So that a spreadsheet never runs a cell as a formula, a text cell that
starts with =, +, -, @, a tab or a carriage return gets a leading apostrophe
(') in CSV; JSON Lines is written as stored. action_kinds are joined by ";"
in CSV and an array in JSON Lines.

With --out the file is written atomically: a temporary file in the same
directory, synced, then renamed over FILE (mode 0644), so a reader never
sees half an export. Without --out the rows go to stdout.`,
		Example: `  invx export --format csv --out invoices.csv
  invx export --format jsonl --since 7d | jq .total
  invx export --format csv --all-tenants --schema invoice-summary-v1 > all.csv
  invx export --schema invoice-v2 --lines --out lines.csv`,
		Args: noArgs("export", " (write to a file with --out)", "invx export --format csv --out invoices.csv"),
		RunE: func(c *cobra.Command, args []string) error {
			switch opts.Format {
			case "csv", "jsonl":
			default:
				return &usageError{err: fmt.Errorf("--format %q: want csv or jsonl", opts.Format),
					try: "invx export --format csv --out invoices.csv"}
			}
			if _, err := schema.Lookup(opts.Schema); err != nil {
				return &usageError{err: fmt.Errorf("--schema: %w", err), try: "invx export --schema invoice-summary-v1 (invx schema --list names the versions)"}
			}
			if opts.Since != "" {
				if _, err := parseAge(opts.Since); err != nil {
					return &usageError{err: fmt.Errorf("--since %w", err), try: "invx export --format csv --since 30d"}
				}
			}
			if opts.Lines && opts.Format != "csv" {
				return &usageError{err: errors.New("--lines applies to --format csv only (JSON Lines carry the line items in document)"),
					try: "invx export --schema invoice-v2 --lines --out lines.csv"}
			}
			if opts.Lines && opts.Schema != schema.V2 {
				return &usageError{err: fmt.Errorf("--lines: %s results have no line items", opts.Schema),
					try: "invx export --schema invoice-v2 --lines --out lines.csv"}
			}
			if opts.BOM && opts.Format != "csv" {
				return &usageError{err: errors.New("--bom applies to --format csv only")}
			}
			if opts.Out != "" {
				if fi, err := os.Stat(opts.Out); err == nil && !fi.Mode().IsRegular() {
					return &usageError{err: fmt.Errorf("--out %s: not a regular file", opts.Out)}
				}
				if fi, err := os.Stat(filepath.Dir(opts.Out)); err != nil || !fi.IsDir() {
					return &usageError{err: fmt.Errorf("--out %s: no such directory", opts.Out)}
				}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return exportRun(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Format, "format", "csv", "csv or jsonl")
	fl.StringVar(&opts.Schema, "schema", schema.Latest().Name, "the schema version to export, "+schemaChoices()+"; results of others are skipped")
	fl.StringVar(&opts.Since, "since", "", "only results committed within this age, such as 30d or 12h")
	fl.StringVar(&opts.Out, "out", "", "write to this file, atomically (default: stdout)")
	fl.BoolVar(&opts.AllTenants, "all-tenants", false, "export every tenant's results, not only --tenant's")
	fl.BoolVar(&opts.Lines, "lines", false, "invoice-v2: one CSV row per line item, keyed by job key and line number")
	fl.BoolVar(&opts.BOM, "bom", false, "start the CSV with a UTF-8 byte order mark (for spreadsheets that need one)")
	return c
}

// exportRecord is one exported invoice, the JSON Lines form.
// Its field order is the JSON key order and matches exportHeader: what a
// clerk reads first (the invoice), what an engineer needs last.
type exportRecord struct {
	SupplierName  *string  `json:"supplier_name"`
	InvoiceNumber *string  `json:"invoice_number"`
	DueDate       *string  `json:"due_date"`
	Currency      *string  `json:"currency"`
	Total         *string  `json:"total"`
	TotalMinor    *int64   `json:"total_minor"`
	ActionKinds   []string `json:"action_kinds"`
	SourcePath    string   `json:"source_path"`
	Tenant        string   `json:"tenant"`
	JobKey        string   `json:"job_key"`
	SchemaVersion string   `json:"schema_version"`
	CommittedAt   string   `json:"committed_at"`
}

var exportHeader = []string{"supplier_name", "invoice_number", "due_date", "currency", "total", "total_minor",
	"action_kinds", "source_path", "tenant", "job_key", "schema_version", "committed_at"}

// exportFacts decodes a stored result with the schema version it was
// stored under, never another: each version maps its own fields to the
// export columns. A version without a mapping here is an error, not a guess.
func exportFacts(version string, doc []byte, rec *exportRecord) error {
	if _, err := schema.Lookup(version); err != nil {
		return err
	}
	switch version {
	case schema.V1:
		var d schema.InvoiceSummaryV1
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			return fmt.Errorf("decode stored %s result: %w", version, err)
		}
		if d.SchemaVersion != version {
			return fmt.Errorf("stored result says schema_version %q, stored as %s", d.SchemaVersion, version)
		}
		inv := d.Invoice
		rec.SupplierName, rec.InvoiceNumber, rec.Currency = inv.SupplierName, inv.InvoiceNumber, inv.Currency
		rec.TotalMinor, rec.DueDate = inv.TotalMinor, inv.DueDate
		if inv.TotalMinor != nil {
			cur := ""
			if inv.Currency != nil {
				cur = *inv.Currency
			}
			s := schema.FormatMinor(*inv.TotalMinor, cur)
			rec.Total = &s
		}
		rec.ActionKinds = []string{}
		for _, a := range d.ActionItems {
			if !slices.Contains(rec.ActionKinds, a.Kind) {
				rec.ActionKinds = append(rec.ActionKinds, a.Kind)
			}
		}
		slices.Sort(rec.ActionKinds)
		return nil
	case schema.V2:
		// The columns v2 shares with v1, for the listings that print them
		// (jobs, stats); the v2 export has its own record. Total is the
		// gross total, negative on a credit note.
		d, err := schema.DecodeStoredV2(doc)
		if err != nil {
			return err
		}
		rec.SupplierName, rec.InvoiceNumber, rec.Currency = d.SupplierName, d.InvoiceNumber, d.Currency
		rec.TotalMinor, rec.DueDate = d.TotalMinor, d.DueDate
		if d.TotalMinor != nil {
			s := schema.FormatMinor(*d.TotalMinor, deref(d.Currency))
			rec.Total = &s
		}
		rec.ActionKinds = actionKinds(d.ActionItems)
		return nil
	}
	return fmt.Errorf("schema %s: export does not know this version's fields", version)
}

// exportWriter writes records in one format.
type exportWriter interface {
	write(*exportRecord) error
	flush() error
}

type csvExport struct{ w *csv.Writer }

func newCSVExport(w io.Writer, bom bool) (*csvExport, error) {
	if bom {
		if _, err := io.WriteString(w, "\uFEFF"); err != nil {
			return nil, err
		}
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(exportHeader); err != nil {
		return nil, err
	}
	return &csvExport{w: cw}, nil
}

func (c *csvExport) write(r *exportRecord) error {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	minor := ""
	if r.TotalMinor != nil {
		minor = strconv.FormatInt(*r.TotalMinor, 10)
	}
	return c.w.Write([]string{
		noFormula(str(r.SupplierName)), noFormula(str(r.InvoiceNumber)), noFormula(str(r.DueDate)), noFormula(str(r.Currency)),
		str(r.Total), minor, noFormula(strings.Join(r.ActionKinds, ";")), noFormula(r.SourcePath),
		noFormula(r.Tenant), noFormula(r.JobKey), noFormula(r.SchemaVersion), r.CommittedAt,
	})
}

func (c *csvExport) flush() error {
	c.w.Flush()
	return c.w.Error()
}

// noFormula guards a text cell against spreadsheet formula injection
// (OWASP "CSV injection"): a cell that a spreadsheet would evaluate, one
// starting with =, +, -, @, tab or carriage return, gets a leading
// apostrophe, which spreadsheets show as text. Numeric columns are written
// without it: they are never negative, so never start with "-".
func noFormula(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

type jsonlExport struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

func newJSONLExport(w io.Writer) *jsonlExport {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &jsonlExport{bw: bw, enc: enc}
}

func (j *jsonlExport) write(r *exportRecord) error { return j.enc.Encode(r) }
func (j *jsonlExport) flush() error                { return j.bw.Flush() }

func exportRun(ctx context.Context, f *Factory, opts *ExportOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return withTry(err, "invx --db PATH export --format csv, with the database invx run wrote")
	}
	defer st.Close()

	var dst io.Writer = f.IO.Out
	var af *atomicFile
	if opts.Out != "" {
		if af, err = createAtomic(opts.Out, 0o644); err != nil {
			return err
		}
		defer af.abort()
		dst = af
	}
	w, err := newResultWriter(dst, opts)
	if err != nil {
		return err
	}

	p := &store.ListResultsParams{}
	if !opts.AllTenants {
		p.Tenant = f.Tenant
	}
	if opts.Since != "" {
		d, _ := parseAge(opts.Since)
		p.Since = f.Now().Add(-d)
	}
	rows, others := 0, map[string]int{}
	err = st.ListResults(ctx, p, func(r *store.ResultRow) error {
		if r.SchemaVersion != opts.Schema {
			others[r.SchemaVersion]++
			return nil
		}
		if err := w.write(r); err != nil {
			return fmt.Errorf("export result of job %s: %w", shortKey(r.JobKey), err)
		}
		rows++
		return nil
	})
	if err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	if af != nil {
		if err := af.commit(); err != nil {
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "exported %d result(s) to %s\n", rows, displayPath(opts.Out))
	}
	notExported(f.IO.ErrOut, others)
	return nil
}

// newResultWriter picks the writer of opts.Schema's results in opts.Format.
func newResultWriter(dst io.Writer, opts *ExportOptions) (resultWriter, error) {
	if opts.Schema == schema.V2 {
		return newV2Writer(dst, opts.Format, opts.Lines, opts.BOM)
	}
	if opts.Format == "jsonl" {
		return &v1Writer{w: newJSONLExport(dst)}, nil
	}
	bw := bufio.NewWriter(dst)
	cw, err := newCSVExport(bw, opts.BOM)
	if err != nil {
		return nil, err
	}
	return &v1Writer{w: &flushBoth{exportWriter: cw, bw: bw}}, nil
}

// flushBoth flushes the CSV writer, then the buffer under it.
type flushBoth struct {
	exportWriter
	bw *bufio.Writer
}

func (f *flushBoth) flush() error {
	if err := f.exportWriter.flush(); err != nil {
		return err
	}
	return f.bw.Flush()
}

// atomicFile is a file written under a temporary name in the target's
// directory and renamed over the target only once it is complete and
// synced, so readers see the old file or the whole new one.
type atomicFile struct {
	*os.File
	path string
	done bool
}

func createAtomic(path string, mode os.FileMode) (*atomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, unwrapPath(err))
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("create %s: %w", path, unwrapPath(err))
	}
	return &atomicFile{File: tmp, path: path}, nil
}

// commit syncs, closes and renames the file into place, then syncs the
// directory so the rename itself survives a crash.
func (a *atomicFile) commit() error {
	if err := a.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	if err := os.Rename(a.Name(), a.path); err != nil {
		return fmt.Errorf("write %s: %w", a.path, unwrapPath(err))
	}
	a.done = true
	if d, err := os.Open(filepath.Dir(a.path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// abort removes the temporary file unless commit renamed it.
func (a *atomicFile) abort() {
	if a.done {
		return
	}
	a.Close()
	os.Remove(a.Name())
}
