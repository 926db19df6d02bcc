package rules

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadAmountsV2 times the v2 amount readers alone (the document
// is parsed outside the timer) on the development invoices, the set
// BenchmarkExtract uses.
func BenchmarkReadAmountsV2(b *testing.B) {
	files, err := filepath.Glob("testdata/dev/*.txt")
	if err != nil || len(files) == 0 {
		b.Fatalf("no development invoices to time (%v)", err)
	}
	var texts []string
	for _, f := range files {
		t, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(t))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		d := newDocument(texts[i%len(texts)])
		b.StartTimer()
		d.readAmountsV2()
	}
}

// TestReadAmountsV2Linear: a document made of one table row repeated up to
// the line bound is read in time proportional to its size (a quadratic
// reader takes minutes here).
func TestReadAmountsV2Linear(t *testing.T) {
	t.Parallel()
	text := "Description              Qty      Price      Amount\n"
	for range maxLines {
		text += "Bolt                       2       1.00        2.00 EUR\n"
	}
	a := newDocument(text).readAmountsV2()
	if len(a.Lines) != maxItemRows {
		t.Errorf("read %d lines, want the cap of %d", len(a.Lines), maxItemRows)
	}
	if a.LinesComplete {
		t.Errorf("lines beyond the cap were dropped; the lines cannot be complete")
	}
}
