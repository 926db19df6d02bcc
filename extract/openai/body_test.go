package openai

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestPartsReaderReadsEveryByte reads a two-part body through buffers of
// every awkward size: the bytes must be head then tail, exactly, then EOF.
func TestPartsReaderReadsEveryByte(t *testing.T) {
	t.Parallel()
	head, tail := strings.Repeat("h", 37), strings.Repeat("t", 11)
	for _, tc := range []struct {
		name      string
		head, tai string
	}{
		{"both", head, tail},
		{"empty tail", head, ""},
		{"empty head", "", tail},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := wireBody{head: []byte(tc.head), tail: []byte(tc.tai)}
			// TestReader reads one byte at a time, then in halves, and
			// checks EOF stays EOF.
			if err := iotest.TestReader(b.Reader(), []byte(tc.head+tc.tai)); err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{1, 5, 37, 38, 48, 4096} {
				r, got := b.Reader(), []byte{}
				buf := make([]byte, size)
				for {
					n, err := r.Read(buf)
					got = append(got, buf[:n]...)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if string(got) != tc.head+tc.tai {
					t.Fatalf("size %d: read %q, want %q", size, got, tc.head+tc.tai)
				}
			}
		})
	}
}
