package eval

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/schema"
)

func TestNormSupplier(t *testing.T) {
	t.Parallel()
	same := []struct{ a, b string }{
		{"ACME Ltd.", "Acme Limited"},
		{"Müller Bürobedarf GmbH", "MÜLLER BÜROBEDARF"},
		{"Distribuciones Ibéricas, S.L.", "Distribuciones Ibéricas SL"},
		{"Van Dijk B.V.", "van dijk bv"},
		{"Kisaragi Precision Co., Ltd.", "KISARAGI PRECISION"},
		{"Ridgeline Analytics, Inc.", "Ridgeline Analytics Inc"},
		{"Hansen Logistik GmbH & Co. KG", "Hansen Logistik"},
		{"Polska Stal Sp. z o.o.", "Polska Stal"},
		{"Bau Meier UG (haftungsbeschränkt)", "Bau Meier"},
		{"O’Brien Ltd", "O'Brien"},
		{"Ｆｕｌｌｗｉｄｔｈ GmbH", "Fullwidth"},
	}
	for _, tc := range same {
		if NormSupplier(tc.a) != NormSupplier(tc.b) {
			t.Errorf("%q and %q differ: %q vs %q", tc.a, tc.b, NormSupplier(tc.a), NormSupplier(tc.b))
		}
	}
	differ := []struct{ a, b string }{
		{"Acme Ltd", "Acme Tools Ltd"},
		{"Muller & Sohne Haustechnik", "Müller & Söhne Haustechnik GmbH"},
		{"Schmidt und Partner", "Schmidt & Partner"},
		{"GmbH", ""}, // a name that is only a legal form keeps it
	}
	for _, tc := range differ {
		if NormSupplier(tc.a) == NormSupplier(tc.b) {
			t.Errorf("%q and %q compare equal (%q)", tc.a, tc.b, NormSupplier(tc.a))
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestScore(t *testing.T) {
	t.Parallel()
	res := &schema.Result{
		Facts: schema.InvoiceFacts{SupplierName: ptr("ACME Tools Ltd."), InvoiceNumber: ptr("A-1"), Currency: ptr("EUR"),
			TotalMinor: ptr(int64(12345)), DueDate: nil},
		Actions: []schema.ActionItem{{ID: "a1", Kind: "review_tax"}, {ID: "a2", Kind: "review_tax"}, {ID: "a3", Kind: "contact_supplier"}},
	}
	tests := []struct {
		name       string
		exp        Expect
		res        *schema.Result
		right      map[string]bool
		mismatches []Mismatch
		kinds      map[string]*KindCount
	}{
		{
			name:  "all right, supplier normalised, null due date",
			exp:   Expect{"supplier_name": "Acme Tools", "invoice_number": "A-1", "total_minor": int64(12345), "due_date": nil},
			res:   res,
			right: map[string]bool{"supplier_name": true, "invoice_number": true, "total_minor": true, "due_date": true},
		},
		{
			name:       "absent key is not scored, null must be null",
			exp:        Expect{"currency": nil},
			res:        res,
			right:      map[string]bool{"currency": false},
			mismatches: []Mismatch{{Field: "currency", Want: nil, Got: "EUR"}},
		},
		{
			name:  "exact invoice number, kinds as a set",
			exp:   Expect{"invoice_number": "a-1", "action_kinds": []string{"review_tax", "verify_purchase_order"}},
			res:   res,
			right: map[string]bool{"invoice_number": false, "action_kinds": false},
			mismatches: []Mismatch{
				{Field: "invoice_number", Want: "a-1", Got: "A-1"},
				{Field: "action_kinds", Want: []string{"review_tax", "verify_purchase_order"}, Got: []string{"contact_supplier", "review_tax"}},
			},
			kinds: map[string]*KindCount{"review_tax": {TP: 1}, "verify_purchase_order": {FN: 1}, "contact_supplier": {FP: 1}},
		},
		{
			name:  "v1's total is the amount payable: scored against a stated amount due, not the gross",
			exp:   Expect{"total_minor": int64(20000), "amount_due_minor": int64(12345)},
			res:   res,
			right: map[string]bool{"total_minor": true},
		},
		{
			name:       "v1's total against the amount due: the gross is wrong after a prepayment",
			exp:        Expect{"total_minor": int64(12345), "amount_due_minor": int64(2345)},
			res:        res,
			right:      map[string]bool{"total_minor": false},
			mismatches: []Mismatch{{Field: "total_minor", Want: int64(2345), Got: int64(12345)}},
		},
		{
			name:  "an explicit null total beside an amount due: v1's total is ambiguous, not scored",
			exp:   Expect{"total_minor": nil, "amount_due_minor": int64(12345), "currency": "EUR"},
			res:   res,
			right: map[string]bool{"currency": true},
		},
		{
			name:       "a null total alone must be null",
			exp:        Expect{"total_minor": nil},
			res:        res,
			right:      map[string]bool{"total_minor": false},
			mismatches: []Mismatch{{Field: "total_minor", Want: nil, Got: int64(12345)}},
		},
		{
			name:  "no result: every scored field wrong, nothing listed",
			exp:   Expect{"supplier_name": "Acme", "action_kinds": []string{"review_tax"}},
			res:   nil,
			right: map[string]bool{"supplier_name": false, "action_kinds": false},
			kinds: map[string]*KindCount{"review_tax": {FN: 1}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Score(tc.exp, tc.res)
			if diff := cmp.Diff(tc.right, got.Right); diff != "" {
				t.Errorf("right (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.mismatches, got.Mismatches); diff != "" {
				t.Errorf("mismatches (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.kinds, got.Kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
		})
	}
}
