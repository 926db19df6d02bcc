package rules

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/invx/invx/schema"
)

// encoderJSON is what the provider wrote before schema.AppendV1/V2: json.Encoder
// without HTML escaping, its newline trimmed.
func encoderJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encode: %v", err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

// oddStrings are strings encoding/json escapes: quotes, backslashes,
// control bytes, HTML characters (not escaped here), invalid UTF-8,
// U+2028 and U+2029, and plain multi-byte text.
var oddStrings = []string{"", "a\"b\\c", "\x00\x01\x07\b\f\n\r\t\x1f\x7f", "<a href='x'>&amp;</a>", "\xff\xfe ok \xc3",
	"line\u2028sep\u2029para", "Müller & Söhne GmbH – €", "日本語", "\xe2\x80", "tab\there"}

// mutate puts odd strings and nil slices into a copy of an answer, so
// every escape and every null path is written.
func mutateV2(rng *rand.Rand, d schema.InvoiceV2) schema.InvoiceV2 {
	pick := func() *string {
		if rng.IntN(3) == 0 {
			return nil
		}
		s := oddStrings[rng.IntN(len(oddStrings))]
		return &s
	}
	num := func() *int64 {
		if rng.IntN(3) == 0 {
			return nil
		}
		n := rng.Int64N(1<<53) - 1<<52
		return &n
	}
	d.Title = *pick2(pick)
	d.SupplierName, d.BuyerName, d.Evidence.TotalMinor, d.Evidence.Currency = pick(), pick(), pick(), pick()
	d.NetMinor, d.AmountDueMinor = num(), num()
	d.LinesComplete = rng.IntN(2) == 0
	switch rng.IntN(4) {
	case 0:
		d.Bullets, d.TaxLines, d.LineItems, d.ActionItems = nil, nil, nil, nil
	case 1:
		d.Bullets = append(d.Bullets, *pick2(pick))
		d.TaxLines = append(d.TaxLines, schema.TaxLine{RateBP: 1900, BaseMinor: num(), TaxMinor: -5})
		d.LineItems = append(d.LineItems, schema.LineItem{Description: *pick2(pick), Quantity: pick(), UnitPriceMinor: num(), AmountMinor: num(), TaxRateBP: num()})
		d.ActionItems = append(d.ActionItems, schema.ActionItem{ID: "a9", Kind: *pick2(pick), Evidence: *pick2(pick)})
	}
	return d
}

func pick2(pick func() *string) *string {
	if s := pick(); s != nil {
		return s
	}
	s := "x"
	return &s
}

// TestEncodeMatchesEncoder holds schema.AppendV1 and AppendV2 to json.Encoder on
// the answers to every fixture and dev-set text, and on those answers
// with odd strings, nulls and extra entries put in.
func TestEncodeMatchesEncoder(t *testing.T) {
	t.Parallel()
	texts := selfCheckTexts(t) // already sampled under -race
	rng := rand.New(rand.NewPCG(8, 9))
	for _, text := range texts {
		v1 := Extract(text)
		if got, want := schema.AppendV1(nil, &v1), encoderJSON(t, &v1); !bytes.Equal(got, want) {
			t.Fatalf("AppendV1:\n got %s\nwant %s", got, want)
		}
		v1.Title, v1.Invoice.SupplierName = oddStrings[rng.IntN(len(oddStrings))], &oddStrings[rng.IntN(len(oddStrings))]
		if rng.IntN(2) == 0 {
			v1.Bullets, v1.ActionItems = nil, nil
		}
		if got, want := schema.AppendV1(nil, &v1), encoderJSON(t, &v1); !bytes.Equal(got, want) {
			t.Fatalf("AppendV1 (odd strings):\n got %s\nwant %s", got, want)
		}
		v2 := ExtractV2(text)
		for k := range 3 {
			if got, want := schema.AppendV2(nil, &v2), encoderJSON(t, &v2); !bytes.Equal(got, want) {
				t.Fatalf("AppendV2 (mutation %d):\n got %s\nwant %s", k, got, want)
			}
			v2 = mutateV2(rng, v2)
		}
	}
	for _, s := range oddStrings {
		if got, want := schema.AppendJSONString(nil, s), encoderJSON(t, s); !bytes.Equal(got, want) {
			t.Fatalf("schema.AppendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
	if len(texts) < atLeast(300) {
		t.Fatalf("only %d texts: the comparison proves little", len(texts))
	}
}

// FuzzJSONString holds the string writer to encoding/json on any bytes.
func FuzzJSONString(f *testing.F) {
	for _, s := range oddStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := schema.AppendJSONString(nil, s), encoderJSON(t, s); !bytes.Equal(got, want) {
			t.Fatalf("schema.AppendJSONString(%q) = %s, want %s", s, got, want)
		}
	})
}

// TestEncodeKnowsEveryField fails when a schema type gains or loses a
// field: schema.AppendV1 and AppendV2 write each by name and must be
// taught the new one.
func TestEncodeKnowsEveryField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    any
		want int
	}{
		{schema.InvoiceSummaryV1{}, 5}, {schema.InvoiceFacts{}, 5}, {schema.ActionItem{}, 3},
		{schema.InvoiceV2{}, 22}, {schema.TaxLine{}, 3}, {schema.LineItem{}, 5}, {schema.EvidenceV2{}, 13},
	} {
		if n := reflect.TypeOf(c.v).NumField(); n != c.want {
			t.Errorf("%T has %d fields, schema.AppendV1/V2 write %d", c.v, n, c.want)
		}
	}
}
