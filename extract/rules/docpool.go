package rules

import "sync"

// docScratch holds the buffers a document's lines are cut from: the lines
// themselves, their folded-to-raw indexes, cells, currencies, numbers and
// cell memos. They were a third of the bytes each document allocated, and
// their size follows the text, so Extract and ExtractV2 hand them back when
// done (release) and the next document, on any goroutine, reuses them.
type docScratch struct {
	lines []line
	ptrs  []*line
	fends []int
	idx   []int
	cells []cell
	curs  []curHit
	nums  []amountTok
	memo  []cellMemo
	fold  []byte // the folded text, copied out as the document's ftext
	// The lines' keys, key hits and lexicon matches (gatherKeys); they
	// hold no pointers, so release need not clear them.
	keys  []int32
	hits  []keyHit
	found []lexFound
}

var docPool = sync.Pool{New: func() any { return new(docScratch) }}

// maxPooledIdx bounds the scratch kept for reuse: a very long document's
// buffers are left to the collector rather than held for the small ones.
const maxPooledIdx = 1 << 16

// sized returns s emptied, or a new slice when s cannot hold n elements.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// release hands the document's buffers back for reuse. Nothing may use d,
// or any slice read from it, afterwards; the strings read from it (facts,
// evidence) are the text's own or built anew, never cut from these buffers.
// The buffers are cleared first, so the pool holds no pointer into this
// document's text and the next document starts from zero values.
func (d *document) release() {
	sc := d.scratch
	if sc == nil {
		return
	}
	d.scratch, d.lines = nil, nil
	if cap(sc.idx) > maxPooledIdx {
		return
	}
	clear(sc.lines)
	clear(sc.ptrs)
	clear(sc.curs)
	clear(sc.nums)
	clear(sc.memo)
	docPool.Put(sc)
}
