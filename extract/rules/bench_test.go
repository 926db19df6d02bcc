package rules

import (
	"testing"
)

// benchTexts reads the texts matching the patterns, normalised as the
// provider sees them; it skips the benchmark when none is present.
func benchTexts(b *testing.B, patterns ...string) []string {
	b.Helper()
	texts := globTexts(b, patterns...)
	if len(texts) == 0 {
		b.Skipf("no texts match %v", patterns)
	}
	return texts
}

// benchBoth times Extract and ExtractV2, one document per op.
func benchBoth(b *testing.B, texts []string) {
	b.Helper()
	b.Run("v1", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			Extract(texts[i%len(texts)])
			i++
		}
	})
	b.Run("v2", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ExtractV2(texts[i%len(texts)])
			i++
		}
	})
}

func BenchmarkExtract(b *testing.B) {
	benchBoth(b, benchTexts(b, "testdata/dev/*.txt"))
}

// BenchmarkExtractDevSet times the real documents of the local dev set
// (../shared/devset/README.md builds it outside the repository); it skips
// where the dev set is absent, and its texts are never committed.
func BenchmarkExtractDevSet(b *testing.B) {
	benchBoth(b, benchTexts(b, "/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt"))
}
