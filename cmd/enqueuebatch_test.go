package cmd

import (
	"strings"
	"testing"

	"github.com/invx/invx/extract"
)

// A walk's batch is cut by documents or by bytes of text, whichever comes
// first, so what a run holds between the walk and the store does not grow
// with the size of the files.
func TestEnqueueBatchBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		docBytes int
		want     int // documents in a full batch
	}{
		{"small files: 500 documents", 10, enqueueBatchDocs},
		{"bench-sized files: 256 KiB", 2000, (enqueueBatchBytes + 1999) / 2000},
		{"one large file", 2 << 20, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := extract.Found{Text: strings.Repeat("x", tc.docBytes)}
			var b enqueueBatch
			for round := 0; round < 2; round++ {
				n := 1
				for !b.add(d) {
					n++
					if n > enqueueBatchDocs {
						t.Fatalf("round %d: batch not full after %d documents", round, n)
					}
				}
				if n != tc.want {
					t.Errorf("round %d: batch full after %d documents, want %d", round, n, tc.want)
				}
				if got := len(b.take()); got != n {
					t.Errorf("round %d: take gave %d documents, want %d", round, got, n)
				}
			}
		})
	}
}
