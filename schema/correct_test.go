package schema

import (
	"errors"
	"strings"
	"testing"
)

// ValidateCorrection: a corrected fact needs no evidence (and loses what it
// had); everything else is validated as ValidateReviewable does.
func TestValidateCorrection(t *testing.T) {
	t.Parallel()
	v := v2Version(t)
	// The clerk's total: 1195.00 instead of 1190.00. Its evidence still
	// says 1.190,00, so only the exemption lets it through.
	corrected := withV2(t, `"total_minor":119000`, `"total_minor":119500`)
	for _, tc := range []struct {
		name      string
		raw       string
		source    string
		corrected []string
		wantCat   Category // "" when valid
		wantErr   string   // a plain error's text
		check     func(t *testing.T, res *Result)
	}{
		{name: "corrected total needs no evidence", raw: corrected, source: testSourceV2, corrected: []string{"total_minor"},
			check: func(t *testing.T, res *Result) {
				t.Helper()
				d := res.InvoiceV2
				if d.TotalMinor == nil || *d.TotalMinor != 119500 || d.Evidence.TotalMinor != nil {
					t.Errorf("total %v, evidence %v; want 119500 and null evidence", deref(d.TotalMinor), deref(d.Evidence.TotalMinor))
				}
				if !strings.Contains(string(res.JSON), `"total_minor":null,"amount_due_minor"`) {
					t.Errorf("canonical JSON keeps the corrected fact's evidence: %s", res.JSON)
				}
				// net + tax no longer adds up: a review reason, not an error.
				if len(res.Review) == 0 || res.Review[0].Category != CategoryArithmetic {
					t.Errorf("review %v, want arithmetic problems", res.Review)
				}
				if d.Evidence.NetMinor == nil || *d.Evidence.NetMinor != "Nettobetrag: EUR 1.000,00" {
					t.Errorf("uncorrected evidence changed: %v", deref(d.Evidence.NetMinor))
				}
			}},
		{name: "without the exemption the same document is refused", raw: corrected, source: testSourceV2,
			wantCat: CategoryEvidence},
		{name: "evidence given for a corrected fact is ignored", source: testSourceV2, corrected: []string{"total_minor"},
			raw: replaceOnce(t, corrected, `"total_minor":"Gesamtbetrag: EUR 1.190,00"`, `"total_minor":"typed by hand"`),
			check: func(t *testing.T, res *Result) {
				t.Helper()
				if res.InvoiceV2.Evidence.TotalMinor != nil {
					t.Errorf("evidence %q kept", *res.InvoiceV2.Evidence.TotalMinor)
				}
			}},
		{name: "a fact not named still needs its evidence", raw: withV2(t, `"net_minor":100000`, `"net_minor":100500`),
			source: testSourceV2, corrected: []string{"total_minor"}, wantCat: CategoryEvidence},
		{name: "a corrected value is still checked", raw: withV2(t, `"issue_date":"2026-03-01"`, `"issue_date":"2026-02-30"`),
			source: testSourceV2, corrected: []string{"issue_date"}, wantCat: CategoryFacts},
		{name: "a corrected date before the issue date is arithmetic", source: testSourceV2, corrected: []string{"due_date"},
			raw: withV2(t, `"due_date":"2026-03-31"`, `"due_date":"2026-02-01"`),
			check: func(t *testing.T, res *Result) {
				t.Helper()
				if len(res.Review) != 1 || res.Review[0].Path != "due_date" {
					t.Errorf("review %v, want one due_date problem", res.Review)
				}
			}},
		{name: "corrected to null", source: testSourceV2, corrected: []string{"po_number"},
			raw: withV2(t, `"po_number":"4500012345"`, `"po_number":null`),
			check: func(t *testing.T, res *Result) {
				t.Helper()
				if res.InvoiceV2.PONumber != nil || res.InvoiceV2.Evidence.PONumber != nil {
					t.Errorf("po_number %v evidence %v", deref(res.InvoiceV2.PONumber), deref(res.InvoiceV2.Evidence.PONumber))
				}
			}},
		{name: "text pruned: evidence not looked up", raw: corrected, source: "", corrected: []string{"total_minor"}},
		{name: "text pruned: evidence must still hold its value", source: "", corrected: []string{"total_minor"},
			raw:     replaceOnce(t, corrected, `"net_minor":"Nettobetrag: EUR 1.000,00"`, `"net_minor":"Nettobetrag: EUR 9.000,00"`),
			wantCat: CategoryEvidence},
		{name: "with the text, evidence must be in it", source: testSourceV2, corrected: []string{"total_minor"},
			raw:     replaceOnce(t, corrected, `"net_minor":"Nettobetrag: EUR 1.000,00"`, `"net_minor":"Netto EUR 1.000,00"`),
			wantCat: CategoryEvidence},
		{name: "unknown field", raw: validDocV2, source: testSourceV2, corrected: []string{"title"},
			wantErr: `invoice-v2 has no correctable field "title"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := v.ValidateCorrection([]byte(tc.raw), tc.source, tc.corrected)
			var ve *ValidationError
			switch {
			case tc.wantErr != "":
				if err == nil || errors.As(err, &ve) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want a plain error with %q", err, tc.wantErr)
				}
			case tc.wantCat != "":
				if !errors.As(err, &ve) || ve.Category != tc.wantCat {
					t.Fatalf("err %v, want category %s", err, tc.wantCat)
				}
			case err != nil:
				t.Fatalf("err %v", err)
			case tc.check != nil:
				tc.check(t, res)
			}
		})
	}
}

func TestValidateCorrectionV1(t *testing.T) {
	t.Parallel()
	v, err := Lookup(V1)
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"schema_version":"invoice-summary-v1","title":"t","bullets":["b"],"invoice":{"supplier_name":"ACME",` +
		`"invoice_number":"7","currency":"EUR","total_minor":538535,"due_date":null},"action_items":[]}`
	for _, field := range []string{"invoice.total_minor", "total_minor"} {
		res, err := v.ValidateCorrection([]byte(doc), "", []string{field})
		if err != nil || *res.Facts.TotalMinor != 538535 {
			t.Errorf("%s: %v", field, err)
		}
	}
	if _, err := v.ValidateCorrection([]byte(doc), "", []string{"issue_date"}); err == nil {
		t.Errorf("v1 issue_date accepted")
	}
	neg := strings.Replace(doc, "538535", "-1", 1)
	var ve *ValidationError
	if _, err := v.ValidateCorrection([]byte(neg), "", []string{"total_minor"}); !errors.As(err, &ve) {
		t.Errorf("negative v1 total: %v, want a validation error", err)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
