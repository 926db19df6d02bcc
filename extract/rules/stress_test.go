package rules

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestStressMutations(t *testing.T) {
	if os.Getenv("RULES_STRESS") == "" {
		t.Skip()
	}
	files, _ := filepath.Glob("testdata/dev/*.txt")
	var seeds []string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		seeds = append(seeds, string(b))
	}
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 3000; n++ {
		s := []byte(seeds[r.Intn(len(seeds))])
		for k := 0; k < 1+r.Intn(20); k++ {
			switch r.Intn(4) {
			case 0:
				if len(s) > 0 {
					s[r.Intn(len(s))] = byte(r.Intn(256))
				}
			case 1:
				i := r.Intn(len(s) + 1)
				s = append(s[:i], append([]byte{byte(r.Intn(128))}, s[i:]...)...)
			case 2:
				if len(s) > 10 {
					i := r.Intn(len(s) - 5)
					s = append(s[:i], s[i+r.Intn(5):]...)
				}
			case 3:
				i, j := r.Intn(len(s)+1), r.Intn(len(s)+1)
				if i > j {
					i, j = j, i
				}
				s = append(s[:j:j], s[i:]...)
			}
		}
		start := time.Now()
		done := make(chan bool)
		go func() { Extract(string(s)); done <- true }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			os.WriteFile("/tmp/slow.txt", s, 0o644)
			t.Fatalf("slow input written to /tmp/slow.txt")
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Logf("%d bytes took %v", len(s), d)
		}
	}
}
