package cmd

import "github.com/invx/invx/extract"

// A batch of discovered documents is enqueued (one write transaction) once
// it holds enqueueBatchDocs documents or enqueueBatchBytes of text. The byte
// bound keeps what the walk holds small whatever the files' size: a batch
// is in memory several times over (the texts, their compressed copies in
// the store's transaction) and the Go heap goal doubles whatever is live.
// 256 KiB is about 130 of bench/gen's documents: the transaction's fsync
// stays a small share of reading and hashing them.
const (
	enqueueBatchDocs  = 500
	enqueueBatchBytes = 256 << 10
)

// enqueueBatch collects discovered documents for one enqueue.
type enqueueBatch struct {
	docs  []extract.Found
	bytes int
}

// add adds d and reports whether the batch is full: enqueue it now.
func (b *enqueueBatch) add(d extract.Found) (full bool) {
	b.docs = append(b.docs, d)
	b.bytes += len(d.Text)
	return len(b.docs) >= enqueueBatchDocs || b.bytes >= enqueueBatchBytes
}

// take returns the documents collected and empties the batch. The slice
// is only valid until the next add: its backing array is reused.
func (b *enqueueBatch) take() []extract.Found {
	docs := b.docs
	b.docs, b.bytes = b.docs[:0], 0
	return docs
}
