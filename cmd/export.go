package cmd

import (
	"bufio"
	"bytes"
	"cmp"
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
	"time"

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
CSV and null in JSON Lines.

One schema version per export: --schema names the version the consumer
accepts (default: the latest). Results of other versions are never mixed in;
their number is reported on stderr.

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
  invx export --format csv --all-tenants --schema invoice-summary-v1 > all.csv`,
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
	fl.StringVar(&opts.Schema, "schema", schema.Latest().Name, "the schema version to export; results of others are skipped")
	fl.StringVar(&opts.Since, "since", "", "only results committed within this age, such as 30d or 12h")
	fl.StringVar(&opts.Out, "out", "", "write to this file, atomically (default: stdout)")
	fl.BoolVar(&opts.AllTenants, "all-tenants", false, "export every tenant's results, not only --tenant's")
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
	var w exportWriter
	if opts.Format == "csv" {
		bw := bufio.NewWriter(dst)
		cw, err := newCSVExport(bw, opts.BOM)
		if err != nil {
			return err
		}
		w = &flushBoth{exportWriter: cw, bw: bw}
	} else {
		w = newJSONLExport(dst)
	}

	p := &store.ListResultsParams{}
	if !opts.AllTenants {
		p.Tenant = f.Tenant
	}
	if opts.Since != "" {
		d, _ := parseAge(opts.Since)
		p.Since = f.Now().Add(-d)
	}
	rows, others := 0, 0
	err = st.ListResults(ctx, p, func(r *store.ResultRow) error {
		if r.SchemaVersion != opts.Schema {
			others++
			return nil
		}
		rec := exportRecord{Tenant: r.Tenant, JobKey: r.JobKey, SourcePath: cmp.Or(r.DisplayPath, r.SourcePath), SchemaVersion: r.SchemaVersion,
			CommittedAt: r.CommittedAt.UTC().Format(time.RFC3339)}
		if err := exportFacts(r.SchemaVersion, r.JSON, &rec); err != nil {
			return fmt.Errorf("export result of job %s: %w", shortKey(r.JobKey), err)
		}
		rows++
		return w.write(&rec)
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
	if others > 0 {
		fmt.Fprintf(f.IO.ErrOut, "skipped %d result(s) of other schema versions (use --schema)\n", others)
	}
	return nil
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
