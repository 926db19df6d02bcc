package schema

import (
	"encoding/json"
	"testing"
)

// BenchmarkV2Check times the two ways of checking validDocV2: the bytes, as
// the runner receives them (ValidateReviewable), and the value, as the rules
// extractor builds it (CheckV2Reviewable).
func BenchmarkV2Check(b *testing.B) {
	var doc InvoiceV2
	if err := json.Unmarshal([]byte(validDocV2), &doc); err != nil {
		b.Fatal(err)
	}
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v2.ValidateReviewable([]byte(validDocV2), testSourceV2); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("value", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := CheckV2Reviewable(&doc, testSourceV2); err != nil {
				b.Fatal(err)
			}
		}
	})
}
