package einvoice

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
)

// ubl builds a minimal UBL invoice with the given type code, seller VAT id
// and amounts (net, tax, gross).
func ubl(code, vat, net, tax, gross string) string {
	return `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
<cbc:ID>T-1</cbc:ID><cbc:IssueDate>2026-01-05</cbc:IssueDate><cbc:InvoiceTypeCode>` + code + `</cbc:InvoiceTypeCode>
<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
<cac:AccountingSupplierParty><cac:Party><cac:PartyName><cbc:Name>Seller Ltd</cbc:Name></cac:PartyName>
<cac:PartyTaxScheme><cbc:CompanyID>` + vat + `</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme></cac:Party></cac:AccountingSupplierParty>
<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">` + tax + `</cbc:TaxAmount></cac:TaxTotal>
<cac:LegalMonetaryTotal><cbc:TaxExclusiveAmount currencyID="EUR">` + net + `</cbc:TaxExclusiveAmount>
<cbc:TaxInclusiveAmount currencyID="EUR">` + gross + `</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">` + gross + `</cbc:PayableAmount></cac:LegalMonetaryTotal>
</Invoice>`
}

func extractV2(t *testing.T, src string) (*schema.InvoiceV2, error) {
	t.Helper()
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := New().Extract(context.Background(), &extract.Request{Text: src, Schema: v})
	if err != nil {
		return nil, err
	}
	if _, err := v.ValidateReviewable(resp.Output, src); err != nil {
		t.Fatalf("answer fails validation: %v\n%s", err, resp.Output)
	}
	var d schema.InvoiceV2
	if err := json.Unmarshal(resp.Output, &d); err != nil {
		t.Fatal(err)
	}
	return &d, nil
}

// Right or silent: a value with no exact form in the schema is null and
// the rest of the document stands.
func TestMapV2RightOrSilent(t *testing.T) {
	t.Parallel()
	i64 := func(p *int64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	tests := []struct {
		name            string
		src             string
		docType         string
		vat             any
		net, tax, gross any
	}{
		{"plain invoice", ubl("380", "DE123456789", "100.00", "19", "119.0"), "invoice", "DE123456789", int64(10000), int64(1900), int64(11900)},
		{"VAT id of the wrong shape", ubl("380", "DE12345", "100.00", "19", "119.0"), "invoice", nil, int64(10000), int64(1900), int64(11900)},
		{"sub-cent amount is not rounded", ubl("380", "DE123456789", "100.004", "19", "119.004"), "invoice", "DE123456789", nil, int64(1900), nil},
		{"credit note code", ubl("381", "DE123456789", "100.00", "19", "119.00"), "credit_note", "DE123456789", int64(-10000), int64(-1900), int64(-11900)},
		{"negative invoice is a credit", ubl("380", "DE123456789", "-100.00", "-19", "-119.00"), "credit_note", "DE123456789", int64(-10000), int64(-1900), int64(-11900)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := extractV2(t, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			var vat any
			if d.SupplierVATID != nil {
				vat = *d.SupplierVATID
			}
			got := []any{d.DocumentType, vat, i64(d.NetMinor), i64(d.TaxMinor), i64(d.TotalMinor)}
			want := []any{tt.docType, tt.vat, tt.net, tt.tax, tt.gross}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("got %v, want %v", got, want)
					break
				}
			}
			if d.InvoiceNumber == nil || *d.InvoiceNumber != "T-1" {
				t.Errorf("invoice_number %v, want T-1", d.InvoiceNumber)
			}
		})
	}
}

// A text that is not an e-invoice is a permanent failure, not a guess.
func TestNotAnEInvoice(t *testing.T) {
	t.Parallel()
	_, err := extractV2(t, "Invoice 7\nTotal 10.00 EUR\n")
	var pe *extract.ProviderError
	if !errors.As(err, &pe) || pe.Class != extract.ClassPermanent || !strings.Contains(pe.Msg, "not XML") {
		t.Errorf("error %v, want a permanent provider error saying it is not XML", err)
	}
}
