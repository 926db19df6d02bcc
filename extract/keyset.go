package extract

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// Tags say why a run holds a job key. When a key was added more than once,
// the smallest tag wins: a job the enqueue once found settled stays
// settled (nothing leaves succeeded or dismissed), and a job the run both
// enqueued and committed is the run's own document.
const (
	// tagSucceeded, tagDismissed: enqueued, and the enqueue found the job
	// in that state: the finish counts it unread.
	tagSucceeded byte = iota
	tagDismissed
	// tagEnqueued: enqueued, its state is read again at the finish.
	tagEnqueued
	// tagReviewed: committed by this runner with an open review reason
	// and not enqueued by it (invx work): counted for review only.
	tagReviewed
	// tagCommitted: committed by this runner, which leaves the job
	// succeeded for good. It is never read on its own: beside tagEnqueued
	// it makes the key tagSucceeded (the run's own document, counted
	// unread at the finish); alone it is another delivery's document and
	// the cursor passes over it.
	tagCommitted
)

// mergedTag is the tag a key added with the tags of a sorted group holds:
// the smallest, except that a document the run enqueued and committed
// itself is settled, and a key only committed is not the run's (keep
// false).
func mergedTag(smallest byte, committed bool) (tag byte, keep bool) {
	switch {
	case smallest == tagCommitted:
		return 0, false
	case smallest == tagEnqueued && committed:
		return tagSucceeded, true
	}
	return smallest, true
}

// spillKeys is the number of keys a keySet holds in memory per tenant
// (33 bytes each, 264 KiB) before it writes them, sorted, to its spill
// file: a run's memory must not grow with its number of documents
// (issue 17).
const spillKeys = 8192

// rec is one job key (32 raw bytes) and its tag. Ordering records
// bytewise orders by key, then by tag.
type rec [33]byte

func (r *rec) key() []byte { return r[:32] }
func (r *rec) tag() byte   { return r[32] }

func cmpRec(a, b rec) int { return bytes.Compare(a[:], b[:]) }

// keySet holds the job keys a run touched, per tenant, each with a tag.
// At most spillKeys of a tenant's keys are in memory; full chunks are
// sorted, stripped of repeats and written to a temporary file that is
// unlinked at once, and the finish reads them back merged (cursor): in key
// order, each key once. A key that is not a hex sha256 (never, from
// JobKey) is kept in memory beside them.
type keySet struct {
	// chunk overrides spillKeys (tests; 0: the constant).
	chunk   int
	tenants map[string]*tenantKeys
	spill   *spillFile
}

// tenantKeys are one tenant's keys: the chunk being filled, and the
// sorted runs written before it.
type tenantKeys struct {
	mem  []rec
	runs []run
	// n is the records held in mem and runs, each run without repeats.
	n int
	// listed counts the adds other than tagCommitted: at least the keys
	// a cursor returns.
	listed int
	other  []otherKey
}

type otherKey struct {
	key string
	tag byte
}

// run is a sorted chunk of records without repeats: n records at off in
// the spill file, or, when it could not be written, in mem.
type run struct {
	off int64
	n   int
	mem []rec
}

// spillFile is where full chunks go: one temporary file per keySet,
// written at its end and read with ReadAt only.
type spillFile struct {
	f    *os.File
	name string // non-empty while the file still has a name to remove
	size int64
}

// sortRun sorts recs and keeps one record per key: the smallest tag, or
// tagSucceeded for a key enqueued and committed (mergedTag). A key only
// committed stays tagCommitted, as its enqueue may be in another run.
func sortRun(recs []rec) []rec {
	slices.SortFunc(recs, cmpRec)
	out := recs[:0]
	for i := 0; i < len(recs); {
		r, committed := recs[i], false
		j := i
		for ; j < len(recs) && bytes.Equal(recs[j].key(), r.key()); j++ {
			committed = committed || recs[j].tag() == tagCommitted
		}
		if r.tag() == tagEnqueued && committed {
			r[32] = tagSucceeded
		}
		out = append(out, r)
		i = j
	}
	return out
}

// rawKey is key's 32 bytes, ok false when key is not a hex sha256.
func rawKey(key string) (k [32]byte, ok bool) {
	if len(key) != 64 {
		return k, false
	}
	_, err := hex.Decode(k[:], []byte(key))
	return k, err == nil
}

func (s *keySet) add(tenant, key string, tag byte) {
	if s.tenants == nil {
		s.tenants = map[string]*tenantKeys{}
	}
	t := s.tenants[tenant]
	if t == nil {
		t = &tenantKeys{}
		s.tenants[tenant] = t
	}
	if tag != tagCommitted {
		t.listed++
	}
	k, ok := rawKey(key)
	if !ok {
		t.other = append(t.other, otherKey{key, tag})
		return
	}
	var r rec
	copy(r[:], k[:])
	r[32] = tag
	t.mem = append(t.mem, r)
	t.n++
	if len(t.mem) >= cmp.Or(s.chunk, spillKeys) {
		s.flush(t)
	}
}

// flush ends t's chunk: sorted, without repeats, written to the spill
// file. A chunk that cannot be written (no temporary directory, a full
// disk) stays in memory as a run: the run goes on, only larger.
func (s *keySet) flush(t *tenantKeys) {
	if len(t.mem) == 0 {
		return
	}
	recs := sortRun(t.mem)
	t.n -= len(t.mem) - len(recs)
	off, err := s.write(recs)
	if err != nil {
		t.runs = append(t.runs, run{n: len(recs), mem: recs})
		t.mem = nil
		return
	}
	t.runs = append(t.runs, run{off: off, n: len(recs)})
	t.mem = t.mem[:0]
}

// write appends recs to the spill file, created at the first write, and
// returns where they start.
func (s *keySet) write(recs []rec) (int64, error) {
	if s.spill == nil {
		f, err := os.CreateTemp("", "invx-keys-*")
		if err != nil {
			return 0, fmt.Errorf("spill job keys: %w", err)
		}
		s.spill = &spillFile{f: f}
		// Unlinked at once where the system allows it (an open file on
		// Windows cannot be): the file goes with the process, however it
		// ends.
		if os.Remove(f.Name()) != nil {
			s.spill.name = f.Name()
		}
	}
	sp := s.spill
	w := bufio.NewWriterSize(io.NewOffsetWriter(sp.f, sp.size), 32<<10)
	for i := range recs {
		if _, err := w.Write(recs[i][:]); err != nil {
			return 0, fmt.Errorf("spill job keys: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return 0, fmt.Errorf("spill job keys: %w", err)
	}
	off := sp.size
	sp.size += int64(len(recs) * len(rec{}))
	return off, nil
}

// errSpillClosed: the keys were spilled to a file that close removed.
var errSpillClosed = errors.New("read spilled job keys: the file is closed")

// close removes the spill file. The set must not be used after.
func (s *keySet) close() error {
	if s.spill == nil {
		return nil
	}
	err := s.spill.f.Close()
	if s.spill.name != "" {
		err = errors.Join(err, os.Remove(s.spill.name))
	}
	s.spill = nil
	return err
}

// seal ends every tenant's chunk as a run held in memory, so that a
// cursor reads runs only, which later adds never change, and returns the
// tenants with keys, sorted. A small set (one chunk) is never written.
func (s *keySet) seal() []string {
	var out []string
	for name, t := range s.tenants {
		if len(t.mem) > 0 {
			recs := sortRun(t.mem)
			t.n -= len(t.mem) - len(recs)
			t.runs = append(t.runs, run{n: len(recs), mem: recs})
			t.mem = nil
		}
		slices.SortFunc(t.other, func(a, b otherKey) int {
			return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.tag, b.tag))
		})
		t.other = mergeOther(t.other)
		if t.listed > 0 {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// count is the number of tenant's keys, at most: a key repeated in two
// runs is counted twice. Call after seal.
func (s *keySet) count(tenant string) int {
	t := s.tenants[tenant]
	if t == nil {
		return 0
	}
	return t.listed
}

// mergeOther keeps one of the sorted other keys per key, as sortRun and
// the cursor do for hex keys, without the keys only committed.
func mergeOther(os []otherKey) []otherKey {
	out := os[:0]
	for i := 0; i < len(os); {
		o, committed := os[i], false
		j := i
		for ; j < len(os) && os[j].key == o.key; j++ {
			committed = committed || os[j].tag == tagCommitted
		}
		if tag, keep := mergedTag(o.tag, committed); keep {
			out = append(out, otherKey{o.key, tag})
		}
		i = j
	}
	return out
}

// cursor reads tenant's keys in order, each once with its smallest tag;
// then those that are not hex, in their order. Call after seal; keys added
// after seal are not read.
func (s *keySet) cursor(tenant string) *keyCursor {
	c := &keyCursor{}
	t := s.tenants[tenant]
	if t == nil {
		return c
	}
	c.other = t.other
	for _, r := range t.runs {
		rr := &runReader{mem: r.mem}
		if r.mem == nil && s.spill == nil {
			c.err = errSpillClosed
			break
		}
		if r.mem == nil {
			// A spilled run is read 128 records at a time: the merge
			// holds about 4 KiB per run, not the runs.
			rr.r = bufio.NewReaderSize(io.NewSectionReader(s.spill.f, r.off, int64(r.n*len(rec{}))), 128*len(rec{}))
		}
		if rr.next() {
			c.h = append(c.h, rr)
		} else if rr.err != nil {
			c.err = rr.err
		}
	}
	heap.Init(&c.h)
	return c
}

// runReader is one run being read, from the spill file (r) or from
// memory (mem): cur is its next record.
type runReader struct {
	r   *bufio.Reader
	mem []rec
	cur rec
	err error
}

func (rr *runReader) next() bool {
	if rr.r == nil {
		if len(rr.mem) == 0 {
			return false
		}
		rr.cur, rr.mem = rr.mem[0], rr.mem[1:]
		return true
	}
	_, err := io.ReadFull(rr.r, rr.cur[:])
	if err != nil && err != io.EOF {
		rr.err = fmt.Errorf("read spilled job keys: %w", err)
	}
	return err == nil
}

// runHeap orders runs by their next record (heap.Interface).
type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return cmpRec(h[i].cur, h[j].cur) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// keyCursor merges a tenant's runs. After next returns false, err says
// whether the keys ran out or could not be read.
type keyCursor struct {
	h     runHeap
	other []otherKey
	err   error
}

// next returns the next key, as hex, and its tag.
func (c *keyCursor) next() (key string, tag byte, ok bool) {
	r, ok := c.nextRaw()
	if ok {
		return hex.EncodeToString(r.key()), r.tag(), true
	}
	if c.err != nil || len(c.other) == 0 {
		return "", 0, false
	}
	o := c.other[0]
	c.other = c.other[1:]
	return o.key, o.tag, true
}

// nextRaw returns the next hex key's record: the smallest record left,
// with the records of the same key after it (larger tags) read too and
// merged (mergedTag); a key only committed is passed over.
func (c *keyCursor) nextRaw() (rec, bool) {
	for c.err == nil && len(c.h) > 0 {
		r := c.pop()
		committed := r.tag() == tagCommitted
		for c.err == nil && len(c.h) > 0 && bytes.Equal(c.h[0].cur.key(), r.key()) {
			d := c.pop()
			committed = committed || d.tag() == tagCommitted
		}
		if c.err != nil {
			break
		}
		tag, keep := mergedTag(r.tag(), committed)
		if !keep {
			continue
		}
		r[32] = tag
		return r, true
	}
	return rec{}, false
}

// pop takes the smallest record left and moves its run on.
func (c *keyCursor) pop() rec {
	rr := c.h[0]
	r := rr.cur
	if rr.next() {
		heap.Fix(&c.h, 0)
	} else {
		if rr.err != nil {
			c.err = rr.err
		}
		heap.Pop(&c.h)
	}
	return r
}

// hasFunc is a membership test for keys asked in ascending order (as
// store.CountReviewParams.Has is called), walking the cursor forward
// instead of holding the keys for lookups. A key asked out of order sets
// *outOfOrder: the answers may be wrong, and the caller must not use them.
func (c *keyCursor) hasFunc(outOfOrder *bool) func(string) bool {
	var cur, prev rec
	have, asked := false, false
	others := map[string]bool{}
	for _, o := range c.other {
		others[o.key] = true
	}
	return func(key string) bool {
		k, ok := rawKey(key)
		if !ok {
			return others[key]
		}
		if asked && bytes.Compare(k[:], prev.key()) <= 0 {
			*outOfOrder = true
		}
		copy(prev[:], k[:])
		asked = true
		for (!have || bytes.Compare(cur.key(), k[:]) < 0) && c.err == nil {
			var ok bool
			if cur, ok = c.nextRaw(); !ok {
				have = false
				break
			}
			have = true
		}
		return have && bytes.Equal(cur.key(), k[:])
	}
}
