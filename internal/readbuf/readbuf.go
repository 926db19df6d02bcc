// Package readbuf holds the pooled buffers whole files are read into
// (documents by discovery, recordings by the replay provider): the caller
// copies what it keeps, so one buffer serves read after read instead of
// io.ReadAll growing a new one each time.
package readbuf

import (
	"io"
	"sync"
)

var pool = sync.Pool{New: func() any {
	b := make([]byte, 0, 16<<10)
	return &b
}}

// maxPooled keeps a rare large file's buffer out of the pool.
const maxPooled = 1 << 20

// Get returns an empty pooled buffer; Put hands it back.
func Get() *[]byte { return pool.Get().(*[]byte) }

// Put returns b to the pool unless it grew past maxPooled.
func Put(b *[]byte) {
	if cap(*b) <= maxPooled {
		*b = (*b)[:0]
		pool.Put(b)
	}
}

// ReadUpTo appends what r holds to b, at most limit bytes (no limit when
// negative), as io.ReadAll(io.LimitReader(r, limit)) would.
func ReadUpTo(r io.Reader, b []byte, limit int64) ([]byte, error) {
	for limit < 0 || int64(len(b)) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		end := cap(b)
		if limit >= 0 {
			end = int(min(int64(end), limit))
		}
		n, err := r.Read(b[len(b):end])
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
