package cmd_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunMixedTextAndEInvoices runs invx over a folder holding a text
// invoice, the four e-invoice fixtures and an XML file that is not an
// e-invoice, with the default provider (auto). Each document must be
// committed through its route with the format and digest stored on its
// job; the stray XML is skipped with its reason, nothing is committed for
// it, and the run exits 3.
func TestRunMixedTextAndEInvoices(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join("testdata", "input", "a.txt"), filepath.Join(in, "a.txt"))
	for _, n := range []string{"ubl_invoice", "ubl_creditnote", "cii_d16b", "zugferd1_creditnote"} {
		copyFile(t, filepath.Join("..", "fixtures", "einvoices", n+".xml"), filepath.Join(in, n+".xml"))
	}
	if err := os.WriteFile(filepath.Join(in, "other.xml"), []byte(`<?xml version="1.0"?><note>hi</note>`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "invx.db")
	r := invx(t, false, "--db", db, "run", "--schema", "invoice-v2", in)
	if r.code != 3 {
		t.Fatalf("run exit %d, want 3 (one skipped input): %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "other.xml: not a recognised e-invoice: root <note>") {
		t.Errorf("stderr does not give the skip reason of other.xml:\n%s", r.stderr)
	}

	tests := []struct {
		file, format, route, number, docType string
		total                                int64
	}{
		{"a.txt", "txt", "rules", "NW-2026-0117", "", 0},
		{"ubl_invoice.xml", "ubl-invoice", "einvoice", "UBL-2026-0042", "invoice", 124950},
		{"ubl_creditnote.xml", "ubl-creditnote", "einvoice", "CN-17", "credit_note", -12200},
		{"cii_d16b.xml", "cii", "einvoice", "RE-2026-881", "invoice", 86250},
		{"zugferd1_creditnote.xml", "zugferd1", "einvoice", "GS-2014-07", "credit_note", -24000},
	}
	for _, tt := range tests {
		job := showRouted(t, db, tt.file)
		if job.State != "succeeded" || job.Result == nil {
			t.Fatalf("%s: state %s, result %v; want a committed result", tt.file, job.State, job.Result)
		}
		if job.SourceFormat != tt.format || job.Route != tt.route {
			t.Errorf("%s: format %q route %q, want %q %q", tt.file, job.SourceFormat, job.Route, tt.format, tt.route)
		}
		doc := job.Result.Document
		if doc.InvoiceNumber != tt.number {
			t.Errorf("%s: invoice_number %q, want %q", tt.file, doc.InvoiceNumber, tt.number)
		}
		if tt.route != "einvoice" {
			continue
		}
		if doc.DocumentType != tt.docType || doc.TotalMinor == nil || *doc.TotalMinor != tt.total {
			t.Errorf("%s: %s total %v, want %s %d", tt.file, doc.DocumentType, doc.TotalMinor, tt.docType, tt.total)
		}
		raw, err := os.ReadFile(filepath.Join(in, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(raw); job.SourceDigest != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: digest %s is not sha256 of the file's bytes", tt.file, job.SourceDigest)
		}
	}
	r = invx(t, false, "--db", db, "show", "other.xml")
	for _, want := range []string{"skipped: no job", "reason          not_einvoice"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show other.xml: missing %q in:\n%s", want, r.stdout)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// routedJob is what invx show --json says of a job's input route and result.
type routedJob struct {
	State        string `json:"state"`
	SourceFormat string `json:"source_format"`
	Route        string `json:"route"`
	SourceDigest string `json:"source_digest"`
	Result       *struct {
		Document struct {
			DocumentType  string `json:"document_type"`
			InvoiceNumber string `json:"invoice_number"`
			TotalMinor    *int64 `json:"total_minor"`
		} `json:"document"`
	} `json:"result"`
}

// showRouted reads a job with invx show --json.
func showRouted(t *testing.T, db, file string) *routedJob {
	t.Helper()
	r := invx(t, false, "--db", db, "show", "--json", file)
	if r.code != 0 {
		t.Fatalf("show %s: exit %d: %s", file, r.code, r.stderr)
	}
	var job routedJob
	if err := json.Unmarshal([]byte(r.stdout), &job); err != nil {
		t.Fatalf("show %s: %v\n%s", file, err, r.stdout)
	}
	return &job
}
