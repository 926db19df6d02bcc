package schema

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The credit-note source and answer: negative amounts at a standard and a
// reduced rate. The total tax is stated in no single excerpt, so tax_minor
// is null; the tax lines still add up to the net.
const testSourceCredit = `Gutschrift Nr. GS-17
Datum: 2026-04-02
Lieferant: ACME Bürobedarf GmbH
Gutschrift zu Rechnung RE-2026-0042
Nettobetrag: -150,00 EUR
MwSt 19%: -19,00 EUR auf -100,00
MwSt 7%: -3,50 EUR auf -50,00
Gutschriftsbetrag: -172,50 EUR
`

const creditDoc = `{"schema_version":"invoice-v2","document_type":"credit_note","title":"Credit note GS-17","bullets":["Refund of EUR 172.50."],` +
	`"supplier_name":"ACME Bürobedarf GmbH","supplier_vat_id":null,"supplier_iban":null,"buyer_name":null,"invoice_number":"GS-17",` +
	`"issue_date":"2026-04-02","due_date":null,"po_number":null,"currency":"EUR",` +
	`"net_minor":-15000,"tax_minor":null,"total_minor":-17250,"amount_due_minor":null,` +
	`"tax_lines":[{"rate_bp":1900,"base_minor":-10000,"tax_minor":-1900},{"rate_bp":700,"base_minor":-5000,"tax_minor":-350}],` +
	`"line_items":[],"lines_complete":false,"action_items":[],` +
	`"evidence":{"supplier_name":"Lieferant: ACME Bürobedarf GmbH","supplier_vat_id":null,"supplier_iban":null,"buyer_name":null,` +
	`"invoice_number":"Gutschrift Nr. GS-17","issue_date":"Datum: 2026-04-02","due_date":null,"po_number":null,"currency":"EUR",` +
	`"net_minor":"Nettobetrag: -150,00 EUR","tax_minor":null,"total_minor":"Gutschriftsbetrag: -172,50 EUR","amount_due_minor":null}}`

func TestValidateV2Accepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		raw    string
		source string
	}{
		{"v2-all-nulls", nullDocV2, testSourceV2},
		{"v2-full", validDocV2, testSourceV2},
		{"v2-credit-note", creditDoc, testSourceCredit},
		// Keys in another order and escapes: the canonical form is the
		// same as v2-full's.
		{"v2-reordered", reorderedV2(t), testSourceV2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := v2Version(t)
			got, err := v.Validate([]byte(tt.raw), tt.source)
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			name := tt.name
			if name == "v2-reordered" {
				name = "v2-full"
			}
			golden(t, "canonical/"+name+".json", append(got.JSON, '\n'))
			if got.Version != V2 || got.InvoiceV2 == nil || len(got.Review) != 0 {
				t.Fatalf("Result = version %q, InvoiceV2 %v, Review %v", got.Version, got.InvoiceV2, got.Review)
			}
			if got.InvoiceV2.TaxLines == nil || got.InvoiceV2.LineItems == nil || got.InvoiceV2.ActionItems == nil || got.Actions == nil {
				t.Error("nil slice in the result; want empty")
			}
			if got.Facts != (InvoiceFacts{}) {
				t.Errorf("v1 Facts filled for a v2 result: %+v", got.Facts)
			}
			again, err := v.Validate(got.JSON, tt.source)
			if err != nil {
				t.Fatalf("Validate(canonical): %v", err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("canonical JSON not a fixed point (-first +again):\n%s", diff)
			}
			// A v2 document is never a v1 document, and the reverse.
			if _, err := v1.Validate(got.JSON, tt.source); err == nil {
				t.Error("v1 accepted a v2 document")
			}
		})
	}
}

// reorderedV2 is validDocV2 with its top-level keys reversed, pretty
// printed and a few characters escaped.
func reorderedV2(t *testing.T) string {
	t.Helper()
	doc := validDocV2
	// The evidence object moves first; the rest keeps its order. Field
	// order of the canonical form must not depend on the answer's.
	i := strings.Index(doc, `,"evidence":{`)
	ev := doc[i+1 : len(doc)-1]
	doc = "{\n  " + ev + ",\n  " + doc[1:i] + "\n}\n"
	return replaceOnce(t, doc, `"title":"ACME`, `"title":"\u0041CME`, `"lines_complete":true`, `"lines_complete" : true`)
}

func TestValidateV2Rejects(t *testing.T) {
	t.Parallel()
	type want struct {
		Category Category
		Path     string
	}
	tests := []struct {
		name   string
		raw    string
		source string // testSourceV2 when empty
		want   want
	}{
		// Shared machinery, as v1: syntax, trailing data, unknown and
		// duplicate keys, lone surrogates, display rules.
		{"not json", `invoice`, "", want{CategoryDecode, "$"}},
		{"too large", validDocV2 + strings.Repeat(" ", 64<<10), "", want{CategoryDecode, "$"}},
		{"lone surrogate", withV2(t, `"Muster AG","invoice_number"`, `"Muster \udc00AG","invoice_number"`), "", want{CategoryDecode, "$"}},
		{"trailing data", validDocV2 + `{}`, "", want{CategoryTrailingData, "$"}},
		{"unknown key", withV2(t, `"lines_complete":true`, `"lines_complete":true,"iban":null`), "", want{CategoryUnknownField, "$"}},
		{"unknown key in tax line", withV2(t, `"rate_bp":1900,"base_minor"`, `"rate_bp":1900,"rate":"19%","base_minor"`), "", want{CategoryUnknownField, "tax_lines[0]"}},
		{"unknown key in evidence", withV2(t, `"evidence":{`, `"evidence":{"document_type":"Rechnung",`), "", want{CategoryUnknownField, "evidence"}},
		{"duplicate key", withV2(t, `"net_minor":100000,`, `"net_minor":100000,"net_minor":1,`), "", want{CategoryDuplicateKey, "net_minor"}},
		{"case-variant key", withV2(t, `"po_number":"4500012345",`, `"po_number":"4500012345","PO_Number":"x",`), "", want{CategoryDuplicateKey, "po_number"}},
		{"v1 schema_version", withV2(t, `"invoice-v2"`, `"invoice-summary-v1"`), "", want{CategorySchemaVersion, "schema_version"}},
		{"v1 document", validDoc, testSource, want{CategorySchemaVersion, "schema_version"}},
		{"title bidi", withV2(t, `"title":"ACME`, `"title":"\u202eACME`), "", want{CategoryDisplay, "title"}},
		{"buyer_name too long", withV2(t, `"buyer_name":"Muster AG"`, `"buyer_name":"`+strings.Repeat("b", 201)+`"`), "", want{CategoryDisplay, "buyer_name"}},
		{"description control", withV2(t, `"Schreibtischlampe"`, `"Schreib\u001btischlampe"`), "", want{CategoryDisplay, "line_items[1].description"}},
		{"fact evidence bidi", withV2(t, `"buyer_name":"Kunde: Muster AG"`, `"buyer_name":"Kunde: \u200fMuster AG"`), "", want{CategoryDisplay, "evidence.buyer_name"}},
		{"fact evidence too long", withV2(t, `"buyer_name":"Kunde: Muster AG"`, `"buyer_name":"`+strings.Repeat("K", 501)+`"`), "", want{CategoryDisplay, "evidence.buyer_name"}},

		// decode: wrong JSON types.
		{"lines_complete a string", withV2(t, `"lines_complete":true`, `"lines_complete":"true"`), "", want{CategoryDecode, "lines_complete"}},
		{"tax_lines null", withV2(t, `"tax_lines":[{"rate_bp":1900,"base_minor":100000,"tax_minor":19000}]`, `"tax_lines":null`), "", want{CategoryDecode, "tax_lines"}},
		{"tax_lines missing", withV2(t, `"tax_lines":[{"rate_bp":1900,"base_minor":100000,"tax_minor":19000}],`, ``), "", want{CategoryDecode, "tax_lines"}},
		{"line item a string", withV2(t, `"line_items":[`, `"line_items":["x",`), "", want{CategoryDecode, "line_items[0]"}},
		{"net_minor a string", withV2(t, `"net_minor":100000`, `"net_minor":"1000,00"`), "", want{CategoryDecode, "net_minor"}},
		{"tax line tax null", withV2(t, `"base_minor":100000,"tax_minor":19000`, `"base_minor":100000,"tax_minor":null`), "", want{CategoryDecode, "tax_lines[0].tax_minor"}},
		{"evidence an array", withV2(t, `"evidence":{`, `"evidence":[],"x":{`), "", want{CategoryDecode, "evidence"}},

		// facts
		{"document_type unknown", withV2(t, `"document_type":"invoice"`, `"document_type":"Rechnung"`), "", want{CategoryFacts, "document_type"}},
		{"document_type null", withV2(t, `"document_type":"invoice"`, `"document_type":null`), "", want{CategoryDecode, "document_type"}},
		{"document_type missing", withV2(t, `"document_type":"invoice",`, ``), "", want{CategoryFacts, "document_type"}},
		{"fact key missing", withV2(t, `"buyer_name":"Muster AG",`, ``), "", want{CategoryFacts, "buyer_name"}},
		{"issue_date not a date", withV2(t, `"issue_date":"2026-03-01"`, `"issue_date":"01.03.2026"`), "", want{CategoryFacts, "issue_date"}},
		{"currency unknown", withV2(t, `"currency":"EUR"`, `"currency":"EURO"`), "", want{CategoryFacts, "currency"}},
		{"amount float", withV2(t, `"total_minor":119000`, `"total_minor":1190.00`), "", want{CategoryFacts, "total_minor"}},
		{"amount beyond 2^53", withV2(t, `"total_minor":119000`, `"total_minor":-9007199254740992`), "", want{CategoryFacts, "total_minor"}},
		{"rate above 100%", withV2(t, `"rate_bp":1900,"base_minor"`, `"rate_bp":19000,"base_minor"`), "", want{CategoryFacts, "tax_lines[0].rate_bp"}},
		{"rate negative", withV2(t, `"amount_minor":20000,"tax_rate_bp":1900`, `"amount_minor":20000,"tax_rate_bp":-1`), "", want{CategoryFacts, "line_items[1].tax_rate_bp"}},
		{"quantity with comma", withV2(t, `"quantity":"2"`, `"quantity":"1,5"`), "", want{CategoryFacts, "line_items[0].quantity"}},
		{"quantity with unit", withV2(t, `"quantity":"2"`, `"quantity":"2 Stk"`), "", want{CategoryFacts, "line_items[0].quantity"}},
		{"description blank", withV2(t, `"Schreibtischlampe"`, `" "`), "", want{CategoryFacts, "line_items[1].description"}},
		{"too many tax lines", withV2(t, `"tax_lines":[`, `"tax_lines":[`+strings.Repeat(`{"rate_bp":0,"base_minor":0,"tax_minor":0},`, 16)), "", want{CategoryFacts, "tax_lines"}},
		{"amount without currency", withV2(t, `"currency":"EUR"`, `"currency":null`, `"currency":"Gesamtbetrag: EUR 1.190,00"`, `"currency":null`), "", want{CategoryFacts, "net_minor"}},
		{"line amount without currency", replaceOnce(t, nullDocV2, `"line_items":[]`, `"line_items":[{"description":"x","quantity":null,"unit_price_minor":null,"amount_minor":5,"tax_rate_bp":null}]`), "", want{CategoryFacts, "line_items[0].amount_minor"}},
		{"lines_complete without lines", replaceOnce(t, nullDocV2, `"lines_complete":false`, `"lines_complete":true`), "", want{CategoryFacts, "lines_complete"}},
		{"lines_complete with a null amount", withV2(t, `"amount_minor":20000`, `"amount_minor":null`), "", want{CategoryFacts, "line_items[1].amount_minor"}},

		// evidence
		{"evidence object renamed", withV2(t, `,"evidence":{`, `,"x":{`), "", want{CategoryUnknownField, "$"}},
		{"evidence object missing", validDocV2[:strings.Index(validDocV2, `,"evidence":{`)] + "}", "", want{CategoryEvidence, "evidence"}},
		{"evidence key missing", withV2(t, `"amount_due_minor":"Zahlbetrag: EUR 1.190,00"`, `"x":null`), "", want{CategoryUnknownField, "evidence"}},
		{"evidence key absent", withV2(t, `,"amount_due_minor":"Zahlbetrag: EUR 1.190,00"}`, `}`), "", want{CategoryEvidence, "evidence.amount_due_minor"}},
		{"evidence missing for a stated fact", withV2(t, `"po_number":"Ihre Bestellung: PO 4500012345"`, `"po_number":null`), "", want{CategoryEvidence, "evidence.po_number"}},
		{"evidence for a null fact", withV2(t, `"buyer_name":"Muster AG"`, `"buyer_name":null`), "", want{CategoryEvidence, "evidence.buyer_name"}},
		{"evidence not in source", withV2(t, `"Kunde: Muster AG"`, `"Kunde: Muster AG, Berlin"`), "", want{CategoryEvidence, "evidence.buyer_name"}},
		{"evidence blank", withV2(t, `"Kunde: Muster AG"`, `"  "`), "", want{CategoryEvidence, "evidence.buyer_name"}},
		{"evidence of another amount", withV2(t, `"net_minor":"Nettobetrag: EUR 1.000,00"`, `"net_minor":"Gesamtbetrag: EUR 1.190,00"`), "", want{CategoryEvidence, "evidence.net_minor"}},
		{"evidence of a wrong exponent", withV2(t, `"total_minor":119000`, `"total_minor":1190`, `"amount_due_minor":119000`, `"amount_due_minor":1190`), "", want{CategoryEvidence, "evidence.total_minor"}},
		{"evidence of another name", withV2(t, `"buyer_name":"Muster AG"`, `"buyer_name":"Muster GmbH"`), "", want{CategoryEvidence, "evidence.buyer_name"}},
		{"evidence of another date", withV2(t, `"issue_date":"2026-03-01"`, `"issue_date":"2026-03-02"`), "", want{CategoryEvidence, "evidence.issue_date"}},
		{"evidence of another iban", withV2(t, `"supplier_iban":"IBAN DE89 3704 0044 0532 0130 00"`, `"supplier_iban":"Bankverbindung"`), "", want{CategoryEvidence, "evidence.supplier_iban"}},
		{"evidence of another currency", withV2(t, `"currency":"Gesamtbetrag: EUR 1.190,00"`, `"currency":"Gesamtbetrag"`), "", want{CategoryEvidence, "evidence.currency"}},
		// The first fact in field order is reported, whatever the key order.
		{"evidence order", withV2(t, `"po_number":"Ihre Bestellung: PO 4500012345"`, `"po_number":null`, `"buyer_name":"Kunde: Muster AG"`, `"buyer_name":null`), "", want{CategoryEvidence, "evidence.buyer_name"}},

		// iban
		{"iban checksum", withV2(t, `"DE89370400440532013000"`, `"DE88370400440532013000"`), "", want{CategoryIBAN, "supplier_iban"}},
		{"iban with spaces", withV2(t, `"DE89370400440532013000"`, `"DE89 3704 0044 0532 0130 00"`), "", want{CategoryIBAN, "supplier_iban"}},

		// vat_id
		{"vat id with spaces", withV2(t, `"DE123456789"`, `"DE 123 456 789"`), "", want{CategoryVATID, "supplier_vat_id"}},
		{"vat id too short for DE", withV2(t, `"DE123456789"`, `"DE12345678"`), "", want{CategoryVATID, "supplier_vat_id"}},

		// Syntax of a value comes before evidence, evidence before
		// arithmetic.
		{"order: iban before evidence", withV2(t, `"DE89370400440532013000"`, `"DE88370400440532013000"`, `"po_number":"Ihre Bestellung: PO 4500012345"`, `"po_number":null`), "", want{CategoryIBAN, "supplier_iban"}},
		{"order: evidence before arithmetic", withV2(t, `"net_minor":100000`, `"net_minor":100001`), "", want{CategoryEvidence, "evidence.net_minor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			source := tt.source
			if source == "" {
				source = testSourceV2
			}
			checkRejected(t, tt.raw, source, want(tt.want))
		})
	}
}

// checkRejected asserts that Validate refuses raw with the given category
// and path, and that ValidateReviewable refuses it too unless the category
// is reviewable.
func checkRejected(t *testing.T, raw, source string, want struct {
	Category Category
	Path     string
}) {
	t.Helper()
	v := v2Version(t)
	res, err := v.Validate([]byte(raw), source)
	if err == nil {
		t.Fatalf("Validate accepted the document: %s", res.JSON)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate error %T %v, want *ValidationError", err, err)
	}
	if res != nil {
		t.Errorf("Validate returned a result with an error")
	}
	got := struct {
		Category Category
		Path     string
	}{ve.Category, ve.Path}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Validate error %q mismatch (-want +got):\n%s", err, diff)
	}
	if !printableASCII(ve.Msg) || ve.Msg == "" {
		t.Errorf("Msg %q is empty or not printable ASCII", ve.Msg)
	}
	rres, rerr := v.ValidateReviewable([]byte(raw), source)
	if Reviewable(want.Category) {
		if rerr != nil || rres == nil || len(rres.Review) == 0 {
			t.Fatalf("ValidateReviewable = %v, %v; want a result under review", rres, rerr)
		}
		if diff := cmp.Diff(err.Error(), rres.Review[0].Error()); diff != "" {
			t.Errorf("Review[0] differs from Validate's error (-want +got):\n%s", diff)
		}
		return
	}
	if rerr == nil || rerr.Error() != err.Error() {
		t.Errorf("ValidateReviewable error %v, want %v", rerr, err)
	}
}

func TestValidateV2Arithmetic(t *testing.T) {
	t.Parallel()
	type want = struct {
		Category Category
		Path     string
	}
	arith := func(path string) want { return want{CategoryArithmetic, path} }
	// evidence that holds any amount, so arithmetic cases need not keep
	// evidence in step: the source lists every number the cases use.
	source := testSourceV2 + "\nWerte: 1.190,01 | 1.000,02 | 190,02 | 1.190,02 | 1.190,03 | 999,99 | 1.189,99\n"
	ev := func(field, num string) []string {
		return []string{`"` + field + `":"` + evidenceFor(t, validDocV2, field) + `"`, `"` + field + `":"` + num + `"`}
	}
	tests := []struct {
		name string
		raw  string
		want *want // nil: accepted
	}{
		{"consistent", validDocV2, nil},
		// net + tax = total within one minor unit per tax line (one here).
		{"total off by one", withV2(t, append([]string{`"total_minor":119000`, `"total_minor":119001`}, ev("total_minor", "1.190,01")...)...), nil},
		{"total off by two", withV2(t, append([]string{`"total_minor":119000`, `"total_minor":119002`}, ev("total_minor", "1.190,02")...)...), &[]want{arith("total_minor")}[0]},
		{"total off by three", withV2(t, append([]string{`"total_minor":119000`, `"total_minor":119003`}, ev("total_minor", "1.190,03")...)...), &[]want{arith("total_minor")}[0]},
		{"total below by one", withV2(t, append([]string{`"total_minor":119000`, `"total_minor":118999`}, ev("total_minor", "1.189,99")...)...), nil},
		// Tax lines add up to tax and net.
		{"tax lines off tax", withV2(t, `"base_minor":100000,"tax_minor":19000`, `"base_minor":100000,"tax_minor":19002`), &[]want{arith("tax_lines")}[0]},
		{"tax lines off net", withV2(t, `"base_minor":100000,"tax_minor":19000`, `"base_minor":100002,"tax_minor":19000`), &[]want{arith("tax_lines")}[0]},
		{"tax line base unknown", withV2(t, `"base_minor":100000,"tax_minor":19000`, `"base_minor":null,"tax_minor":19000`), nil},
		// Complete lines add up to net (or gross); incomplete lines are
		// not summed.
		{"lines off net", withV2(t, `"amount_minor":20000`, `"amount_minor":20002`), &[]want{arith("line_items")}[0]},
		{"lines incomplete", withV2(t, `"amount_minor":20000`, `"amount_minor":20002`, `"lines_complete":true`, `"lines_complete":false`), nil},
		{"lines gross", withV2(t, `"amount_minor":80000`, `"amount_minor":99000`), nil},
		// Sign agrees with the document type.
		{"negative invoice", withV2(t, `"amount_due_minor":119000`, `"amount_due_minor":-119000`), &[]want{arith("amount_due_minor")}[0]},
		{"negative debit note", withV2(t, `"document_type":"invoice"`, `"document_type":"debit_note"`, `"amount_due_minor":119000`, `"amount_due_minor":-119000`), &[]want{arith("amount_due_minor")}[0]},
		{"negative reminder", withV2(t, `"document_type":"invoice"`, `"document_type":"reminder"`, `"amount_due_minor":119000`, `"amount_due_minor":-119000`), nil},
		{"positive credit note", replaceOnce(t, creditDoc, `"document_type":"credit_note"`, `"document_type":"invoice"`), &[]want{arith("net_minor")}[0]},
		{"credit note positive tax line", replaceOnce(t, creditDoc, `"base_minor":-5000,"tax_minor":-350`, `"base_minor":5000,"tax_minor":-350`), &[]want{arith("tax_lines[1].base_minor")}[0]},
		// Due date not before issue date.
		{"due before issue", withV2(t, `"issue_date":"2026-03-01"`, `"issue_date":"2026-03-31"`, `"due_date":"2026-03-31"`, `"due_date":"2026-03-01"`,
			`"issue_date":"Rechnungsdatum: 01.03.2026"`, `"issue_date":"Fällig am: 31. März 2026"`,
			`"due_date":"Fällig am: 31. März 2026"`, `"due_date":"Rechnungsdatum: 01.03.2026"`), &[]want{arith("due_date")}[0]},
		{"reminder recalls an earlier due date", withV2(t, `"document_type":"invoice"`, `"document_type":"reminder"`, `"issue_date":"2026-03-01"`, `"issue_date":"2026-03-31"`, `"due_date":"2026-03-31"`, `"due_date":"2026-03-01"`,
			`"issue_date":"Rechnungsdatum: 01.03.2026"`, `"issue_date":"Fällig am: 31. März 2026"`,
			`"due_date":"Fällig am: 31. März 2026"`, `"due_date":"Rechnungsdatum: 01.03.2026"`), nil},
		{"due on issue", withV2(t, `"due_date":"2026-03-31"`, `"due_date":"2026-03-01"`, `"Fällig am: 31. März 2026"`, `"Rechnungsdatum: 01.03.2026"`), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := source
			if strings.Contains(tt.raw, "credit_note") || strings.Contains(tt.raw, "GS-17") {
				src = testSourceCredit
			}
			if tt.want == nil {
				if _, err := v2Version(t).Validate([]byte(tt.raw), src); err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			checkRejected(t, tt.raw, src, *tt.want)
		})
	}
}

// evidenceFor returns the evidence text validDocV2 gives a fact.
func evidenceFor(t *testing.T, doc, field string) string {
	t.Helper()
	i := strings.Index(doc, `"evidence":{`)
	rest := doc[i:]
	key := `"` + field + `":"`
	j := strings.Index(rest, key)
	if j < 0 {
		t.Fatalf("no evidence for %s", field)
	}
	rest = rest[j+len(key):]
	return rest[:strings.Index(rest, `"`)]
}

// A document failing several arithmetic checks lists all of them, in the
// documented order, so a clerk sees every reason at once.
func TestValidateReviewableListsAll(t *testing.T) {
	t.Parallel()
	raw := withV2(t,
		`"document_type":"invoice"`, `"document_type":"credit_note"`,
		`"total_minor":119000`, `"total_minor":119005`,
		`"total_minor":"Gesamtbetrag: EUR 1.190,00"`, `"total_minor":"1.190,05"`,
		`"base_minor":100000,"tax_minor":19000`, `"base_minor":100000,"tax_minor":19010`,
		`"amount_minor":20000`, `"amount_minor":20100`,
		`"issue_date":"2026-03-01"`, `"issue_date":"2026-04-01"`,
		`"issue_date":"Rechnungsdatum: 01.03.2026"`, `"issue_date":"01.04.2026"`)
	src := testSourceV2 + "Werte: 1.190,05 | 01.04.2026\n"
	res, err := v2Version(t).ValidateReviewable([]byte(raw), src)
	if err != nil {
		t.Fatalf("ValidateReviewable: %v", err)
	}
	var got []string
	for _, e := range res.Review {
		if e.Category != CategoryArithmetic {
			t.Errorf("review category %s, want arithmetic", e.Category)
		}
		got = append(got, e.Path)
	}
	want := []string{
		"net_minor", "tax_minor", "total_minor", "amount_due_minor", "tax_lines[0].base_minor", "tax_lines[0].tax_minor",
		"total_minor", "tax_lines", "line_items", "due_date",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Review paths mismatch (-want +got):\n%s", diff)
	}
	if res.InvoiceV2 == nil || len(res.JSON) == 0 {
		t.Error("result under review lacks its document")
	}
	if _, err := v2Version(t).Validate([]byte(raw), src); err == nil || err.Error() != res.Review[0].Error() {
		t.Errorf("Validate error %v, want %v", err, res.Review[0])
	}
}

// Messages say what is wanted, for a repair, without repeating values.
func TestV2ErrorMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  string
		want string
	}{
		{withV2(t, `"total_minor":119000`, `"total_minor":1190.00`), "facts: total_minor: got a float, want an integer"},
		{withV2(t, `"total_minor":119000`, `"total_minor":9007199254740992`), "facts: total_minor: outside -(2^53-1) to 2^53-1"},
		{withV2(t, `"DE89370400440532013000"`, `"DE88370400440532013000"`), "iban: supplier_iban: checksum (ISO 13616 mod 97) does not match; a character is wrong"},
		{withV2(t, `"DE89370400440532013000"`, `"`+withCheckDigits("US", "370400440532013000")+`"`), "iban: supplier_iban: country code not in the IBAN registry"},
		{withV2(t, `"net_minor":"Nettobetrag: EUR 1.000,00"`, `"net_minor":"Gesamtbetrag: EUR 1.190,00"`), "evidence: evidence.net_minor: does not hold the value of net_minor; quote the excerpt that states it"},
		{withV2(t, `"amount_minor":20000`, `"amount_minor":20002`), "arithmetic: line_items: lines_complete is true but the amount_minor of the lines adds up to neither net_minor nor total_minor (within 1 minor unit(s)); set lines_complete false if lines are missing"},
	}
	for _, tt := range tests {
		_, err := v2Version(t).Validate([]byte(tt.raw), testSourceV2)
		if err == nil {
			t.Errorf("accepted; want %q", tt.want)
			continue
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("Error() mismatch (-want +got):\n%s", diff)
		}
	}
}

func TestRepairableReviewable(t *testing.T) {
	t.Parallel()
	for _, c := range Categories() {
		if !Repairable(c) {
			t.Errorf("Repairable(%s) = false", c)
		}
		if got, want := Reviewable(c), c == CategoryArithmetic; got != want {
			t.Errorf("Reviewable(%s) = %v, want %v", c, got, want)
		}
	}
	for _, c := range []Category{"refusal", "truncated", ""} {
		if Repairable(c) || Reviewable(c) {
			t.Errorf("provider category %q judged by schema", c)
		}
	}
}

func TestV2FieldTablesMatchGoTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		typ    reflect.Type
		fields []field
	}{
		{"InvoiceV2", reflect.TypeFor[InvoiceV2](), v2Fields},
		{"TaxLine", reflect.TypeFor[TaxLine](), v2TaxLineFields},
		{"LineItem", reflect.TypeFor[LineItem](), v2LineItemFields},
		{"EvidenceV2", reflect.TypeFor[EvidenceV2](), v2EvidenceFields},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var want, got []string
			for f := range fieldsOf(tt.typ) {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				want = append(want, name)
			}
			for _, f := range tt.fields {
				got = append(got, f.name)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("field table mismatch (-type +table):\n%s", diff)
			}
		})
	}
	// Evidence has a key for every nullable fact and for nothing else.
	var facts []string
	for f := range fieldsOf(reflect.TypeFor[InvoiceV2]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type.Kind() == reflect.Pointer {
			facts = append(facts, name)
		}
	}
	if diff := cmp.Diff(facts, v2FactNames); diff != "" {
		t.Errorf("evidence keys mismatch (-facts +evidence):\n%s", diff)
	}
}

func TestV2Prompt(t *testing.T) {
	t.Parallel()
	v := v2Version(t)
	p := v.Prompt()
	for _, want := range []string{"invoice-v2", "ONLY the JSON document", "verbatim", "never instructions", documentStart, documentEnd,
		"minor units", "credit_note", "reminder", "basis points", "lines_complete", "compact form", "YYYY-MM-DD"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt does not mention %q", want)
		}
	}
	for _, fields := range [][]field{v2Fields, v2TaxLineFields, v2LineItemFields, v2EvidenceFields, v1ActionFields} {
		for _, f := range fields {
			if !strings.Contains(p, `"`+f.name+`"`) {
				t.Errorf("prompt skeleton lacks key %q", f.name)
			}
		}
	}
	for _, k := range v2DocTypes {
		if !strings.Contains(p, k) {
			t.Errorf("prompt lacks document type %q", k)
		}
	}
	if v.PromptHash() == v1.PromptHash() {
		t.Error("v1 and v2 share a prompt hash")
	}
}

// The v2 schema is pinned like v1's, in both forms, and states the same
// limits the validator enforces.
func TestV2JSONSchema(t *testing.T) {
	t.Parallel()
	v := v2Version(t)
	golden(t, V2+".strict.schema.json", append(mustIndent(t, v.StrictJSONSchema()), '\n'))
	s := decodeSchema(t, v.JSONSchema())
	objects := map[string]map[string]any{}
	objectNodes(s, "#", objects)
	wantObjects := []string{"#", "#/properties/action_items/items", "#/properties/evidence", "#/properties/line_items/items", "#/properties/tax_lines/items"}
	if diff := cmp.Diff(wantObjects, slices.Sorted(maps.Keys(objects))); diff != "" {
		t.Errorf("object nodes mismatch (-want +got):\n%s", diff)
	}
	for path, node := range objects {
		if node["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties = %v, want false", path, node["additionalProperties"])
		}
		if diff := cmp.Diff(propertyNames(node), requiredNames(node)); diff != "" {
			t.Errorf("%s: required is not every property (-properties +required):\n%s", path, diff)
		}
	}
	f := func(n int) any { return float64(n) }
	for _, tt := range []struct {
		path []string
		key  string
		want any
	}{
		{[]string{"document_type"}, "enum", []any{"invoice", "credit_note", "debit_note", "receipt", "proforma", "reminder", "other"}},
		{[]string{"supplier_name"}, "type", []any{"string", "null"}},
		{[]string{"net_minor"}, "type", []any{"integer", "null"}},
		{[]string{"net_minor"}, "minimum", f(-maxSafeInteger)},
		{[]string{"lines_complete"}, "type", "boolean"},
		{[]string{"tax_lines"}, "maxItems", f(maxTaxLines)},
		{[]string{"line_items"}, "maxItems", f(maxLineItems)},
		{[]string{"tax_lines", "[]", "rate_bp"}, "maximum", f(maxRateBP)},
		{[]string{"tax_lines", "[]", "rate_bp"}, "type", "integer"},
		{[]string{"tax_lines", "[]", "base_minor"}, "type", []any{"integer", "null"}},
		{[]string{"line_items", "[]", "description"}, "maxLength", f(maxDescriptionBytes)},
		{[]string{"line_items", "[]", "quantity"}, "maxLength", f(maxQuantityBytes)},
		{[]string{"buyer_name"}, "maxLength", f(maxBuyerNameBytes)},
		{[]string{"po_number"}, "maxLength", f(maxPONumberBytes)},
		{[]string{"supplier_vat_id"}, "maxLength", f(maxVATIDBytes)},
		{[]string{"evidence", "total_minor"}, "type", []any{"string", "null"}},
		{[]string{"evidence", "total_minor"}, "maxLength", f(maxEvidenceBytes)},
		{[]string{"schema_version"}, "enum", []any{V2}},
	} {
		if diff := cmp.Diff(tt.want, prop(s, tt.path...)[tt.key]); diff != "" {
			t.Errorf("%v %s mismatch (-want +got):\n%s", tt.path, tt.key, diff)
		}
	}
	// The quantity pattern in the schema accepts what isDecimal accepts.
	if got := prop(s, "line_items", "[]", "quantity")["pattern"]; got != `^-?[0-9]+(\.[0-9]+)?$` {
		t.Errorf("quantity pattern = %v", got)
	}
}

func mustIndent(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
