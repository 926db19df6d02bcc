package rules

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkExtract(b *testing.B) {
	files, _ := filepath.Glob("testdata/dev/*.txt")
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
