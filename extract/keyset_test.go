package extract

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestKeySet(t *testing.T) {
	t.Parallel()
	a, b, c := strings.Repeat("a", 64), strings.Repeat("0b", 32), strings.Repeat("c", 64)
	var s keySet
	for _, k := range []string{c, a, c, b, "not-hex"} {
		s.add("t1", k)
	}
	s.add("t2", a)
	if got, want := s.keys("t1"), []string{c, a, c, b, "not-hex"}; !slices.Equal(got, want) {
		t.Errorf("keys = %v, want %v (order added, repeats kept)", got, want)
	}
	if got := s.len(); got != 6 {
		t.Errorf("len = %d, want 6", got)
	}
	f := s.freeze()
	var chunks [][]string
	if err := f.each("t1", 2, nil, func(ks []string) error { chunks = append(chunks, slices.Clone(ks)); return nil }); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{b, a}, {c, "not-hex"}}
	if !slices.EqualFunc(chunks, want, slices.Equal) {
		t.Errorf("each = %v, want %v (sorted, repeats dropped, in chunks)", chunks, want)
	}
	tests := []struct {
		tenant, key string
		want        bool
	}{{"t1", a, true}, {"t1", c, true}, {"t1", "not-hex", true}, {"t2", a, true}, {"t2", b, false}, {"t3", a, false},
		{"t1", strings.Repeat("d", 64), false}}
	for _, tc := range tests {
		if got := f.has(tc.tenant, tc.key); got != tc.want {
			t.Errorf("has(%s, %.8s) = %v, want %v", tc.tenant, tc.key, got, tc.want)
		}
	}
	var skipped []string
	err := f.each("t1", 10, func(k string) bool { return k == a }, func(ks []string) error {
		skipped = append(skipped, ks...)
		return nil
	})
	if want := []string{b, c, "not-hex"}; err != nil || !slices.Equal(skipped, want) {
		t.Errorf("each skipping a = %v (err %v), want %v", skipped, err, want)
	}
	var none keySet
	if !none.freeze().empty() {
		t.Errorf("empty set not empty")
	}
}

// allocated is the bytes the heap handed out while fn ran.
func allocated(t *testing.T, fn func()) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A run holds its keys once, 32 bytes each: adding them allocates about
// that and no more (an appended slice allocates several times it over its
// growths and keeps up to twice it), and the finish's freeze sorts them
// where they are, allocating no copy. Not parallel: it counts the heap's
// allocations, which other tests would add to.
func TestKeySetHoldsKeysOnce(t *testing.T) {
	const n = 64 * keyBlock // 2 MiB of keys
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%064x", uint64(i)*2654435761%(n/2)) // out of order, each twice
	}
	var s keySet
	added := allocated(t, func() {
		for _, k := range keys {
			s.add("t", k)
		}
	})
	const slack = 64 << 10 // the map, the block pointers, whatever else ran meanwhile
	if added > 32*n+slack {
		t.Errorf("adding %d keys allocated %d bytes, want at most %d (32 each)", n, added, 32*n+slack)
	}
	var f frozen
	froze := allocated(t, func() { f = s.freeze() })
	if froze > slack {
		t.Errorf("freeze allocated %d bytes, want no copy of the %d bytes of keys", froze, 32*n)
	}
	if !f.has("t", keys[0]) || !f.has("t", keys[n-1]) {
		t.Errorf("frozen set lost keys")
	}
	var prev string
	count := 0
	err := f.each("t", 500, nil, func(ks []string) error {
		if len(ks) > 500 {
			t.Errorf("chunk of %d keys, want at most 500", len(ks))
		}
		for _, k := range ks {
			if k <= prev {
				t.Fatalf("each: %.8s after %.8s, want sorted without repeats", k, prev)
			}
			prev = k
			count++
		}
		return nil
	})
	if err != nil || count != n/2 {
		t.Errorf("each gave %d keys (err %v), want %d", count, err, n/2)
	}
}
