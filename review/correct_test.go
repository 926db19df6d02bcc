package review_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/invx/invx/review"
	"github.com/invx/invx/schema"
)

const storedV2 = `{"schema_version":"invoice-v2","document_type":"invoice","title":"t","bullets":["b"],` +
	`"supplier_name":"ACME","supplier_vat_id":null,"supplier_iban":null,"buyer_name":null,"invoice_number":"RE-1",` +
	`"issue_date":null,"due_date":null,"po_number":null,"currency":"EUR","net_minor":null,"tax_minor":null,` +
	`"total_minor":538500,"amount_due_minor":null,"tax_lines":[],"line_items":[],"lines_complete":false,"action_items":[],` +
	`"evidence":{}}`

const storedV1 = `{"schema_version":"invoice-summary-v1","title":"t","bullets":["b"],"invoice":{"supplier_name":"ACME",` +
	`"invoice_number":"7","currency":"JPY","total_minor":null,"due_date":null},"action_items":[]}`

func lookup(t *testing.T, name string) *schema.Version {
	t.Helper()
	v, err := schema.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestApply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, version, doc string
		sets               []string
		wantChanges        string // JSON of the changes
		wantErr            string
	}{
		{name: "minor units", version: schema.V2, doc: storedV2, sets: []string{"total_minor=538535"},
			wantChanges: `[{"field":"total_minor","old":538500,"new":538535}]`},
		{name: "decimal in the currency", version: schema.V2, doc: storedV2, sets: []string{"total=5385.35"},
			wantChanges: `[{"field":"total_minor","old":538500,"new":538535}]`},
		{name: "decimal with fewer digits", version: schema.V2, doc: storedV2, sets: []string{"net=-12.5"},
			wantChanges: `[{"field":"net_minor","old":null,"new":-1250}]`},
		{name: "decimal in the currency set alongside", version: schema.V2, doc: storedV2,
			sets:        []string{"total=5385", "currency=jpy"},
			wantChanges: `[{"field":"total_minor","old":538500,"new":5385},{"field":"currency","old":"EUR","new":"JPY"}]`},
		{name: "too many decimals for JPY", version: schema.V1, doc: storedV1, sets: []string{"total=12.50"},
			wantErr: "at most 0 digit(s)"},
		{name: "v1 path and plain name", version: schema.V1, doc: storedV1,
			sets:        []string{"invoice.total_minor=120000", "due_date=2026-11-02"},
			wantChanges: `[{"field":"total_minor","old":null,"new":120000},{"field":"due_date","old":null,"new":"2026-11-02"}]`},
		{name: "null and text", version: schema.V2, doc: storedV2, sets: []string{"supplier_name=null", "issue_date=2026-11-02"},
			wantChanges: `[{"field":"supplier_name","old":"ACME","new":null},{"field":"issue_date","old":null,"new":"2026-11-02"}]`},
		{name: "VAT id compacted", version: schema.V2, doc: storedV2, sets: []string{"supplier_vat_id=de 123.456-789"},
			wantChanges: `[{"field":"supplier_vat_id","old":null,"new":"DE123456789"}]`},
		{name: "unknown field", version: schema.V2, doc: storedV2, sets: []string{"totl_minor=1"}, wantErr: `unknown field "totl_minor"`},
		{name: "v2 field on v1", version: schema.V1, doc: storedV1, sets: []string{"issue_date=2026-01-01"}, wantErr: "unknown field"},
		{name: "not an integer", version: schema.V2, doc: storedV2, sets: []string{"total_minor=5385.35"}, wantErr: "want an integer"},
		{name: "grouped decimal", version: schema.V2, doc: storedV2, sets: []string{"total=5,385.35"}, wantErr: "want a decimal"},
		{name: "decimal without currency", version: schema.V2, doc: storedV2, sets: []string{"currency=null", "total=1"},
			wantErr: "no currency"},
		{name: "unchanged", version: schema.V2, doc: storedV2, sets: []string{"invoice_number=RE-1"}, wantErr: "already"},
		{name: "twice", version: schema.V2, doc: storedV2, sets: []string{"total=1", "total_minor=2"}, wantErr: "set twice"},
		{name: "document_type null", version: schema.V2, doc: storedV2, sets: []string{"document_type=null"}, wantErr: "cannot be null"},
		{name: "nothing", version: schema.V2, doc: storedV2, wantErr: "nothing to correct"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sets []review.Set
			for _, s := range tc.sets {
				set, err := review.ParseSet(s)
				if err != nil {
					t.Fatal(err)
				}
				sets = append(sets, set)
			}
			c, err := review.Apply(lookup(t, tc.version), []byte(tc.doc), sets)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(c.Changes)
			if string(got) != tc.wantChanges {
				t.Errorf("changes %s, want %s", got, tc.wantChanges)
			}
			// The document holds the new values where the schema has them.
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(c.JSON, &doc); err != nil {
				t.Fatal(err)
			}
			if tc.version == schema.V1 {
				// The facts stay inside invoice: five top-level keys.
				if len(doc) != 5 {
					t.Errorf("v1 top level has %d keys: %s", len(doc), c.JSON)
				}
				inv := doc["invoice"]
				doc = nil
				if err := json.Unmarshal(inv, &doc); err != nil {
					t.Fatal(err)
				}
			}
			for _, ch := range c.Changes {
				if string(doc[ch.Field]) != string(ch.New) {
					t.Errorf("document %s = %s, want %s", ch.Field, doc[ch.Field], ch.New)
				}
			}
		})
	}
	if _, err := review.ParseSet("total_minor"); err == nil {
		t.Errorf("ParseSet without =: no error")
	}
}
