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

// BenchmarkValidateRecorded times the runner's check of a provider's bytes
// (ValidateReviewable) and the rules extractor's check of its value
// (CheckV2Reviewable) over the recorded answers of every fixture text, one
// answer per op.
func BenchmarkValidateRecorded(b *testing.B) {
	rec := recordedAnswers(b)
	raws := make([][]byte, len(rec))
	docs := make([]InvoiceV2, len(rec))
	for i, r := range rec {
		raws[i] = []byte(r[0])
		if err := json.Unmarshal(raws[i], &docs[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := i % len(rec)
			_, _ = v2.ValidateReviewable(raws[k], rec[k][1])
			i++
		}
	})
	b.Run("value", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := i % len(rec)
			_ = CheckV2Reviewable(&docs[k], rec[k][1])
			i++
		}
	})
}
