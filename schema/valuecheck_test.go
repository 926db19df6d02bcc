package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// valueCase is one document value and the source it is checked against.
type valueCase struct {
	name   string
	doc    InvoiceV2
	source string
}

// valueCorpus decodes into InvoiceV2 every document this package tests
// with (the v2 documents, the FuzzValidateV2 seeds and both fuzz corpora
// on disk) and derives from each one variant per rule the walk, the cross
// checks, the evidence checks and arithmetic apply, plus random pairs of
// them (one pair each), so that every category is reached from
// real-looking documents.
func valueCorpus(t *testing.T) []valueCase {
	t.Helper()
	type seed struct {
		name        string
		raw, source string
	}
	seeds := []seed{{"validDocV2", validDocV2, testSourceV2}, {"nullDocV2", nullDocV2, testSourceV2}, {"creditDoc", creditDoc, testSourceCredit}}
	for name, s := range v2Seeds(t) {
		seeds = append(seeds, seed{"seed/" + name, s[0], s[1]})
	}
	for _, dir := range []string{"FuzzValidate", "FuzzValidateV2"} {
		files, err := filepath.Glob(filepath.Join("testdata", "fuzz", dir, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("fuzz corpus %s: %d files, %v", dir, len(files), err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			raw, src := parseSeed(t, f, b)
			seeds = append(seeds, seed{f, string(raw), src})
		}
	}
	rng := rand.New(rand.NewPCG(15, 4))
	var out []valueCase
	for _, s := range seeds {
		var base InvoiceV2
		if json.Unmarshal([]byte(s.raw), &base) != nil {
			continue // not an object of this shape: nothing to build a value from
		}
		// Every source also states what some mutations cite.
		source := s.source + sourceAdds
		for i, m := range valueMutations {
			out = append(out, valueCase{s.name + "/" + m.name, mutated(t, base, m.apply), source})
			m2 := valueMutations[rng.IntN(len(valueMutations))]
			out = append(out, valueCase{s.name + "/" + m.name + "+" + m2.name,
				mutated(t, base, func(d *InvoiceV2) { valueMutations[i].apply(d); m2.apply(d) }), source})
		}
	}
	return out
}

// mutated returns a deep copy of base changed by apply.
func mutated(t *testing.T, base InvoiceV2, apply func(*InvoiceV2)) InvoiceV2 {
	t.Helper()
	b, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	var d InvoiceV2
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	apply(&d)
	return d
}

// sourceAdds is appended to every source of valueCorpus.
const sourceAdds = "\nx\uFFFDy\n"

func sp(s string) *string { return &s }
func ip(n int64) *int64   { return &n }

// valueMutations change a document; a mutation that needs the source to
// say something appends it to the source with the sourceAdds marker (see
// valueCorpus).
var valueMutations = []struct {
	name  string
	apply func(*InvoiceV2)
}{
	{"as-is", func(*InvoiceV2) {}},
	{"title-empty", func(d *InvoiceV2) { d.Title = "" }},
	{"title-blank", func(d *InvoiceV2) { d.Title = " \t" }},
	{"title-long", func(d *InvoiceV2) { d.Title = strings.Repeat("x", maxTitleBytes+1) }},
	{"title-bidi", func(d *InvoiceV2) { d.Title = "a\u202eb" }},
	{"title-control", func(d *InvoiceV2) { d.Title = "a\x01b" }},
	{"title-not-utf8", func(d *InvoiceV2) { d.Title = "bad \xff byte" }},
	{"title-not-utf8-at-cap", func(d *InvoiceV2) { d.Title = strings.Repeat("t", maxTitleBytes-1) + "\xff" }},
	// json.Marshal turns the invalid byte into U+FFFD, which the source
	// holds (sourceAdds): the bytes pass where the raw value would not.
	{"action-evidence-not-utf8", func(d *InvoiceV2) {
		d.ActionItems = append(d.ActionItems, ActionItem{ID: "u8", Kind: KindReviewTax, Evidence: "x\xffy"})
	}},
	{"title-html-and-ls", func(d *InvoiceV2) { d.Title = "<a & b>\u2028\"q\"\\" }},
	{"bullets-nil", func(d *InvoiceV2) { d.Bullets = nil }},
	{"bullets-empty", func(d *InvoiceV2) { d.Bullets = []string{} }},
	{"bullets-six", func(d *InvoiceV2) { d.Bullets = []string{"a", "b", "c", "d", "e", "f"} }},
	{"bullet-blank", func(d *InvoiceV2) { d.Bullets = append([]string{" "}, d.Bullets...) }},
	{"doctype-unknown", func(d *InvoiceV2) { d.DocumentType = "bill" }},
	{"doctype-credit", func(d *InvoiceV2) { d.DocumentType = DocCreditNote }},
	{"version-v1", func(d *InvoiceV2) { d.SchemaVersion = V1 }},
	{"version-empty", func(d *InvoiceV2) { d.SchemaVersion = "" }},
	{"supplier-empty", func(d *InvoiceV2) { d.SupplierName = sp("") }},
	{"supplier-long", func(d *InvoiceV2) { d.SupplierName = sp(strings.Repeat("y", maxSupplierNameBytes+1)) }},
	{"supplier-not-utf8", func(d *InvoiceV2) { d.SupplierName = sp("\xc3(") }},
	{"vat-short", func(d *InvoiceV2) { d.SupplierVATID = sp("DE12345678") }},
	{"iban-checksum", func(d *InvoiceV2) { d.SupplierIBAN = sp("DE89370400440532013001") }},
	{"issue-date-bad", func(d *InvoiceV2) { d.IssueDate = sp("2026-02-30") }},
	{"due-date-bad", func(d *InvoiceV2) { d.DueDate = sp("31.03.2026") }},
	{"currency-unknown", func(d *InvoiceV2) { d.Currency = sp("XYZ") }},
	{"currency-null", func(d *InvoiceV2) { d.Currency, d.Evidence.Currency = nil, nil }},
	{"total-unsafe", func(d *InvoiceV2) { d.TotalMinor = ip(1 << 53) }},
	{"total-changed", func(d *InvoiceV2) {
		if d.TotalMinor != nil {
			d.TotalMinor = ip(*d.TotalMinor + 1)
		}
	}},
	{"net-negative", func(d *InvoiceV2) { d.NetMinor = ip(-5) }},
	{"tax-lines-nil", func(d *InvoiceV2) { d.TaxLines = nil }},
	{"tax-lines-17", func(d *InvoiceV2) {
		for range maxTaxLines + 1 {
			d.TaxLines = append(d.TaxLines, TaxLine{RateBP: 700, TaxMinor: 7})
		}
	}},
	{"tax-rate-high", func(d *InvoiceV2) { d.TaxLines = []TaxLine{{RateBP: maxRateBP + 1, TaxMinor: 1}} }},
	{"line-items-nil", func(d *InvoiceV2) { d.LineItems = nil }},
	{"line-blank", func(d *InvoiceV2) { d.LineItems = []LineItem{{Description: " "}} }},
	{"line-quantity", func(d *InvoiceV2) { d.LineItems = []LineItem{{Description: "x", Quantity: sp("1,5")}} }},
	{"line-rate", func(d *InvoiceV2) { d.LineItems = []LineItem{{Description: "x", TaxRateBP: ip(-1)}} }},
	{"complete-no-lines", func(d *InvoiceV2) { d.LinesComplete, d.LineItems = true, []LineItem{} }},
	{"complete-no-amount", func(d *InvoiceV2) {
		d.LinesComplete = true
		d.LineItems = append(d.LineItems, LineItem{Description: "x"})
	}},
	{"lines-too-big", func(d *InvoiceV2) {
		for range 200 {
			d.LineItems = append(d.LineItems, LineItem{Description: strings.Repeat("z", 290)})
		}
	}},
	{"actions-nil", func(d *InvoiceV2) { d.ActionItems = nil }},
	{"action-dup-id", func(d *InvoiceV2) {
		d.ActionItems = append(d.ActionItems, ActionItem{ID: "a1", Kind: KindReviewTax, Evidence: "x"}, ActionItem{ID: "a1", Kind: KindReviewTax, Evidence: "x"})
	}},
	{"action-bad-id", func(d *InvoiceV2) {
		d.ActionItems = append(d.ActionItems, ActionItem{ID: "a b", Kind: KindReviewTax, Evidence: "x"})
	}},
	{"action-bad-kind", func(d *InvoiceV2) {
		d.ActionItems = append(d.ActionItems, ActionItem{ID: "z9", Kind: "pay_now", Evidence: "x"})
	}},
	{"action-paraphrase", func(d *InvoiceV2) {
		d.ActionItems = append(d.ActionItems, ActionItem{ID: "z9", Kind: KindContactSupplier, Evidence: "not in the text at all"})
	}},
	{"evidence-missing", func(d *InvoiceV2) { d.Evidence.SupplierName = nil }},
	{"evidence-all-null", func(d *InvoiceV2) { d.Evidence = EvidenceV2{} }},
	{"evidence-without-fact", func(d *InvoiceV2) { d.PONumber, d.Evidence.PONumber = nil, sp("PO") }},
	{"evidence-wrong-total", func(d *InvoiceV2) { d.Evidence.TotalMinor = d.Evidence.NetMinor }},
	{"evidence-html", func(d *InvoiceV2) { d.Evidence.InvoiceNumber = sp("<&>") }},
	{"evidence-blank", func(d *InvoiceV2) { d.Evidence.Currency = sp(" ") }},
}

// byteCheck is the reference: what the runner decides on the bytes.
func byteCheck(t *testing.T, doc *InvoiceV2, source string) error {
	t.Helper()
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = v2.ValidateReviewable(raw, source)
	return err
}

// TestCheckV2ReviewableMatchesBytes holds the value check to the byte
// check: the same accept or reject, and the same category, path and
// message, for every document of valueCorpus.
func TestCheckV2ReviewableMatchesBytes(t *testing.T) {
	t.Parallel()
	cases := valueCorpus(t)
	accepted, fallbacks := 0, 0
	categories := map[Category]bool{}
	for _, c := range cases {
		want := byteCheck(t, &c.doc, c.source)
		got := CheckV2Reviewable(&c.doc, c.source)
		if _, ok := v2ValueTokens(&c.doc); !ok {
			fallbacks++
		}
		if want == nil {
			accepted++
		} else {
			var ve *ValidationError
			if errors.As(want, &ve) {
				categories[ve.Category] = true
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: value check %v, byte check %v", c.name, got, want)
		}
	}
	// A corpus that reached few outcomes would prove little.
	if accepted < 50 || len(categories) < 8 || fallbacks == 0 || fallbacks == len(cases) {
		t.Fatalf("%d cases: %d accepted, %d categories %v, %d on the byte path", len(cases), accepted, len(categories), categories, fallbacks)
	}
	t.Logf("%d cases: %d accepted, %d categories, %d on the byte path", len(cases), accepted, len(categories), fallbacks)
}

// TestValueTokensMatchMarshal keeps v2ValueTokens in step with InvoiceV2:
// its tokens are those a UseNumber decoder reads from json.Marshal.
func TestValueTokensMatchMarshal(t *testing.T) {
	t.Parallel()
	for _, c := range valueCorpus(t) {
		vt, ok := v2ValueTokens(&c.doc)
		if !ok {
			continue
		}
		raw, err := json.Marshal(&c.doc)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		for i := 0; ; i++ {
			wantMore := dec.More()
			if gotMore := vt.More(); gotMore != wantMore {
				t.Fatalf("%s: token %d: More %v, decoder %v", c.name, i, gotMore, wantMore)
			}
			want, werr := dec.Token()
			got, gerr := vt.Token()
			if (werr == nil) != (gerr == nil) || want != got {
				t.Fatalf("%s: token %d: %#v (%v), decoder %#v (%v)", c.name, i, got, gerr, want, werr)
			}
			if werr != nil {
				break
			}
		}
	}
}

// FuzzCheckV2Reviewable holds the value check to the byte check on
// documents decoded from arbitrary JSON; extra, when not empty, becomes the
// title and one more action item's evidence, so that strings json.Unmarshal
// never makes (invalid UTF-8, any length) reach the value check too.
func FuzzCheckV2Reviewable(f *testing.F) {
	f.Add([]byte(validDocV2), testSourceV2, "")
	f.Add([]byte(nullDocV2), testSourceV2+sourceAdds, "x\xffy")
	f.Add([]byte(creditDoc), testSourceCredit, "Gutschrift")
	// FuzzValidateV2's corpus: one document per category to start from.
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzValidateV2", "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		raw, src := parseSeed(f, file, b)
		f.Add(raw, src, "")
	}
	f.Fuzz(func(t *testing.T, raw []byte, source, extra string) {
		var doc InvoiceV2
		if json.Unmarshal(raw, &doc) != nil {
			return
		}
		if extra != "" {
			doc.Title = extra
			doc.ActionItems = append(doc.ActionItems, ActionItem{ID: "fz", Kind: KindReviewTax, Evidence: extra})
		}
		want := byteCheck(t, &doc, source)
		if got := CheckV2Reviewable(&doc, source); !reflect.DeepEqual(got, want) {
			t.Fatalf("value check %v, byte check %v", got, want)
		}
	})
}
