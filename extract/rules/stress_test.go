package rules

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/invx/invx/internal/deadlinetest"
)

// mutate damages a text the way a broken scan, a bad copy or a truncated
// upload does: bytes overwritten, inserted and dropped, a stretch repeated.
// The result need not be valid UTF-8.
func mutate(r *rand.Rand, seed string) string {
	s := []byte(seed)
	for range 1 + r.Intn(20) {
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
	return string(s)
}

// TestMutations extracts damaged copies of the development invoices (a
// fixed seed, so a failure names a reproducible case) and checks what
// every result must satisfy whatever the input: the invariants of
// checkInvariants (evidence verbatim from the text, caps, a real date, a
// known currency syntax, ...). It complements
// FuzzExtract, whose seed corpus is all a plain go test runs.
func TestMutations(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/dev/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 25 {
		t.Fatalf("%d development invoices to mutate, want at least 25", len(files))
	}
	var seeds []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, string(b))
	}
	n := 300
	if raceOn {
		n = 30
	}
	r := rand.New(rand.NewSource(1))
	// One budget for all, from the test's deadline: an input that makes
	// the extractor hang is named instead of the binary panicking.
	deadline := time.After(deadlinetest.Timeout(t))
	for i := range n {
		text := mutate(r, seeds[r.Intn(len(seeds))])
		done := make(chan struct{})
		go func() {
			defer close(done)
			checkInvariants(t, text, Extract(text))
			checkV2Invariants(t, text)
		}()
		select {
		case <-done:
		case <-deadline:
			t.Fatalf("mutation %d (%d bytes) still extracting at the test's deadline: %.300q", i, len(text), text)
		}
		if t.Failed() {
			t.Fatalf("mutation %d of seed 1 broke an invariant; the input: %q", i, text)
		}
	}
}
