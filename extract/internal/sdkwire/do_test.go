package sdkwire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

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
