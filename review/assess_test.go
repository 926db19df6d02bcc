package review

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

func i64(v int64) *int64 { return &v }

func TestAssess(t *testing.T) {
	t.Parallel()
	full := func() *schema.InvoiceV2 {
		return &schema.InvoiceV2{DocumentType: schema.DocInvoice, SupplierName: ptr("Brandt GmbH"),
			SupplierVATID: ptr("DE812445903"), InvoiceNumber: ptr("RE-2026-00417"), IssueDate: ptr("2026-03-01"),
			Currency: ptr("EUR"), TotalMinor: i64(538535)}
	}
	v2 := func(edit func(d *schema.InvoiceV2)) *schema.Result {
		d := full()
		if edit != nil {
			edit(d)
		}
		return &schema.Result{Version: schema.V2, InvoiceV2: d}
	}
	tests := []struct {
		name     string
		res      *schema.Result
		require  []string
		reasons  []string // reason: detail JSON
		identity *store.DocIdentity
	}{
		{"complete v2", v2(nil), DefaultRequire(schema.V2), nil,
			&store.DocIdentity{VATKey: "812445903", NameKey: "brandt", NumberKey: "re2026417", TotalMinor: i64(538535), IssueDate: ptr("2026-03-01")}},
		{"no total", v2(func(d *schema.InvoiceV2) { d.TotalMinor = nil }), DefaultRequire(schema.V2),
			[]string{`incomplete: {"missing":["total_minor"]}`},
			&store.DocIdentity{VATKey: "812445903", NameKey: "brandt", NumberKey: "re2026417", IssueDate: ptr("2026-03-01")}},
		{"type other and no number", v2(func(d *schema.InvoiceV2) { d.DocumentType = schema.DocOther; d.InvoiceNumber = nil }),
			DefaultRequire(schema.V2), []string{`incomplete: {"missing":["document_type","invoice_number"]}`}, nil},
		{"policy asks for the PO", v2(nil), []string{"po_number", "total_minor"},
			[]string{`incomplete: {"missing":["po_number"]}`},
			&store.DocIdentity{VATKey: "812445903", NameKey: "brandt", NumberKey: "re2026417", TotalMinor: i64(538535), IssueDate: ptr("2026-03-01")}},
		{"arithmetic", func() *schema.Result {
			r := v2(nil)
			r.Review = []*schema.ValidationError{{Path: "total_minor", Category: schema.CategoryArithmetic, Msg: "net_minor + tax_minor differs"}}
			return r
		}(), DefaultRequire(schema.V2), []string{`arithmetic: {"problems":[{"path":"total_minor","message":"net_minor + tax_minor differs"}]}`},
			&store.DocIdentity{VATKey: "812445903", NameKey: "brandt", NumberKey: "re2026417", TotalMinor: i64(538535), IssueDate: ptr("2026-03-01")}},
		{"v1 ignores v2-only fields", &schema.Result{Version: schema.V1, Facts: schema.InvoiceFacts{SupplierName: ptr("Brandt GmbH"), InvoiceNumber: ptr("7")}},
			[]string{"issue_date", "currency"}, []string{`incomplete: {"missing":["currency"]}`},
			&store.DocIdentity{NameKey: "brandt", NumberKey: "7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Assess(tt.res, tt.require)
			var reasons []string
			for _, r := range got.Reasons {
				var v any
				if err := json.Unmarshal(r.Detail, &v); err != nil {
					t.Fatalf("detail %s: %v", r.Detail, err)
				}
				reasons = append(reasons, r.Reason+": "+string(r.Detail))
			}
			if diff := cmp.Diff(tt.reasons, reasons); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.identity, got.Identity); diff != "" {
				t.Errorf("identity (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckRequire(t *testing.T) {
	t.Parallel()
	if err := CheckRequire([]string{"total_minor", "po_number", "due_date"}); err != nil {
		t.Errorf("valid fields refused: %v", err)
	}
	if err := CheckRequire([]string{"total"}); err == nil {
		t.Error("unknown field total accepted")
	}
}
