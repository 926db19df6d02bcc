package readbuf

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// readUpTo must read what io.ReadAll(io.LimitReader(r, limit)) reads,
// whatever the buffer it starts from and however the reader splits its
// data.
func TestReadUpToMatchesReadAll(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("0123456789abcdef"), 300) // 4800 bytes
	readers := map[string]func(r io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+EOF": iotest.DataErrReader,
	}
	for name, wrap := range readers {
		for _, n := range []int{0, 1, 511, 4800} {
			for _, limit := range []int64{-1, 0, 1, 100, int64(n), int64(n) + 1, 10000} {
				for _, capacity := range []int{0, 1, n, n + 1, 8192} {
					src := data[:n]
					want := src
					if limit >= 0 {
						want, _ = io.ReadAll(io.LimitReader(bytes.NewReader(src), limit))
					}
					got, err := ReadUpTo(wrap(bytes.NewReader(src)), make([]byte, 0, capacity), limit)
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("%s, %d bytes, limit %d, cap %d: read %d bytes (err %v), want %d",
							name, n, limit, capacity, len(got), err, len(want))
					}
				}
			}
		}
	}
	// An error other than EOF is returned with what was read.
	_, err := ReadUpTo(iotest.TimeoutReader(bytes.NewReader(data)), make([]byte, 0, 16), -1)
	if err != iotest.ErrTimeout {
		t.Errorf("err = %v, want the reader's", err)
	}
}
