package rules

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkExtract(b *testing.B) {
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
		Extract(texts[i%len(texts)])
	}
}
