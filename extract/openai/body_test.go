package openai

import (
	"io"
	"net/http"
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
			if err := iotest.TestReader(b.reader(), []byte(tc.head+tc.tai)); err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{1, 5, 37, 38, 48, 4096} {
				r, got := b.reader(), []byte{}
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

// TestReadAllWhateverTheLength reads an answer whose Content-Length is
// right, too small, too large or absent: always the whole body.
func TestReadAllWhateverTheLength(t *testing.T) {
	t.Parallel()
	const body = `{"model":"m","choices":[]}`
	for _, n := range []int64{int64(len(body)), 3, 1000, 0, -1, maxPresize + 1} {
		res := &http.Response{ContentLength: n, Body: io.NopCloser(strings.NewReader(body))}
		got, err := readAll(res)
		if err != nil || string(got) != body {
			t.Fatalf("Content-Length %d: read %q, %v; want %q", n, got, err, body)
		}
	}
	// Unannounced lengths share pooled buffers: a long answer must
	// leave nothing behind in a shorter one read after it, nor in what
	// it returned.
	long, short := strings.Repeat("x", 5000), "{}"
	first, err := readAll(&http.Response{ContentLength: -1, Body: io.NopCloser(strings.NewReader(long))})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got, err := readAll(&http.Response{ContentLength: -1, Body: io.NopCloser(strings.NewReader(short))})
		if err != nil || string(got) != short {
			t.Fatalf("after a long answer: read %q, %v; want %q", got, err, short)
		}
	}
	if string(first) != long {
		t.Fatalf("the long answer changed after later reads: %.20q...", first)
	}
}
