package rules

import (
	"encoding/json"
	"testing"

	"github.com/invx/invx/schema"
)

// BenchmarkSelfCheck times ensureValid's check of one finished draft, the
// value check against the byte check it replaced, over the development
// texts (one draft per op).
func BenchmarkSelfCheck(b *testing.B) {
	texts := benchTexts(b, "testdata/dev/*.txt", "../../fixtures/*/*.txt")
	drafts := make([]schema.InvoiceV2, len(texts))
	for i, text := range texts {
		drafts[i] = draftV2(text)
	}
	v2, err := schema.Lookup(schema.V2)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := i % len(texts)
			raw, err := json.Marshal(&drafts[k])
			if err != nil {
				b.Fatal(err)
			}
			_, _ = v2.ValidateReviewable(raw, texts[k])
			i++
		}
	})
	b.Run("value", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := i % len(texts)
			_ = schema.CheckV2Reviewable(&drafts[k], texts[k])
			i++
		}
	})
}
