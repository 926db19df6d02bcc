package schema

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzValidateV2 checks invoice-v2's contract on arbitrary input: the error
// contract of FuzzValidate; ValidateReviewable agreeing with Validate (the
// same error, or a result whose first review reason is that error, and
// only for a reviewable category); and, for an accepted document, evidence
// that is a substring of the source for exactly the stated facts, no
// arithmetic problem left, and canonical JSON that is a fixed point.
//
// The seed corpus in testdata/fuzz/FuzzValidateV2 holds valid documents and
// one document per rejection category; go test -update rewrites it from
// v2Seeds.
func FuzzValidateV2(f *testing.F) {
	f.Add([]byte(validDocV2), testSourceV2)
	f.Fuzz(func(t *testing.T, raw []byte, source string) {
		v := versions[V2]
		res, err := v.Validate(raw, source)
		rres, rerr := v.ValidateReviewable(raw, source)
		if err != nil {
			ve, ok := err.(*ValidationError)
			if !ok {
				t.Fatalf("error %T %v, want *ValidationError", err, err)
			}
			if res != nil {
				t.Fatalf("result returned with error %v", err)
			}
			if !slices.Contains(allCategories, ve.Category) {
				t.Fatalf("unknown category %q", ve.Category)
			}
			if !printableASCII(ve.Path) || !printableASCII(ve.Msg) || ve.Path == "" || ve.Msg == "" {
				t.Fatalf("path %q or message %q is empty or not printable ASCII", ve.Path, ve.Msg)
			}
			switch {
			case Reviewable(ve.Category):
				if rerr != nil || rres == nil || len(rres.Review) == 0 || rres.Review[0].Error() != err.Error() {
					t.Fatalf("ValidateReviewable = %v, %v; want a result with review %v", rres, rerr, err)
				}
				for _, r := range rres.Review {
					if !Reviewable(r.Category) {
						t.Fatalf("review reason %v is not reviewable", r)
					}
				}
			case rerr == nil || rerr.Error() != err.Error():
				t.Fatalf("ValidateReviewable error %v, want %v", rerr, err)
			}
			return
		}
		if rerr != nil || !bytes.Equal(rres.JSON, res.JSON) || len(rres.Review) != 0 {
			t.Fatalf("ValidateReviewable = %v, %v; want the accepted result", rres, rerr)
		}
		d := res.InvoiceV2
		if d == nil || len(res.Review) != 0 || len(checkArithmetic(d)) != 0 {
			t.Fatalf("accepted with problems: %+v", res.Review)
		}
		if !slices.Contains(v2DocTypes, d.DocumentType) {
			t.Fatalf("accepted document_type %q", d.DocumentType)
		}
		if d.SupplierIBAN != nil && ibanProblem("x", *d.SupplierIBAN) != nil {
			t.Fatalf("accepted IBAN %q", *d.SupplierIBAN)
		}
		for _, f := range factEvidence(d) {
			if (f.value == nil) != (f.evidence == nil) {
				t.Fatalf("%s: fact and evidence disagree on null", f.name)
			}
			if f.evidence != nil && (!strings.Contains(source, *f.evidence) || blank(*f.evidence) ||
				strings.ContainsFunc(*f.evidence, isBidiControl)) {
				t.Fatalf("%s: accepted evidence %q", f.name, *f.evidence)
			}
		}
		again, err := v.Validate(res.JSON, source)
		if err != nil {
			t.Fatalf("canonical JSON %q rejected: %v", res.JSON, err)
		}
		if diff := cmp.Diff(res, again); diff != "" {
			t.Fatalf("result of canonical JSON differs (-first +again):\n%s", diff)
		}
	})
}

type factAndEvidence struct {
	name     string
	value    any
	evidence *string
}

// factEvidence pairs each fact with its evidence by reflection-free hand
// listing, a second spelling of the pairing checkFactEvidenceValues uses.
func factEvidence(d *InvoiceV2) []factAndEvidence {
	ev := d.Evidence
	orNil := func(p any) any {
		switch p := p.(type) {
		case *string:
			if p == nil {
				return nil
			}
		case *int64:
			if p == nil {
				return nil
			}
		}
		return p
	}
	return []factAndEvidence{
		{"supplier_name", orNil(d.SupplierName), ev.SupplierName},
		{"supplier_vat_id", orNil(d.SupplierVATID), ev.SupplierVATID},
		{"supplier_iban", orNil(d.SupplierIBAN), ev.SupplierIBAN},
		{"buyer_name", orNil(d.BuyerName), ev.BuyerName},
		{"invoice_number", orNil(d.InvoiceNumber), ev.InvoiceNumber},
		{"issue_date", orNil(d.IssueDate), ev.IssueDate},
		{"due_date", orNil(d.DueDate), ev.DueDate},
		{"po_number", orNil(d.PONumber), ev.PONumber},
		{"currency", orNil(d.Currency), ev.Currency},
		{"net_minor", orNil(d.NetMinor), ev.NetMinor},
		{"tax_minor", orNil(d.TaxMinor), ev.TaxMinor},
		{"total_minor", orNil(d.TotalMinor), ev.TotalMinor},
		{"amount_due_minor", orNil(d.AmountDueMinor), ev.AmountDueMinor},
	}
}

// v2Seeds is the seed corpus of FuzzValidateV2, one valid document per
// shape and one document per category.
func v2Seeds(t *testing.T) map[string][2]string {
	t.Helper()
	src := testSourceV2
	return map[string][2]string{
		"valid-full":             {validDocV2, src},
		"valid-all-nulls":        {nullDocV2, src},
		"valid-credit-note":      {creditDoc, testSourceCredit},
		"decode-amount-string":   {withV2(t, `"net_minor":100000`, `"net_minor":"1000,00"`), src},
		"duplicate-key-evidence": {withV2(t, `"evidence":{`, `"evidence":{"currency":null,`), src},
		"trailing-data":          {validDocV2 + "\n{}", src},
		"unknown-field":          {withV2(t, `"lines_complete":true`, `"lines_complete":true,"vat_id":null`), src},
		"schema-version":         {withV2(t, `"invoice-v2"`, `"invoice-summary-v1"`), src},
		"display-bidi-evidence":  {withV2(t, `"Kunde: Muster AG"`, `"Kunde: \u202eMuster AG"`), src},
		"facts-document-type":    {withV2(t, `"document_type":"invoice"`, `"document_type":"bill"`), src},
		"action-kind":            {withV2(t, `"kind":"contact_supplier"`, `"kind":"pay_now"`), src},
		"action-id":              {withV2(t, `"id":"a2"`, `"id":"a1"`), src},
		"action-evidence":        {withV2(t, `"evidence":"Bitte beachten Sie unsere neue Bankverbindung."`, `"evidence":"new bank account"`), src},
		"evidence-wrong-amount":  {withV2(t, `"net_minor":"Nettobetrag: EUR 1.000,00"`, `"net_minor":"Zahlbetrag: EUR 1.190,00"`), src},
		"iban-checksum":          {withV2(t, `"DE89370400440532013000"`, `"DE89370400440532013001"`), src},
		"vat-id-syntax":          {withV2(t, `"DE123456789"`, `"DE12345678"`), src},
		"arithmetic-total":       {withV2(t, `"amount_minor":20000`, `"amount_minor":30000`), src},
	}
}

// TestWriteV2Seeds rewrites the FuzzValidateV2 corpus under -update; the
// corpus itself is checked by TestFuzzSeedCorpus.
func TestWriteV2Seeds(t *testing.T) {
	t.Parallel()
	if !*update {
		t.Skip("rewrites testdata/fuzz/FuzzValidateV2 only under -update")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzValidateV2")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, seed := range v2Seeds(t) {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nstring(%q)\n", seed[0], seed[1])
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
