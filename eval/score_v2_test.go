package eval

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/schema"
)

// creditNoteV2 is a validated invoice-v2 credit note as a model writes it:
// negative amounts, two lines, a discount line among them.
func creditNoteV2(t *testing.T) *schema.Result {
	t.Helper()
	return &schema.Result{Version: schema.V2, InvoiceV2: &schema.InvoiceV2{
		SchemaVersion: schema.V2, DocumentType: schema.DocCreditNote,
		SupplierName: ptr("Brackenridge Ltd"), SupplierVATID: ptr("GB123456789"),
		SupplierIBAN: ptr("GB33BUKB20201555555555"), BuyerName: ptr("Harlow & Finch LLP"),
		InvoiceNumber: ptr("CN-0042"), IssueDate: ptr("2026-03-31"), PONumber: nil, Currency: ptr("GBP"),
		NetMinor: ptr(int64(-20685)), TaxMinor: ptr(int64(-4137)), TotalMinor: ptr(int64(-24822)),
		AmountDueMinor: ptr(int64(-24822)),
		LineItems: []schema.LineItem{
			{Description: "Returned goods", AmountMinor: ptr(int64(-21685))},
			{Description: "Restocking fee", AmountMinor: ptr(int64(1000))},
		},
		ActionItems: []schema.ActionItem{{ID: "a1", Kind: "contact_supplier"}},
	}}
}

// withVAT is creditNoteV2 with another supplier VAT id.
func withVAT(t *testing.T, vat string) *schema.Result {
	t.Helper()
	res := creditNoteV2(t)
	res.InvoiceV2.SupplierVATID = &vat
	return res
}

func TestScoreVersionV2(t *testing.T) {
	t.Parallel()
	// full is the right expectation of creditNoteV2, amounts as printed
	// (magnitudes), read through ParseExpect like a fixture.
	full := `{"document_type": "credit_note", "supplier_name": "Brackenridge Limited", "supplier_vat_id": "GB 123 4567 89",
		"supplier_iban": "GB33 BUKB 2020 1555 5555 55", "buyer_name": "HARLOW & FINCH llp", "invoice_number": "CN-0042",
		"issue_date": "2026-03-31", "due_date": null, "po_number": null, "currency": "GBP",
		"net_minor": 20685, "tax_minor": 4137, "gross_minor": 24822, "amount_due_minor": 24822, "total_minor": 24822,
		"line_count": 2, "line_sum_minor": 20685, "action_kinds": ["contact_supplier"]}`
	tests := []struct {
		name       string
		exp        string
		res        *schema.Result
		mismatches []Mismatch
		scored     int
	}{
		{"every field right, amounts by magnitude", full, creditNoteV2(t), nil, 17},
		{"dev-set aliases are read as our keys", `{"payable_minor": 24822, "seller_vat": "GB123456789", "iban": "GB33BUKB20201555555555"}`,
			creditNoteV2(t), nil, 3},
		{"a wrong line sum and count", `{"line_count": 3, "line_sum_minor": 21685}`, creditNoteV2(t),
			[]Mismatch{{FieldLineCount, int64(3), int64(2)}, {FieldLineSumMinor, int64(21685), int64(-20685)}}, 2},
		{"no lines read and none claimed complete is a null count, not zero", `{"line_count": 3}`, withoutLines(t, false),
			[]Mismatch{{FieldLineCount, int64(3), nil}}, 1},
		{"no lines read is right for a document without lines", `{"line_count": 0}`, withoutLines(t, false), nil, 1},
		{"no lines claimed complete is a count of zero", `{"line_count": 3}`, withoutLines(t, true),
			[]Mismatch{{FieldLineCount, int64(3), int64(0)}}, 1},
		{"a wrong IBAN is masked on both sides", `{"supplier_iban": "GB82WEST12345698765432"}`, creditNoteV2(t),
			[]Mismatch{{FieldSupplierIBAN, "GB82…5432", "GB33…5555"}}, 1},
		{"v2 total_minor is the gross total, not v1's amount payable", `{"total_minor": 1000, "gross_minor": 24822, "amount_due_minor": 1000}`,
			creditNoteV2(t), []Mismatch{{FieldAmountDueMinor, int64(1000), int64(-24822)}}, 2},
		{"v1 total_minor stands for the gross total when the amount due is the same", `{"total_minor": 24822, "amount_due_minor": 24822}`,
			creditNoteV2(t), nil, 2},
		{"total_minor alone: the total when no amount due is stated", `{"total_minor": 24822}`, creditNoteV2(t), nil, 1},
		{"total_minor alone may be the gross total (the dev set's BT-112), whatever is still due", `{"total_minor": 24822}`,
			withDue(t, 1000), nil, 1},
		{"total_minor alone may be the amount payable (v1-style suites, receipts)", `{"total_minor": 1000}`,
			withDue(t, 1000), nil, 1},
		{"total_minor alone equal to neither total is wrong, shown against the amount payable", `{"total_minor": 5000}`,
			withDue(t, 1000), []Mismatch{{FieldTotalMinor, int64(5000), int64(-1000)}}, 1},
		{"a VAT id without its country prefix, as printed", `{"supplier_vat_id": "GB 123456789"}`, withVAT(t, "123456789"), nil, 1},
		{"a VAT id with another country prefix", `{"supplier_vat_id": "DE123456789"}`, creditNoteV2(t),
			[]Mismatch{{FieldSupplierVATID, "DE123456789", "GB123456789"}}, 1},
		{"two digits are no country prefix", `{"supplier_vat_id": "99123456789"}`, withVAT(t, "123456789"),
			[]Mismatch{{FieldSupplierVATID, "99123456789", "123456789"}}, 1},
		{"a VAT id missing a digit", `{"supplier_vat_id": "GB123456789"}`, withVAT(t, "12345678"),
			[]Mismatch{{FieldSupplierVATID, "GB123456789", "12345678"}}, 1},
		{"a credit note read as an invoice", `{"document_type": "invoice"}`, creditNoteV2(t),
			[]Mismatch{{FieldDocumentType, "invoice", "credit_note"}}, 1},
		{"no result: every scored field wrong, nothing listed", full, nil, nil, 17},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			exp, err := ParseExpect([]byte(tc.exp))
			if err != nil {
				t.Fatalf("ParseExpect: %v", err)
			}
			sc := ScoreVersion(schema.V2, exp, tc.res)
			if diff := cmp.Diff(tc.mismatches, sc.Mismatches); diff != "" {
				t.Errorf("mismatches (-want +got):\n%s", diff)
			}
			if len(sc.Right) != tc.scored {
				t.Errorf("scored %d fields %v, want %d", len(sc.Right), sc.Right, tc.scored)
			}
			right := 0
			for _, ok := range sc.Right {
				if ok {
					right++
				}
			}
			if want := tc.scored - len(tc.mismatches); tc.res != nil && right != want {
				t.Errorf("%d fields right, want %d", right, want)
			}
			if tc.res == nil && right != 0 {
				t.Errorf("%d fields right without a result", right)
			}
		})
	}
}

func TestScoreV1Unchanged(t *testing.T) {
	t.Parallel()
	// A v1 expectation holding v2 keys scores exactly v1's fields, and a v1
	// total_minor is compared with its sign.
	exp, err := ParseExpect([]byte(`{"total_minor": 24822, "net_minor": 1, "document_type": "invoice", "line_count": 9}`))
	if err != nil {
		t.Fatal(err)
	}
	res := &schema.Result{Version: schema.V1, Facts: schema.InvoiceFacts{TotalMinor: ptr(int64(-24822))}, Actions: []schema.ActionItem{}}
	sc := Score(exp, res)
	if diff := cmp.Diff(map[string]bool{FieldTotalMinor: false}, sc.Right); diff != "" {
		t.Errorf("scored fields (-want +got):\n%s", diff)
	}
}

func TestParseExpectV2(t *testing.T) {
	t.Parallel()
	bad := []struct{ name, in, msg string }{
		{"alias and key at once", `{"iban": "X", "supplier_iban": "X"}`, "the same fact twice"},
		{"line_count null", `{"line_count": null}`, "line_count: want a non-negative integer"},
		{"negative line_count", `{"line_count": -1}`, "not a non-negative integer"},
		{"total not an integer", `{"total_minor": 1.5}`, "not an integer of minor units"},
		{"amount as a string", `{"net_minor": "12,00"}`, "net_minor: want an integer or null"},
		{"unknown key", `{"gross": 1}`, `unknown key "gross"`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseExpect([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("ParseExpect(%s) = %v, want an error containing %q", tc.in, err, tc.msg)
			}
		})
	}
	exp, err := ParseExpect([]byte(`{"payable_minor": -500, "gross_minor": null, "seller_vat": "DE1"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Expect{FieldAmountDueMinor: int64(-500), KeyGrossMinor: nil, FieldSupplierVATID: "DE1"}
	if diff := cmp.Diff(want, exp); diff != "" {
		t.Errorf("aliases (-want +got):\n%s", diff)
	}
}

func TestMaskIBAN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"DE89370400440532013000":      "DE89…3000",
		"de89 3704 0044 0532 0130 00": "DE89…3000",
		"DE89":                        "…",
	} {
		if got := MaskIBAN(in); got != want {
			t.Errorf("MaskIBAN(%q) = %q, want %q", in, got, want)
		}
	}
}

// withDue is the credit note with an amount due stated apart from its total.
func withoutLines(t *testing.T, complete bool) *schema.Result {
	t.Helper()
	res := creditNoteV2(t)
	res.InvoiceV2.LineItems, res.InvoiceV2.LinesComplete = nil, complete
	return res
}

func withDue(t *testing.T, due int64) *schema.Result {
	t.Helper()
	res := creditNoteV2(t)
	d := -due
	res.InvoiceV2.AmountDueMinor = &d
	return res
}
