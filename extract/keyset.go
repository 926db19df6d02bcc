package extract

import (
	"bytes"
	"encoding/hex"
	"slices"

	"github.com/invx/invx/store"
)

// keySet holds the job keys a run touched, per tenant, as 32 raw bytes
// each rather than 64-byte hex strings in a map: a run's finish must not
// grow with the number of documents by more than it has to (100k
// documents: 3.2 MB). A key that is not a hex sha256 (never, from JobKey)
// is kept as text beside them.
type keySet struct {
	raw   map[string][][32]byte // tenant -> keys, in the order added
	other map[string][]string
}

func (s *keySet) add(tenant, key string) {
	var k [32]byte
	if len(key) == 64 {
		if _, err := hex.Decode(k[:], []byte(key)); err == nil {
			if s.raw == nil {
				s.raw = map[string][][32]byte{}
			}
			s.raw[tenant] = append(s.raw[tenant], k)
			return
		}
	}
	if s.other == nil {
		s.other = map[string][]string{}
	}
	s.other[tenant] = append(s.other[tenant], key)
}

// len is the number of keys added, repeats included.
func (s *keySet) len() int {
	n := 0
	for _, ks := range s.raw {
		n += len(ks)
	}
	for _, ks := range s.other {
		n += len(ks)
	}
	return n
}

// keys returns tenant's keys in the order they were added, as hex.
func (s *keySet) keys(tenant string) []string {
	out := make([]string, 0, len(s.raw[tenant])+len(s.other[tenant]))
	for _, k := range s.raw[tenant] {
		out = append(out, hex.EncodeToString(k[:]))
	}
	return append(out, s.other[tenant]...)
}

// frozen is a sorted copy of a keySet without repeats, for lookups.
type frozen struct {
	raw   map[string][][32]byte
	other map[string][]string
}

// freeze sorts a copy of the keys and drops repeats (the same text under
// two paths is one job).
func (s *keySet) freeze() frozen {
	f := frozen{raw: map[string][][32]byte{}, other: map[string][]string{}}
	for t, ks := range s.raw {
		c := slices.Clone(ks)
		slices.SortFunc(c, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
		f.raw[t] = slices.Compact(c)
	}
	for t, ks := range s.other {
		c := slices.Clone(ks)
		slices.Sort(c)
		f.other[t] = slices.Compact(c)
	}
	return f
}

// merge adds o's keys to f (both sorted), keeping f sorted and unique.
func (f frozen) merge(o frozen) frozen {
	for t, ks := range o.raw {
		c := append(slices.Clone(f.raw[t]), ks...)
		slices.SortFunc(c, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
		f.raw[t] = slices.Compact(c)
	}
	for t, ks := range o.other {
		c := append(slices.Clone(f.other[t]), ks...)
		slices.Sort(c)
		f.other[t] = slices.Compact(c)
	}
	return f
}

func (f frozen) has(tenant, key string) bool {
	var k [32]byte
	if len(key) == 64 {
		if _, err := hex.Decode(k[:], []byte(key)); err == nil {
			_, ok := slices.BinarySearchFunc(f.raw[tenant], k, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
			return ok
		}
	}
	_, ok := slices.BinarySearch(f.other[tenant], key)
	return ok
}

// each calls fn with tenant's keys, as hex, in chunks of at most n.
func (f frozen) each(tenant string, n int, fn func([]string) error) error {
	chunk := make([]string, 0, n)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		err := fn(chunk)
		chunk = chunk[:0]
		return err
	}
	for _, k := range f.raw[tenant] {
		chunk = append(chunk, hex.EncodeToString(k[:]))
		if len(chunk) == n {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	for _, k := range f.other[tenant] {
		chunk = append(chunk, k)
		if len(chunk) == n {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// tenants lists the tenants f holds keys of, sorted.
func (f frozen) tenants() []string {
	var out []string
	for t, ks := range f.raw {
		if len(ks) > 0 {
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
	for _, ks := range f.raw {
		if len(ks) > 0 {
			return false
		}
	}
	for _, ks := range f.other {
		if len(ks) > 0 {
			return false
		}
	}
	return true
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
