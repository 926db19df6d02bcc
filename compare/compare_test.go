package compare

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/schema"
)

func v1Doc(t *testing.T, supplier string, total int64) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"schema_version": schema.V1, "title": "t", "bullets": []string{"b"},
		"invoice": map[string]any{"supplier_name": supplier, "invoice_number": "N-1", "currency": "EUR", "total_minor": total,
			"due_date": nil}, "action_items": []any{}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// v2Doc is a v2 result with the given amounts (nil: null).
func v2Doc(t *testing.T, supplier string, total, due *int64) []byte {
	t.Helper()
	ev := map[string]any{}
	for _, f := range []string{"supplier_name", "supplier_vat_id", "supplier_iban", "buyer_name", "invoice_number", "issue_date",
		"due_date", "po_number", "currency", "net_minor", "tax_minor", "total_minor", "amount_due_minor"} {
		ev[f] = nil
	}
	b, err := json.Marshal(map[string]any{"schema_version": schema.V2, "document_type": "invoice", "title": "t", "bullets": []string{"b"},
		"supplier_name": supplier, "supplier_vat_id": nil, "supplier_iban": nil, "buyer_name": nil, "invoice_number": "N-1",
		"issue_date": nil, "due_date": nil, "po_number": nil, "currency": "EUR", "net_minor": nil, "tax_minor": nil,
		"total_minor": total, "amount_due_minor": due, "tax_lines": []any{}, "line_items": []any{}, "lines_complete": false,
		"action_items": []any{}, "evidence": ev})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ptr(v int64) *int64 { return &v }

func TestCompare(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		// Same facts; v2 a credit note: magnitudes agree.
		{Tenant: "a", SourceDigest: "d1", Path: "one.txt", JobKey: "k1", Version: schema.V1, JSON: v1Doc(t, "ACME", 6000)},
		{Tenant: "a", SourceDigest: "d1", Path: "one.txt", JobKey: "k2", Version: schema.V2, JSON: v2Doc(t, "ACME", ptr(-6000), nil)},
		// v2's amount due (after a prepayment) is what v1 calls the total.
		{Tenant: "a", SourceDigest: "d2", Path: "two.txt", JobKey: "k3", Version: schema.V1, JSON: v1Doc(t, "Beta", 500)},
		{Tenant: "a", SourceDigest: "d2", Path: "two.txt", JobKey: "k4", Version: schema.V2, JSON: v2Doc(t, "Beta Ltd", ptr(1000), ptr(500)), Shadow: true},
		// The same digest in another tenant is another document: one version only.
		{Tenant: "b", SourceDigest: "d1", Path: "one.txt", JobKey: "k5", Version: schema.V1, JSON: v1Doc(t, "ACME", 6000)},
		{Tenant: "a", SourceDigest: "d3", Path: "three.txt", JobKey: "k6", Version: schema.V2, JSON: v2Doc(t, "Gamma", nil, nil)},
		// Another version is ignored.
		{Tenant: "a", SourceDigest: "d1", Path: "one.txt", JobKey: "k7", Version: "invoice-summary-v0", JSON: []byte(`{}`)},
	}
	r, err := Compare(schema.V1, schema.V2, docs)
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	want := &Report{Schema: schema.V1, With: schema.V2, Compared: 2, OnlySchema: 1, OnlyWith: 1,
		Fields: []FieldAgreement{{"supplier_name", 1, 1, 50}, {"invoice_number", 2, 0, 100}, {"currency", 2, 0, 100},
			{"total_minor", 2, 0, 100}, {"due_date", 2, 0, 100}, {"action_kinds", 2, 0, 100}},
		Differences: []Difference{{Tenant: "a", Path: "two.txt", SchemaKey: "k3", WithKey: "k4", Field: "supplier_name",
			SchemaVal: s("Beta"), WithVal: s("Beta Ltd"), WithShadow: true}}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

func TestCompareRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, a, b string }{
		{"same version", schema.V2, schema.V2},
		{"unknown version", schema.V1, "invoice-summary-v0"},
	} {
		if _, err := Compare(tc.a, tc.b, nil); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	// A stored result that is not its version is an error, not a guess.
	docs := []Doc{{Tenant: "a", SourceDigest: "d", Version: schema.V1, JSON: []byte(`{"schema_version":"invoice-v2"}`)},
		{Tenant: "a", SourceDigest: "d", Version: schema.V2, JSON: v2Doc(t, "x", nil, nil)}}
	if _, err := Compare(schema.V1, schema.V2, docs); err == nil {
		t.Errorf("mislabelled result: no error")
	}
}
