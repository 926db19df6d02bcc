package replay

import (
	"io"
	"sync"
)

// readBufs holds the buffers recordings are read into: decoding copies
// what it keeps, so one buffer serves call after call instead of
// io.ReadAll growing a new one for each.
var readBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 16<<10)
	return &b
}}

// maxPooledBuf keeps a rare huge recording's buffer out of the pool.
const maxPooledBuf = 1 << 20

func putReadBuf(b *[]byte) {
	if cap(*b) <= maxPooledBuf {
		*b = (*b)[:0]
		readBufs.Put(b)
	}
}

// readCapped appends what r holds to b, up to limit bytes, as
// io.ReadAll(io.LimitReader(r, limit)) would.
func readCapped(r io.Reader, b []byte, limit int) ([]byte, error) {
	for len(b) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):min(cap(b), limit)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}
