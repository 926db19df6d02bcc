package schema

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		raw    string
		source string
		want   *Result // JSON is checked against the golden file instead
	}{
		{
			name: "all-nulls",
			raw: `{"schema_version":"invoice-summary-v1","title":"Unreadable invoice","bullets":["No facts could be read."],` +
				`"invoice":{"supplier_name":null,"invoice_number":null,"currency":null,"total_minor":null,"due_date":null},"action_items":[]}`,
			source: testSource,
			want: &Result{
				Version: V1,
				Title:   "Unreadable invoice",
				Bullets: []string{"No facts could be read."},
				Actions: []ActionItem{},
			},
		},
		{
			// Keys out of order, whitespace, escapes and characters that
			// encoding/json would HTML-escape by default: the canonical form
			// is field order, compact and unescaped.
			name: "full",
			raw: `
{
  "action_items": [
    {"evidence": "PO: 4500012345", "kind": "verify_purchase_order", "id": "a1"},
    {"id": "tax.1", "kind": "review_tax", "evidence": "VAT 19% (reverse charge?)"},
    {"id": "bank:2", "kind": "contact_supplier", "evidence": "Please note our new bank account: DE89 3704 0044 0532 0130 00"},
    {"id": "a-3_x", "kind": "verify_purchase_order", "evidence": "1x Ergonomic chair \"Caf\u00e9 <Deluxe>\""}
  ],
  "invoice": {"due_date": "2026-03-31", "total_minor": 123456, "currency": "EUR", "invoice_number": "INV-2026-0042", "supplier_name": "ACME Office Supplies GmbH"},
  "bullets": ["Total due EUR 1,234.56 by 2026-03-31.", "References PO 4500012345.", "Line one\n\tindented", "Chair \u0022Caf\u00e9 <Deluxe>\" & VAT", "New bank account announced."],
  "title": "\u0041CME Office Supplies invoice INV-2026-0042",
  "schema_version": "invoice-summary-v1"
}
`,
			source: testSource,
			want: &Result{
				Version: V1,
				Title:   "ACME Office Supplies invoice INV-2026-0042",
				Bullets: []string{
					"Total due EUR 1,234.56 by 2026-03-31.",
					"References PO 4500012345.",
					"Line one\n\tindented",
					`Chair "Café <Deluxe>" & VAT`,
					"New bank account announced.",
				},
				Facts: InvoiceFacts{
					SupplierName:  ptr("ACME Office Supplies GmbH"),
					InvoiceNumber: ptr("INV-2026-0042"),
					Currency:      ptr("EUR"),
					TotalMinor:    ptr(int64(123456)),
					DueDate:       ptr("2026-03-31"),
				},
				Actions: []ActionItem{
					{ID: "a1", Kind: KindVerifyPurchaseOrder, Evidence: "PO: 4500012345"},
					{ID: "tax.1", Kind: KindReviewTax, Evidence: "VAT 19% (reverse charge?)"},
					{ID: "bank:2", Kind: KindContactSupplier, Evidence: "Please note our new bank account: DE89 3704 0044 0532 0130 00"},
					{ID: "a-3_x", Kind: KindVerifyPurchaseOrder, Evidence: `1x Ergonomic chair "Café <Deluxe>"`},
				},
			},
		},
		{
			// Limits are inclusive: exactly at each cap, 5 bullets, the
			// largest safe integer, a leap day, a three-digit currency.
			name: "at-limits",
			raw: `{"schema_version":"invoice-summary-v1","title":"` + strings.Repeat("t", 200) + `",` +
				`"bullets":["1","2","3","4","` + strings.Repeat("é", 150) + `"],` +
				`"invoice":{"supplier_name":"` + strings.Repeat("s", 200) + `","invoice_number":"` + strings.Repeat("n", 64) + `",` +
				`"currency":"BHD","total_minor":9007199254740991,"due_date":"2024-02-29"},` +
				`"action_items":[{"id":"` + strings.Repeat("i", 64) + `","kind":"contact_supplier","evidence":"` + strings.Repeat("e", 500) + `"}]}`,
			source: strings.Repeat("e", 501),
			want: &Result{
				Version: V1,
				Title:   strings.Repeat("t", 200),
				Bullets: []string{"1", "2", "3", "4", strings.Repeat("é", 150)},
				Facts: InvoiceFacts{
					SupplierName:  ptr(strings.Repeat("s", 200)),
					InvoiceNumber: ptr(strings.Repeat("n", 64)),
					Currency:      ptr("BHD"),
					TotalMinor:    ptr(int64(9007199254740991)),
					DueDate:       ptr("2024-02-29"),
				},
				Actions: []ActionItem{{ID: strings.Repeat("i", 64), Kind: KindContactSupplier, Evidence: strings.Repeat("e", 500)}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := v1.Validate([]byte(tt.raw), tt.source)
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			golden(t, "canonical/"+tt.name+".json", append(got.JSON, '\n'))
			tt.want.JSON = got.JSON
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate result mismatch (-want +got):\n%s", diff)
			}
			// The canonical form is a fixed point.
			again, err := v1.Validate(got.JSON, tt.source)
			if err != nil {
				t.Fatalf("Validate(canonical): %v", err)
			}
			if diff := cmp.Diff(string(got.JSON), string(again.JSON)); diff != "" {
				t.Errorf("canonical JSON not stable (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	type want struct {
		Category Category
		Path     string
	}
	tests := []struct {
		name   string
		raw    string
		source string // testSource when empty
		want   want
	}{
		// decode
		{"not json", `invoice: ACME`, "", want{CategoryDecode, "$"}},
		{"empty", ``, "", want{CategoryDecode, "$"}},
		{"whitespace only", " \n\t\r ", "", want{CategoryDecode, "$"}},
		{"too large", validDoc + strings.Repeat(" ", 64<<10), "", want{CategoryDecode, "$"}},
		{"top-level null", `null`, "", want{CategoryDecode, "$"}},
		{"top-level array", `[` + validDoc + `]`, "", want{CategoryDecode, "$"}},
		{"top-level string", `"{}"`, "", want{CategoryDecode, "$"}},
		{"truncated", validDoc[:len(validDoc)-1], "", want{CategoryDecode, "$"}},
		{"markdown fence", "```json\n" + validDoc + "\n```", "", want{CategoryDecode, "$"}},
		{"byte order mark", "\ufeff" + validDoc, "", want{CategoryDecode, "$"}},
		{"invalid utf-8", with(t, `"title":"ACME`, "\"title\":\"\xffACME"), "", want{CategoryDecode, "$"}},
		{"trailing comma", with(t, `?)"}]}`, `?)"},]}`), "", want{CategoryDecode, "$"}},
		{"title is a number", with(t, `"title":"ACME Office Supplies invoice INV-2026-0042"`, `"title":42`), "", want{CategoryDecode, "title"}},
		{"title is null", with(t, `"title":"ACME Office Supplies invoice INV-2026-0042"`, `"title":null`), "", want{CategoryDecode, "title"}},
		{"bullets is a string", with(t, `"bullets":["Total due EUR 1,234.56 by 2026-03-31.","References PO 4500012345."]`, `"bullets":"x"`), "", want{CategoryDecode, "bullets"}},
		{"bullet is a number", with(t, `"References PO 4500012345."]`, `7]`), "", want{CategoryDecode, "bullets[1]"}},
		{"invoice is null", with(t, `"invoice":{"supplier_name":"ACME Office Supplies GmbH","invoice_number":"INV-2026-0042","currency":"EUR","total_minor":123456,"due_date":"2026-03-31"}`, `"invoice":null`), "", want{CategoryDecode, "invoice"}},
		{"total_minor is a string", with(t, `"total_minor":123456`, `"total_minor":"123456"`), "", want{CategoryDecode, "invoice.total_minor"}},
		{"currency is a number", with(t, `"currency":"EUR"`, `"currency":978`), "", want{CategoryDecode, "invoice.currency"}},
		{"action_items is null", `{"schema_version":"invoice-summary-v1","title":"t","bullets":["b"],"invoice":{"supplier_name":null,"invoice_number":null,"currency":null,"total_minor":null,"due_date":null},"action_items":null}`, "", want{CategoryDecode, "action_items"}},
		{"action item is a string", with(t, `[{"id":"a1"`, `["a1",{"id":"a1"`), "", want{CategoryDecode, "action_items[0]"}},
		{"action_items missing", `{"schema_version":"invoice-summary-v1","title":"t","bullets":["b"],"invoice":{"supplier_name":null,"invoice_number":null,"currency":null,"total_minor":null,"due_date":null}}`, "", want{CategoryDecode, "action_items"}},
		{"evidence is an array", with(t, `"evidence":"PO: 4500012345"`, `"evidence":["PO: 4500012345"]`), "", want{CategoryDecode, "action_items[0].evidence"}},

		// decode: lone UTF-16 surrogate escapes, which encoding/json would
		// commit as U+FFFD, in any string, keys included. A valid pair is
		// accepted (TestValidateAcceptsSurrogatePairs).
		{"lone high surrogate in title", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"ACME \ud800"`), "", want{CategoryDecode, "$"}},
		{"lone low surrogate in bullet", with(t, `"References PO 4500012345."]`, `"PO \udfff"]`), "", want{CategoryDecode, "$"}},
		{"high surrogate then a letter escape", with(t, `"ACME Office Supplies GmbH"`, `"ACME \ud83d\u0041"`), "", want{CategoryDecode, "$"}},
		{"high surrogate then plain text", with(t, `"INV-2026-0042"`, `"INV\uD83Dx"`), "", want{CategoryDecode, "$"}},
		{"high surrogate at end of string", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"ACME \ud83d"`), "", want{CategoryDecode, "$"}},
		{"two high surrogates", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"\ud83d\ud83d\ude00"`), "", want{CategoryDecode, "$"}},
		{"pair in the wrong order", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"\ude00\ud83d"`), "", want{CategoryDecode, "$"}},
		{"lone surrogate in evidence", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"PO: 4500012345\udc00"`), "", want{CategoryDecode, "$"}},
		{"lone surrogate in schema_version", with(t, `"invoice-summary-v1"`, `"invoice-summary-v1\ud800"`), "", want{CategoryDecode, "$"}},
		{"lone surrogate in currency", with(t, `"currency":"EUR"`, `"currency":"\ud800"`), "", want{CategoryDecode, "$"}},
		{"lone surrogate in a key", with(t, `"bullets":[`, `"\ud800":1,"bullets":[`), "", want{CategoryDecode, "$"}},
		{"lone surrogate after an escaped quote", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"say \"\ud800\""`), "", want{CategoryDecode, "$"}},

		// duplicate_key
		{"duplicate top-level key", with(t, `{"schema_version":"invoice-summary-v1",`, `{"schema_version":"invoice-summary-v1","schema_version":"invoice-summary-v1",`), "", want{CategoryDuplicateKey, "schema_version"}},
		{"case-variant top-level key", with(t, `"bullets":[`, `"TITLE":"x","bullets":[`), "", want{CategoryDuplicateKey, "title"}},
		{"escaped duplicate key", with(t, `"bullets":[`, `"tit\u006ce":"x","bullets":[`), "", want{CategoryDuplicateKey, "title"}},
		{"duplicate key inside invoice", with(t, `"currency":"EUR"`, `"currency":"EUR","currency":"USD"`), "", want{CategoryDuplicateKey, "invoice.currency"}},
		{"case-variant key inside invoice", with(t, `"currency":"EUR"`, `"currency":"EUR","Currency":"USD"`), "", want{CategoryDuplicateKey, "invoice.currency"}},
		{"duplicate key inside action item", with(t, `"id":"a2"`, `"id":"a2","id":"a3"`), "", want{CategoryDuplicateKey, "action_items[1].id"}},
		{"kelvin-sign variant inside action item", with(t, `"kind":"review_tax"`, `"kind":"review_tax","\u212aind":"review_tax"`), "", want{CategoryDuplicateKey, "action_items[1].kind"}},
		{"duplicate null fact", with(t, `"due_date":"2026-03-31"`, `"due_date":"2026-03-31","due_date":null`), "", want{CategoryDuplicateKey, "invoice.due_date"}},

		// trailing_data
		{"second object", validDoc + `{}`, "", want{CategoryTrailingData, "$"}},
		{"empty objects", `{}{}`, "", want{CategoryTrailingData, "$"}},
		{"trailing word", `{} x`, "", want{CategoryTrailingData, "$"}},
		{"trailing prose", validDoc + "\nHope this helps!", "", want{CategoryTrailingData, "$"}},
		{"trailing number", validDoc + ` 1`, "", want{CategoryTrailingData, "$"}},

		// unknown_field
		{"unknown top-level key", with(t, `"bullets":[`, `"summary":"x","bullets":[`), "", want{CategoryUnknownField, "$"}},
		{"title in another case only", strings.Replace(validDoc, `"title"`, `"Title"`, 1), "", want{CategoryUnknownField, "$"}},
		{"unknown key inside invoice", with(t, `"currency":"EUR"`, `"currency":"EUR","vat_minor":1`), "", want{CategoryUnknownField, "invoice"}},
		{"unknown key inside action item", with(t, `"id":"a2"`, `"id":"a2","priority":"high"`), "", want{CategoryUnknownField, "action_items[1]"}},
		{"unknown key with null value", with(t, `"bullets":[`, `"notes":null,"bullets":[`), "", want{CategoryUnknownField, "$"}},

		// schema_version
		{"schema_version missing", strings.Replace(validDoc, `"schema_version":"invoice-summary-v1",`, ``, 1), "", want{CategorySchemaVersion, "schema_version"}},
		{"schema_version other", with(t, `"invoice-summary-v1"`, `"invoice-summary-v2"`), "", want{CategorySchemaVersion, "schema_version"}},
		{"schema_version other case", with(t, `"invoice-summary-v1"`, `"Invoice-Summary-V1"`), "", want{CategorySchemaVersion, "schema_version"}},
		{"schema_version is a number", with(t, `"invoice-summary-v1"`, `1`), "", want{CategoryDecode, "schema_version"}},

		// display
		{"title missing", strings.Replace(validDoc, `"title":"ACME Office Supplies invoice INV-2026-0042",`, ``, 1), "", want{CategoryDisplay, "title"}},
		{"title empty", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `""`), "", want{CategoryDisplay, "title"}},
		{"title blank", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `" \n\t\u00a0 "`), "", want{CategoryDisplay, "title"}},
		{"title too long", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"`+strings.Repeat("é", 101)+`"`), "", want{CategoryDisplay, "title"}},
		{"title with bell", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"ACME\u0007"`), "", want{CategoryDisplay, "title"}},
		{"title with escape sequence", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"\u001b[2J ACME"`), "", want{CategoryDisplay, "title"}},
		{"title with C1 control", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"ACME \u009b"`), "", want{CategoryDisplay, "title"}},
		{"title with carriage return", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"ACME\r"`), "", want{CategoryDisplay, "title"}},
		{"bullets missing", strings.Replace(validDoc, `"bullets":["Total due EUR 1,234.56 by 2026-03-31.","References PO 4500012345."],`, ``, 1), "", want{CategoryDisplay, "bullets"}},
		{"no bullets", with(t, `["Total due EUR 1,234.56 by 2026-03-31.","References PO 4500012345."]`, `[]`), "", want{CategoryDisplay, "bullets"}},
		{"six bullets", with(t, `"References PO 4500012345."]`, `"2","3","4","5","6"]`), "", want{CategoryDisplay, "bullets"}},
		{"empty bullet", with(t, `"References PO 4500012345."]`, `""]`), "", want{CategoryDisplay, "bullets[1]"}},
		{"blank bullet", with(t, `"References PO 4500012345."]`, `"  \n "]`), "", want{CategoryDisplay, "bullets[1]"}},
		{"bullet too long", with(t, `"References PO 4500012345."]`, `"`+strings.Repeat("b", 301)+`"]`), "", want{CategoryDisplay, "bullets[1]"}},
		{"bullet with NUL", with(t, `"References PO 4500012345."]`, `"PO\u0000"]`), "", want{CategoryDisplay, "bullets[1]"}},
		{"supplier_name too long", with(t, `"ACME Office Supplies GmbH"`, `"`+strings.Repeat("s", 201)+`"`), "", want{CategoryDisplay, "invoice.supplier_name"}},
		{"invoice_number too long", with(t, `"INV-2026-0042"`, `"`+strings.Repeat("n", 65)+`"`), "", want{CategoryDisplay, "invoice.invoice_number"}},
		{"invoice_number with DEL", with(t, `"INV-2026-0042"`, `"INV\u007f"`), "", want{CategoryDisplay, "invoice.invoice_number"}},
		{"id too long", with(t, `"id":"a1"`, `"id":"`+strings.Repeat("i", 65)+`"`), "", want{CategoryDisplay, "action_items[0].id"}},
		{"evidence too long", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"`+strings.Repeat("e", 501)+`"`), strings.Repeat("e", 600), want{CategoryDisplay, "action_items[0].evidence"}},
		{"evidence with control character", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"PO:\u000b4500012345"`), "PO:\v4500012345", want{CategoryDisplay, "action_items[0].evidence"}},
		// Bidirectional controls reorder what a clerk sees; escaped or raw.
		{"title with RLO", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"ACME \u202eFDP.exe"`), "", want{CategoryDisplay, "title"}},
		{"title with raw LRE", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, "\"ACME \u202a invoice\""), "", want{CategoryDisplay, "title"}},
		{"title with PDF", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"ACME\u202c"`), "", want{CategoryDisplay, "title"}},
		{"bullet with LRI", with(t, `"References PO 4500012345."]`, `"PO \u2066123\u2069"]`), "", want{CategoryDisplay, "bullets[1]"}},
		{"bullet with PDI only", with(t, `"References PO 4500012345."]`, `"PO 123\u2069"]`), "", want{CategoryDisplay, "bullets[1]"}},
		{"supplier_name with RLE", with(t, `"ACME Office Supplies GmbH"`, `"ACME \u202bGmbH"`), "", want{CategoryDisplay, "invoice.supplier_name"}},
		{"supplier_name with RLM", with(t, `"ACME Office Supplies GmbH"`, `"ACME\u200f Supplies"`), "", want{CategoryDisplay, "invoice.supplier_name"}},
		{"supplier_name with raw RLI", with(t, `"ACME Office Supplies GmbH"`, "\"ACME \u2067Supplies\""), "", want{CategoryDisplay, "invoice.supplier_name"}},
		{"invoice_number with LRM", with(t, `"INV-2026-0042"`, `"INV-\u200e2026-0042"`), "", want{CategoryDisplay, "invoice.invoice_number"}},
		{"invoice_number with ALM", with(t, `"INV-2026-0042"`, `"INV-2026\u061c-0042"`), "", want{CategoryDisplay, "invoice.invoice_number"}},
		{"invoice_number with FSI", with(t, `"INV-2026-0042"`, `"\u2068INV-2026-0042"`), "", want{CategoryDisplay, "invoice.invoice_number"}},
		{"invoice_number with LRO", with(t, `"INV-2026-0042"`, `"\u202dINV-2026-0042"`), "", want{CategoryDisplay, "invoice.invoice_number"}},
		// Evidence quoted exactly from a source that carries the override
		// is still refused: see checkText.
		{"evidence with RLO found in source", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"PO: \u202e5432100054"`), testSource + "PO: \u202e5432100054\n", want{CategoryDisplay, "action_items[0].evidence"}},

		// facts
		{"invoice missing", strings.Replace(validDoc, `"invoice":{"supplier_name":"ACME Office Supplies GmbH","invoice_number":"INV-2026-0042","currency":"EUR","total_minor":123456,"due_date":"2026-03-31"},`, ``, 1), "", want{CategoryFacts, "invoice"}},
		{"fact key missing", with(t, `,"due_date":"2026-03-31"`, ``), "", want{CategoryFacts, "invoice.due_date"}},
		{"first fact key missing", with(t, `"supplier_name":"ACME Office Supplies GmbH",`, ``), "", want{CategoryFacts, "invoice.supplier_name"}},
		{"empty invoice object", with(t, `{"supplier_name":"ACME Office Supplies GmbH","invoice_number":"INV-2026-0042","currency":"EUR","total_minor":123456,"due_date":"2026-03-31"}`, `{}`), "", want{CategoryFacts, "invoice.supplier_name"}},
		{"empty supplier_name", with(t, `"ACME Office Supplies GmbH"`, `""`), "", want{CategoryFacts, "invoice.supplier_name"}},
		{"blank invoice_number", with(t, `"INV-2026-0042"`, `"  "`), "", want{CategoryFacts, "invoice.invoice_number"}},
		{"currency lower case", with(t, `"currency":"EUR"`, `"currency":"eur"`), "", want{CategoryFacts, "invoice.currency"}},
		{"currency name", with(t, `"currency":"EUR"`, `"currency":"EURO"`), "", want{CategoryFacts, "invoice.currency"}},
		{"currency symbol", with(t, `"currency":"EUR"`, `"currency":"€"`), "", want{CategoryFacts, "invoice.currency"}},
		{"currency empty", with(t, `"currency":"EUR"`, `"currency":""`), "", want{CategoryFacts, "invoice.currency"}},
		{"currency made up", with(t, `"currency":"EUR"`, `"currency":"ABC"`), "", want{CategoryFacts, "invoice.currency"}},
		{"currency withdrawn", with(t, `"currency":"EUR"`, `"currency":"HRK"`), "", want{CategoryFacts, "invoice.currency"}},
		{"currency without minor unit", with(t, `"currency":"EUR"`, `"currency":"XAU"`), "", want{CategoryFacts, "invoice.currency"}},
		{"total float", with(t, `"total_minor":123456`, `"total_minor":12.5`), "", want{CategoryFacts, "invoice.total_minor"}},
		{"total integral float", with(t, `"total_minor":123456`, `"total_minor":12.0`), "", want{CategoryFacts, "invoice.total_minor"}},
		{"total exponent", with(t, `"total_minor":123456`, `"total_minor":1e3`), "", want{CategoryFacts, "invoice.total_minor"}},
		{"total upper-case exponent", with(t, `"total_minor":123456`, `"total_minor":1E+3`), "", want{CategoryFacts, "invoice.total_minor"}},
		{"total negative", with(t, `"total_minor":123456`, `"total_minor":-1`), "", want{CategoryFacts, "invoice.total_minor"}},
		{"total negative zero", with(t, `"total_minor":123456`, `"total_minor":-0`), "", want{CategoryFacts, "invoice.total_minor"}},
		{"total 2^53", with(t, `"total_minor":123456`, `"total_minor":9007199254740992`), "", want{CategoryFacts, "invoice.total_minor"}},
		{"total beyond uint64", with(t, `"total_minor":123456`, `"total_minor":123456789012345678901234567890`), "", want{CategoryFacts, "invoice.total_minor"}},
		{"due_date not a day", with(t, `"2026-03-31"}`, `"2026-02-30"}`), "", want{CategoryFacts, "invoice.due_date"}},
		{"due_date not a leap year", with(t, `"2026-03-31"}`, `"2026-02-29"}`), "", want{CategoryFacts, "invoice.due_date"}},
		{"due_date month 13", with(t, `"2026-03-31"}`, `"2026-13-01"}`), "", want{CategoryFacts, "invoice.due_date"}},
		{"due_date unpadded", with(t, `"2026-03-31"}`, `"2026-3-31"}`), "", want{CategoryFacts, "invoice.due_date"}},
		{"due_date european", with(t, `"2026-03-31"}`, `"31.03.2026"}`), "", want{CategoryFacts, "invoice.due_date"}},
		{"due_date slashes", with(t, `"2026-03-31"}`, `"2026/03/31"}`), "", want{CategoryFacts, "invoice.due_date"}},
		{"due_date with time", with(t, `"2026-03-31"}`, `"2026-03-31T00:00:00Z"}`), "", want{CategoryFacts, "invoice.due_date"}},
		{"due_date year zero", with(t, `"2026-03-31"}`, `"0000-01-01"}`), "", want{CategoryFacts, "invoice.due_date"}},
		{"due_date full-width digits", with(t, `"2026-03-31"}`, `"２０２６-03-31"}`), "", want{CategoryFacts, "invoice.due_date"}},

		// action_kind
		{"unknown kind", with(t, `"kind":"review_tax"`, `"kind":"pay_now"`), "", want{CategoryActionKind, "action_items[1].kind"}},
		{"kind in another case", with(t, `"kind":"review_tax"`, `"kind":"Review_Tax"`), "", want{CategoryActionKind, "action_items[1].kind"}},
		{"kind empty", with(t, `"kind":"review_tax"`, `"kind":""`), "", want{CategoryActionKind, "action_items[1].kind"}},
		{"kind missing", with(t, `"kind":"review_tax",`, ``), "", want{CategoryActionKind, "action_items[1].kind"}},

		// action_id
		{"empty id", with(t, `"id":"a2"`, `"id":""`), "", want{CategoryActionID, "action_items[1].id"}},
		{"repeated id", with(t, `"id":"a2"`, `"id":"a1"`), "", want{CategoryActionID, "action_items[1].id"}},
		{"id with space", with(t, `"id":"a2"`, `"id":"a 2"`), "", want{CategoryActionID, "action_items[1].id"}},
		{"id with slash", with(t, `"id":"a2"`, `"id":"../a2"`), "", want{CategoryActionID, "action_items[1].id"}},
		{"id with non-ASCII letter", with(t, `"id":"a2"`, `"id":"ä2"`), "", want{CategoryActionID, "action_items[1].id"}},
		{"id missing", with(t, `"id":"a2",`, ``), "", want{CategoryActionID, "action_items[1].id"}},

		// action_evidence
		{"evidence not in source", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"PO 4500012345"`), "", want{CategoryActionEvidence, "action_items[0].evidence"}},
		{"evidence in another case", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"po: 4500012345"`), "", want{CategoryActionEvidence, "action_items[0].evidence"}},
		{"evidence decomposed", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"Cafe\u0301"`), "", want{CategoryActionEvidence, "action_items[0].evidence"}},
		{"evidence spanning an edit", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"PO: 4500012345 VAT 19%"`), "", want{CategoryActionEvidence, "action_items[0].evidence"}},
		{"evidence empty", with(t, `"evidence":"PO: 4500012345"`, `"evidence":""`), "", want{CategoryActionEvidence, "action_items[0].evidence"}},
		{"evidence blank", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"\n"`), "", want{CategoryActionEvidence, "action_items[0].evidence"}},
		{"evidence missing", with(t, `,"evidence":"PO: 4500012345"`, ``), "", want{CategoryActionEvidence, "action_items[0].evidence"}},
		{"evidence against empty source", validDoc, "\n", want{CategoryActionEvidence, "action_items[0].evidence"}},

		// The first error in document order wins, whatever its category.
		{"order: title before currency", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `""`, `"EUR"`, `"eur"`), "", want{CategoryDisplay, "title"}},
		{"order: invoice before title", `{"schema_version":"invoice-summary-v1","invoice":{"supplier_name":null,"invoice_number":null,"currency":"eur","total_minor":null,"due_date":null},"title":"","bullets":["b"],"action_items":[]}`, "", want{CategoryFacts, "invoice.currency"}},
		{"order: unknown key before missing key", `{"schema_version":"invoice-summary-v1","extra":1}`, "", want{CategoryUnknownField, "$"}},
		{"order: duplicate before bad value", with(t, `"id":"a2"`, `"id":"a2","ID":"a1","kind":"nope"`), "", want{CategoryDuplicateKey, "action_items[1].id"}},
		{"order: missing version reported at close", `{"title":"","bullets":[],"invoice":{},"action_items":[]}`, "", want{CategoryDisplay, "title"}},
		{"order: syntax before meaning", `{"schema_version":"invoice-summary-v2",}`, "", want{CategoryDecode, "$"}},
		{"order: trailing data before meaning", `{"schema_version":"invoice-summary-v2"} {}`, "", want{CategoryTrailingData, "$"}},
		{"order: repeated id before bad evidence", with(t, `{"id":"a2","kind":"review_tax","evidence":"VAT 19% (reverse charge?)"}`, `{"id":"a1","kind":"review_tax","evidence":"nowhere"}`), "", want{CategoryActionID, "action_items[1].id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			source := tt.source
			if source == "" {
				source = testSource
			}
			res, err := v1.Validate([]byte(tt.raw), source)
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
			got := want{ve.Category, ve.Path}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate error %q mismatch (-want +got):\n%s", err, diff)
			}
			if ve.Msg == "" {
				t.Errorf("empty Msg")
			}
			// Deterministic: the same input gives the same error.
			_, err2 := v1.Validate([]byte(tt.raw), source)
			if diff := cmp.Diff(err.Error(), err2.Error()); diff != "" {
				t.Errorf("second Validate differs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidationErrorString(t *testing.T) {
	t.Parallel()
	_, err := v1.Validate([]byte(with(t, `"total_minor":123456`, `"total_minor":12.5`)), testSource)
	want := "facts: invoice.total_minor: got a float, want integer minor units"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Error() mismatch (-want +got):\n%s", diff)
	}
}

// TestValidateMsgHasNoValues feeds canary strings through every string
// field and every failure mode that touches one: a ValidationError goes to
// logs, attempt rows and back to the model, and must carry none of them.
func TestValidateMsgHasNoValues(t *testing.T) {
	t.Parallel()
	const canary = "CANARY-7f3a"
	source := testSource + "SOURCE-" + canary + "\n"
	// The first 40 bytes of an unknown key may be echoed; the canary
	// sits after them.
	longKey := strings.Repeat("k", 40) + canary
	tests := []struct {
		name string
		raw  string
	}{
		{"title control", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"`+canary+`\u0007"`)},
		{"title too long", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"`+canary+strings.Repeat("x", 200)+`"`)},
		{"bullet too long", with(t, `"References PO 4500012345."]`, `"`+canary+strings.Repeat("x", 300)+`"]`)},
		{"six bullets", with(t, `"References PO 4500012345."]`, `"`+canary+`","3","4","5","`+canary+`"]`)},
		{"schema_version", with(t, `"invoice-summary-v1"`, `"`+canary+`"`)},
		{"supplier too long", with(t, `"ACME Office Supplies GmbH"`, `"`+canary+strings.Repeat("x", 200)+`"`)},
		{"invoice_number control", with(t, `"INV-2026-0042"`, `"`+canary+`\u001b"`)},
		{"currency", with(t, `"currency":"EUR"`, `"currency":"`+canary+`"`)},
		{"due_date", with(t, `"2026-03-31"}`, `"`+canary+`"}`)},
		{"total wrong type", with(t, `"total_minor":123456`, `"total_minor":"`+canary+`"`)},
		{"total float", with(t, `"total_minor":123456`, `"total_minor":7356.25`)},
		{"kind", with(t, `"kind":"review_tax"`, `"kind":"`+canary+`"`)},
		{"id alphabet", with(t, `"id":"a2"`, `"id":"`+canary+`/x"`)},
		{"id too long", with(t, `"id":"a2"`, `"id":"`+canary+strings.Repeat("x", 64)+`"`)},
		{"id repeated", with(t, `"id":"a1"`, `"id":"`+canary+`"`, `"id":"a2"`, `"id":"`+canary+`"`)},
		{"evidence not in source", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"`+canary+`-elsewhere"`)},
		{"evidence too long", with(t, `"evidence":"PO: 4500012345"`, `"evidence":"`+canary+strings.Repeat("x", 500)+`"`)},
		{"unknown key's value", with(t, `"bullets":[`, `"notes":"`+canary+`","bullets":[`)},
		{"long unknown key", with(t, `"bullets":[`, `"`+longKey+`":1,"bullets":[`)},
		{"case-variant key", with(t, `"currency":"EUR"`, `"currency":"EUR","CURRENCY":"`+canary+`"`)},
		{"syntax error after value", with(t, `"title":"ACME Office Supplies invoice INV-2026-0042"`, `"title":"`+canary+`" "`+canary+`"`)},
		{"lone surrogate", with(t, `"ACME Office Supplies invoice INV-2026-0042"`, `"`+canary+`\ud800"`)},
		{"bidi control", with(t, `"ACME Office Supplies GmbH"`, `"`+canary+`\u202e"`)},
		{"trailing data", validDoc + `"` + canary + `"`},
		{"not json", canary},
		{"top-level string", `"` + canary + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := v1.Validate([]byte(tt.raw), source)
			if err == nil {
				t.Fatal("Validate accepted the document")
			}
			msg := err.Error()
			for _, leak := range []string{"7f3a", "SOURCE", "7356", "ACME"} {
				if strings.Contains(msg, leak) {
					t.Errorf("error %q contains %q", msg, leak)
				}
			}
		})
	}
}

// An unknown key may be named, but only its first 40 bytes.
func TestValidateUnknownKeyIsTruncated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, want string
	}{
		{"short", "notes", `unknown key "notes"`},
		{"40 bytes", strings.Repeat("k", 40), `unknown key "` + strings.Repeat("k", 40) + `"`},
		{"41 bytes", strings.Repeat("k", 41), `unknown key "` + strings.Repeat("k", 40) + `" (truncated)`},
		// The cut never splits a rune, and non-ASCII is escaped so the
		// message stays printable ASCII.
		{"multibyte", strings.Repeat("k", 39) + "é", `unknown key "` + strings.Repeat("k", 39) + `" (truncated)`},
		{"control", "a\nb", `unknown key "a\nb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := with(t, `"bullets":[`, `"`+strings.ReplaceAll(tt.key, "\n", `\n`)+`":1,"bullets":[`)
			_, err := v1.Validate([]byte(raw), testSource)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate error %v, want *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Msg); diff != "" {
				t.Errorf("Msg mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// The walker's key tables must list exactly the Go type's JSON fields, in
// order: the type is the single source of truth.
func TestFieldTablesMatchGoTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		typ    reflect.Type
		fields []field
	}{
		{"InvoiceSummaryV1", reflect.TypeFor[InvoiceSummaryV1](), v1Fields},
		{"InvoiceFacts", reflect.TypeFor[InvoiceFacts](), v1FactFields},
		{"ActionItem", reflect.TypeFor[ActionItem](), v1ActionFields},
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
				t.Errorf("field table mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A surrogate pair is one character beyond U+FFFF and stays accepted; so do
// text that only looks like an escape and bidi-neutral characters beside the
// controls checkText refuses.
func TestValidateAcceptsSurrogatePairs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		title     string // the JSON string literal, quotes included
		wantTitle string
	}{
		{"pair", `"Paid \ud83d\ude00"`, "Paid \U0001F600"},
		{"upper-case pair", `"Paid \uD83D\uDE00"`, "Paid \U0001F600"},
		{"two pairs", `"\ud83d\ude00\ud83d\ude01"`, "\U0001F600\U0001F601"},
		{"raw UTF-8 astral", "\"Paid \U0001F600\"", "Paid \U0001F600"},
		{"escaped backslash, not an escape", `"C:\\ud800"`, `C:\ud800`},
		{"escaped quote then pair", `"say \"\ud83d\ude00\""`, "say \"\U0001F600\""},
		{"real U+FFFD", `"broken \ufffd"`, "broken \ufffd"},
		{"Arabic and Hebrew letters", `"فاتورة חשבונית"`, "فاتورة חשבונית"},
		{"zero width joiner", `"A\u200dB"`, "A\u200dB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := with(t, `"ACME Office Supplies invoice INV-2026-0042"`, tt.title)
			res, err := v1.Validate([]byte(raw), testSource)
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if diff := cmp.Diff(tt.wantTitle, res.Title); diff != "" {
				t.Errorf("title mismatch (-want +got):\n%s", diff)
			}
			// The canonical form (raw UTF-8, no escapes) validates again.
			if _, err := v1.Validate(res.JSON, testSource); err != nil {
				t.Errorf("canonical JSON rejected: %v", err)
			}
		})
	}
}

// The surrogate check belongs to the syntax phase every version runs, so no
// version, present or future, can commit a replaced surrogate: even a
// document that would fail later for another reason reports it first.
func TestLoneSurrogateEveryVersion(t *testing.T) {
	t.Parallel()
	for _, name := range Versions() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			raw := `{"schema_version":"` + name + `","title":"\udbff"}`
			_, err = v.Validate([]byte(raw), testSource)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Category != CategoryDecode || ve.Path != "$" {
				t.Fatalf("Validate error %v, want decode at $", err)
			}
			if want := "byte " + strconv.Itoa(strings.Index(raw, `\udbff`)); !strings.Contains(ve.Msg, want+";") {
				t.Errorf("Msg %q should name %s", ve.Msg, want)
			}
		})
	}
}
