package cmd

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// exportHeaderV2 is the invoice-v2 CSV header: the facts under the names
// DESIGN.md gives them, the decimal amounts a spreadsheet reads, then the
// same bookkeeping columns as v1, last.
var exportHeaderV2 = []string{"document_type", "supplier_name", "supplier_vat_id", "supplier_iban", "buyer_name",
	"invoice_number", "issue_date", "due_date", "po_number", "currency", "net_minor", "tax_minor", "total_minor",
	"amount_due_minor", "line_count", "net", "tax", "total", "action_kinds",
	"source_path", "tenant", "job_key", "schema_version", "committed_at"}

// exportLinesHeader is the --lines CSV header: one row per line item, keyed
// by the document's job key and the line's 1-based position in it.
var exportLinesHeader = []string{"job_key", "line_number", "description", "quantity", "unit_price_minor",
	"amount_minor", "tax_rate_bp", "currency", "unit_price", "amount", "source_path", "tenant", "schema_version"}

// exportRecordV2 is one exported invoice-v2 document, the JSON Lines form:
// the CSV columns in the CSV's order, then the whole stored document
// (tax lines, line items, evidence), so a consumer of JSON Lines loses
// nothing. The IBAN is not masked: export is what a clerk pays from.
type exportRecordV2 struct {
	DocumentType   string          `json:"document_type"`
	SupplierName   *string         `json:"supplier_name"`
	SupplierVATID  *string         `json:"supplier_vat_id"`
	SupplierIBAN   *string         `json:"supplier_iban"`
	BuyerName      *string         `json:"buyer_name"`
	InvoiceNumber  *string         `json:"invoice_number"`
	IssueDate      *string         `json:"issue_date"`
	DueDate        *string         `json:"due_date"`
	PONumber       *string         `json:"po_number"`
	Currency       *string         `json:"currency"`
	NetMinor       *int64          `json:"net_minor"`
	TaxMinor       *int64          `json:"tax_minor"`
	TotalMinor     *int64          `json:"total_minor"`
	AmountDueMinor *int64          `json:"amount_due_minor"`
	LineCount      int             `json:"line_count"`
	Net            *string         `json:"net"`
	Tax            *string         `json:"tax"`
	Total          *string         `json:"total"`
	ActionKinds    []string        `json:"action_kinds"`
	SourcePath     string          `json:"source_path"`
	Tenant         string          `json:"tenant"`
	JobKey         string          `json:"job_key"`
	SchemaVersion  string          `json:"schema_version"`
	CommittedAt    string          `json:"committed_at"`
	Document       json.RawMessage `json:"document"`
}

// newExportRecordV2 maps a stored invoice-v2 result to its export record.
func newExportRecordV2(r *store.ResultRow, d *schema.InvoiceV2) *exportRecordV2 {
	cur := deref(d.Currency)
	dec := func(minor *int64) *string {
		if minor == nil {
			return nil
		}
		s := schema.FormatMinor(*minor, cur)
		return &s
	}
	return &exportRecordV2{DocumentType: d.DocumentType, SupplierName: d.SupplierName, SupplierVATID: d.SupplierVATID,
		SupplierIBAN: d.SupplierIBAN, BuyerName: d.BuyerName, InvoiceNumber: d.InvoiceNumber, IssueDate: d.IssueDate,
		DueDate: d.DueDate, PONumber: d.PONumber, Currency: d.Currency, NetMinor: d.NetMinor, TaxMinor: d.TaxMinor,
		TotalMinor: d.TotalMinor, AmountDueMinor: d.AmountDueMinor, LineCount: len(d.LineItems),
		Net: dec(d.NetMinor), Tax: dec(d.TaxMinor), Total: dec(d.TotalMinor), ActionKinds: actionKinds(d.ActionItems),
		SourcePath: cmp.Or(r.DisplayPath, r.SourcePath), Tenant: r.Tenant, JobKey: r.JobKey, SchemaVersion: r.SchemaVersion,
		CommittedAt: r.CommittedAt.UTC().Format(time.RFC3339), Document: json.RawMessage(r.JSON)}
}

// actionKinds are the distinct kinds of a document's action items, sorted.
func actionKinds(items []schema.ActionItem) []string {
	kinds := []string{}
	for _, a := range items {
		if !slices.Contains(kinds, a.Kind) {
			kinds = append(kinds, a.Kind)
		}
	}
	slices.Sort(kinds)
	return kinds
}

// resultWriter writes committed results of one schema version in one
// export format.
type resultWriter interface {
	write(*store.ResultRow) error
	flush() error
}

// v1Writer adapts the invoice-summary-v1 writers, whose output must stay
// byte-for-byte what it was, to resultWriter.
type v1Writer struct{ w exportWriter }

func (v *v1Writer) write(r *store.ResultRow) error {
	rec := exportRecord{Tenant: r.Tenant, JobKey: r.JobKey, SourcePath: cmp.Or(r.DisplayPath, r.SourcePath), SchemaVersion: r.SchemaVersion,
		CommittedAt: r.CommittedAt.UTC().Format(time.RFC3339)}
	if err := exportFacts(r.SchemaVersion, r.JSON, &rec); err != nil {
		return err
	}
	return v.w.write(&rec)
}

func (v *v1Writer) flush() error { return v.w.flush() }

// v2Writer writes invoice-v2 results: a CSV row per document, a CSV row
// per line item (--lines), or a JSON Lines record per document.
type v2Writer struct {
	bw    *bufio.Writer
	csv   *csv.Writer   // CSV formats
	enc   *json.Encoder // JSON Lines
	lines bool
}

func newV2Writer(w io.Writer, format string, lines, bom bool) (*v2Writer, error) {
	v := &v2Writer{bw: bufio.NewWriter(w), lines: lines}
	if format == "jsonl" {
		v.enc = json.NewEncoder(v.bw)
		v.enc.SetEscapeHTML(false)
		return v, nil
	}
	if bom {
		if _, err := v.bw.WriteString("\uFEFF"); err != nil {
			return nil, err
		}
	}
	v.csv = csv.NewWriter(v.bw)
	v.csv.UseCRLF = true
	header := exportHeaderV2
	if lines {
		header = exportLinesHeader
	}
	if err := v.csv.Write(header); err != nil {
		return nil, err
	}
	return v, nil
}

func (v *v2Writer) write(r *store.ResultRow) error {
	d, err := schema.DecodeStoredV2(r.JSON)
	if err != nil {
		return err
	}
	rec := newExportRecordV2(r, d)
	switch {
	case v.enc != nil:
		return v.enc.Encode(rec)
	case v.lines:
		return v.writeLines(rec, d)
	}
	return v.csv.Write([]string{
		noFormula(rec.DocumentType), text(rec.SupplierName), text(rec.SupplierVATID), text(rec.SupplierIBAN),
		text(rec.BuyerName), text(rec.InvoiceNumber), text(rec.IssueDate), text(rec.DueDate), text(rec.PONumber),
		text(rec.Currency), num(rec.NetMinor), num(rec.TaxMinor), num(rec.TotalMinor), num(rec.AmountDueMinor),
		strconv.Itoa(rec.LineCount), deref(rec.Net), deref(rec.Tax), deref(rec.Total),
		noFormula(strings.Join(rec.ActionKinds, ";")), noFormula(rec.SourcePath), noFormula(rec.Tenant),
		noFormula(rec.JobKey), noFormula(rec.SchemaVersion), rec.CommittedAt,
	})
}

// writeLines writes one row per line item; a document without line items
// writes none (its line_count in the document export says 0).
func (v *v2Writer) writeLines(rec *exportRecordV2, d *schema.InvoiceV2) error {
	cur := deref(d.Currency)
	dec := func(minor *int64) string {
		if minor == nil {
			return ""
		}
		return schema.FormatMinor(*minor, cur)
	}
	for i, li := range d.LineItems {
		// Quantity is validated as a decimal number, so a leading "-" is a
		// sign, not a formula; it is written as stored.
		if err := v.csv.Write([]string{
			noFormula(rec.JobKey), strconv.Itoa(i + 1), noFormula(li.Description), deref(li.Quantity),
			num(li.UnitPriceMinor), num(li.AmountMinor), num(li.TaxRateBP), text(d.Currency),
			dec(li.UnitPriceMinor), dec(li.AmountMinor), noFormula(rec.SourcePath), noFormula(rec.Tenant),
			noFormula(rec.SchemaVersion),
		}); err != nil {
			return err
		}
	}
	return nil
}

func (v *v2Writer) flush() error {
	if v.csv != nil {
		v.csv.Flush()
		if err := v.csv.Error(); err != nil {
			return err
		}
	}
	return v.bw.Flush()
}

// text is a nullable text cell, guarded against formula injection.
func text(p *string) string { return noFormula(deref(p)) }

// num is a nullable integer cell. invx formats it from an int64, so a
// leading "-" is a sign a spreadsheet reads as a number, never a formula.
func num(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

// notExported tells, on stderr, how many results of each other version
// the export left out, and how to export them: one line per version.
func notExported(w io.Writer, others map[string]int) {
	versions := make([]string, 0, len(others))
	for v := range others {
		versions = append(versions, v)
	}
	slices.Sort(versions)
	for _, v := range versions {
		n := others[v]
		noun := "results"
		if n == 1 {
			noun = "result"
		}
		if _, err := schema.Lookup(v); err != nil {
			fmt.Fprintf(w, "%d %s of %s not exported (not a released schema version)\n", n, noun, v)
			continue
		}
		fmt.Fprintf(w, "%d %s of %s not exported; --schema %s exports them\n", n, noun, v, v)
	}
}
