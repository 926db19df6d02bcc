package extract

import (
	"bytes"
	"encoding/hex"
	"slices"
	"sort"

	"github.com/invx/invx/store"
)

// keyBlock is the number of keys in one block of a keySet (32 KiB).
const keyBlock = 1024

// keySet holds the job keys a run touched, per tenant, as 32 raw bytes
// each in fixed blocks, rather than 64-byte hex strings in a map or one
// slice grown by append: a run must not grow with the number of documents
// by more than 32 bytes each (issue 17). An appended slice keeps up to
// twice its length and leaves a copy behind at every growth, and a sorted
// copy at the finish doubles it again; blocks are filled once and sorted
// where they are. A key that is not a hex sha256 (never, from JobKey) is
// kept as text beside them.
type keySet struct {
	raw   map[string]*keyBlocks // tenant -> keys
	other map[string][]string
}

// keyBlocks is a sequence of keys stored in blocks of keyBlock.
type keyBlocks struct {
	blocks []*[keyBlock][32]byte
	n      int
	// sorted is set by freeze: the keys are in order and unique.
	sorted bool
}

func (b *keyBlocks) at(i int) *[32]byte { return &b.blocks[i/keyBlock][i%keyBlock] }

func (b *keyBlocks) add(k [32]byte) {
	if b.n == len(b.blocks)*keyBlock {
		b.blocks = append(b.blocks, new([keyBlock][32]byte))
	}
	*b.at(b.n) = k
	b.n++
	b.sorted = false
}

// Len, Less and Swap sort the keys in place (sort.Interface).
func (b *keyBlocks) Len() int           { return b.n }
func (b *keyBlocks) Less(i, j int) bool { return bytes.Compare(b.at(i)[:], b.at(j)[:]) < 0 }
func (b *keyBlocks) Swap(i, j int)      { x, y := b.at(i), b.at(j); *x, *y = *y, *x }

// compact sorts the keys in place, drops repeats (the same text under two
// paths is one job) and gives back the blocks left empty.
func (b *keyBlocks) compact() {
	if b.sorted {
		return
	}
	sort.Sort(b)
	w := 0
	for i := 0; i < b.n; i++ {
		if w > 0 && *b.at(i) == *b.at(w - 1) {
			continue
		}
		if w != i {
			*b.at(w) = *b.at(i)
		}
		w++
	}
	b.n = w
	used := (w + keyBlock - 1) / keyBlock
	clear(b.blocks[used:])
	b.blocks = b.blocks[:used]
	b.sorted = true
}

// has reports whether k is among the keys; they must be compacted.
func (b *keyBlocks) has(k [32]byte) bool {
	i := sort.Search(b.n, func(i int) bool { return bytes.Compare(b.at(i)[:], k[:]) >= 0 })
	return i < b.n && *b.at(i) == k
}

// rawKey is key's 32 bytes, ok false when key is not a hex sha256.
func rawKey(key string) (k [32]byte, ok bool) {
	if len(key) != 64 {
		return k, false
	}
	_, err := hex.Decode(k[:], []byte(key))
	return k, err == nil
}

func (s *keySet) add(tenant, key string) {
	if k, ok := rawKey(key); ok {
		if s.raw == nil {
			s.raw = map[string]*keyBlocks{}
		}
		b := s.raw[tenant]
		if b == nil {
			b = &keyBlocks{}
			s.raw[tenant] = b
		}
		b.add(k)
		return
	}
	if s.other == nil {
		s.other = map[string][]string{}
	}
	s.other[tenant] = append(s.other[tenant], key)
}

// len is the number of keys held: repeats included until freeze.
func (s *keySet) len() int {
	n := 0
	for _, b := range s.raw {
		n += b.n
	}
	for _, ks := range s.other {
		n += len(ks)
	}
	return n
}

// keys returns tenant's keys as hex: in the order they were added, or
// sorted without repeats once the set was frozen.
func (s *keySet) keys(tenant string) []string {
	b := s.raw[tenant]
	if b == nil {
		b = &keyBlocks{}
	}
	out := make([]string, 0, b.n+len(s.other[tenant]))
	for i := 0; i < b.n; i++ {
		out = append(out, hex.EncodeToString(b.at(i)[:]))
	}
	return append(out, s.other[tenant]...)
}

// frozen is a keySet sorted without repeats, for lookups. It shares the
// set's blocks, so it holds until the set is frozen again (which may
// reorder them); keys added to the set meanwhile are not in it.
type frozen struct {
	raw   map[string]*keyBlocks
	other map[string][]string
}

// freeze sorts the set in place and drops repeats (the same text under
// two paths is one job); no copy of the keys is made, so the order they
// were added in is lost. Adding after freeze is allowed: the next freeze
// sorts again.
func (s *keySet) freeze() frozen {
	f := frozen{raw: map[string]*keyBlocks{}, other: map[string][]string{}}
	for t, b := range s.raw {
		b.compact()
		f.raw[t] = &keyBlocks{blocks: slices.Clip(b.blocks), n: b.n, sorted: true}
	}
	for t, ks := range s.other {
		slices.Sort(ks)
		ks = slices.Compact(ks)
		s.other[t] = ks
		f.other[t] = slices.Clip(ks)
	}
	return f
}

func (f frozen) has(tenant, key string) bool {
	if k, ok := rawKey(key); ok {
		b := f.raw[tenant]
		return b != nil && b.has(k)
	}
	_, ok := slices.BinarySearch(f.other[tenant], key)
	return ok
}

// each calls fn with tenant's keys, as hex, in chunks of at most n, leaving
// out those skip reports (nil: none).
func (f frozen) each(tenant string, n int, skip func(string) bool, fn func([]string) error) error {
	chunk := make([]string, 0, n)
	take := func(k string) error {
		if skip != nil && skip(k) {
			return nil
		}
		chunk = append(chunk, k)
		if len(chunk) < n {
			return nil
		}
		err := fn(chunk)
		chunk = chunk[:0]
		return err
	}
	if b := f.raw[tenant]; b != nil {
		for i := 0; i < b.n; i++ {
			if err := take(hex.EncodeToString(b.at(i)[:])); err != nil {
				return err
			}
		}
	}
	for _, k := range f.other[tenant] {
		if err := take(k); err != nil {
			return err
		}
	}
	if len(chunk) == 0 {
		return nil
	}
	return fn(chunk)
}

// tenants lists the tenants f holds keys of, sorted.
// count is the number of tenant's keys.
func (f frozen) count(tenant string) int {
	n := len(f.other[tenant])
	if b := f.raw[tenant]; b != nil {
		n += b.n
	}
	return n
}

func (f frozen) tenants() []string {
	var out []string
	for t, b := range f.raw {
		if b.n > 0 {
			out = append(out, t)
		}
	}
	for t, ks := range f.other {
		if len(ks) > 0 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// empty reports whether f holds no key.
func (f frozen) empty() bool {
	return len(f.tenants()) == 0
}

// settledKeys are the jobs an enqueue found in a state no store operation
// leaves (succeeded, dismissed), by that state.
type settledKeys struct {
	succeeded, dismissed keySet
}

// frozenSettled is a frozen copy of settledKeys, for lookups.
type frozenSettled struct {
	succeeded, dismissed frozen
}

func (s *settledKeys) freeze() frozenSettled {
	return frozenSettled{succeeded: s.succeeded.freeze(), dismissed: s.dismissed.freeze()}
}

// state is the settled state of key, ok false when it is not settled.
func (f frozenSettled) state(tenant, key string) (string, bool) {
	switch {
	case f.succeeded.has(tenant, key):
		return store.StateSucceeded, true
	case f.dismissed.has(tenant, key):
		return store.StateDismissed, true
	}
	return "", false
}
