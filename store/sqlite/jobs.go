package sqlite

import "time"

// enqueueBatch bounds one enqueue transaction: large enough to amortise the
// fsync, small enough that other processes are not starved of the write lock.
const enqueueBatch = 500

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
