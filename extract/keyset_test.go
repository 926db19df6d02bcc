package extract

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// readKeys is every key of tenant's cursor with its tag, in the cursor's order.
func readKeys(t *testing.T, s *keySet, tenant string) []otherKey {
	t.Helper()
	c := s.cursor(tenant)
	var out []otherKey
	for k, tag, ok := c.next(); ok; k, tag, ok = c.next() {
		out = append(out, otherKey{k, tag})
	}
	if c.err != nil {
		t.Fatalf("cursor(%s): %v", tenant, c.err)
	}
	return out
}

func TestKeySet(t *testing.T) {
	t.Parallel()
	a, b, c := strings.Repeat("a", 64), strings.Repeat("0b", 32), strings.Repeat("c", 64)
	for _, chunk := range []int{0, 1, 2, 3} {
		t.Run(fmt.Sprint("chunk ", chunk), func(t *testing.T) {
			t.Parallel()
			s := keySet{chunk: chunk}
			defer s.close()
			s.add("t1", c, tagEnqueued)
			s.add("t1", a, tagReviewed)
			s.add("t1", c, tagSucceeded)
			s.add("t1", b, tagEnqueued)
			s.add("t1", "not-hex", tagEnqueued)
			s.add("t1", a, tagEnqueued)
			s.add("t2", a, tagDismissed)
			if got, want := s.seal(), []string{"t1", "t2"}; !slices.Equal(got, want) {
				t.Errorf("tenants = %v, want %v", got, want)
			}
			want := []otherKey{{b, tagEnqueued}, {a, tagEnqueued}, {c, tagSucceeded}, {"not-hex", tagEnqueued}}
			if got := readKeys(t, &s, "t1"); !slices.Equal(got, want) {
				t.Errorf("t1 = %v, want %v (sorted, each once with its smallest tag, then the keys that are not hex)", got, want)
			}
			if got, want := readKeys(t, &s, "t2"), []otherKey{{a, tagDismissed}}; !slices.Equal(got, want) {
				t.Errorf("t2 = %v, want %v", got, want)
			}
			if got := readKeys(t, &s, "t3"); len(got) != 0 {
				t.Errorf("t3 = %v, want none", got)
			}
			if n := s.count("t1"); n < 4 || n > 6 {
				t.Errorf("count(t1) = %d, want 4 keys (up to 6 with repeats in two runs)", n)
			}
		})
	}
	var none keySet
	if got := none.seal(); len(got) != 0 {
		t.Errorf("empty set has tenants %v", got)
	}
}

// Spilled in chunks of three, a set of many keys, repeated within and
// across chunks, with different tags and several tenants, reads back as
// the same set held in memory would: each key once, in order, with its
// smallest tag; and the membership walk answers as a lookup would.
func TestKeySetSpillMatchesMemory(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	tenants := []string{"t1", "t2", "t3"}
	want := map[string]map[string]byte{}
	s := keySet{chunk: 3}
	defer s.close()
	for range 2000 {
		tenant := tenants[rng.IntN(len(tenants))]
		key := fmt.Sprintf("%064x", rng.IntN(700)) // about one key in three repeats
		tag := byte(rng.IntN(int(tagReviewed) + 1))
		s.add(tenant, key, tag)
		if want[tenant] == nil {
			want[tenant] = map[string]byte{}
		}
		if old, ok := want[tenant][key]; !ok || tag < old {
			want[tenant][key] = tag
		}
		if tk := s.tenants[tenant]; len(tk.mem) >= 3 {
			t.Fatalf("%s holds %d keys in memory, want fewer than the chunk of 3", tenant, len(tk.mem))
		}
	}
	if s.spill == nil {
		t.Fatal("nothing was spilled")
	}
	s.seal()
	for _, tenant := range tenants {
		var w []otherKey
		for _, k := range slices.Sorted(maps.Keys(want[tenant])) {
			w = append(w, otherKey{k, want[tenant][k]})
		}
		if got := readKeys(t, &s, tenant); !slices.Equal(got, w) {
			t.Errorf("%s: read %d keys, want %d; first difference at %d", tenant, len(got), len(w),
				firstDiff(got, w))
		}
		// Every other key, ascending, half of them absent.
		outOfOrder := false
		has := s.cursor(tenant).hasFunc(&outOfOrder)
		for i := 0; i < 1400; i += 2 {
			k := fmt.Sprintf("%064x", i)
			_, in := want[tenant][k]
			if got := has(k); got != in {
				t.Errorf("%s: has(%d) = %v, want %v", tenant, i, got, in)
			}
		}
		if outOfOrder {
			t.Errorf("%s: ascending keys reported out of order", tenant)
		}
	}
}

func firstDiff(a, b []otherKey) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// The membership walk only moves forward: a key asked out of order is
// reported, so a caller never trusts an answer it could have got wrong.
func TestKeyCursorHasOutOfOrder(t *testing.T) {
	t.Parallel()
	var s keySet
	for i := range 10 {
		s.add("t", fmt.Sprintf("%064x", i), tagEnqueued)
	}
	s.seal()
	outOfOrder := false
	has := s.cursor("t").hasFunc(&outOfOrder)
	if !has(fmt.Sprintf("%064x", 5)) || outOfOrder {
		t.Fatalf("has(5) false or out of order")
	}
	has(fmt.Sprintf("%064x", 2))
	if !outOfOrder {
		t.Errorf("has(2) after has(5) not reported out of order")
	}
}

// The spill file has no name from the moment it is created: whatever ends
// the process, nothing is left in the temporary directory. Not parallel:
// it sets TMPDIR.
func TestKeySetSpillFileUnlinked(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be removed: close removes it")
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	s := keySet{chunk: 2}
	for i := range 5 {
		s.add("t", fmt.Sprintf("%064x", i), tagEnqueued)
	}
	if s.spill == nil {
		t.Fatal("nothing was spilled")
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("temporary directory holds %v (err %v), want nothing", ents, err)
	}
	s.seal()
	if got := readKeys(t, &s, "t"); len(got) != 5 {
		t.Errorf("read %d keys, want 5", len(got))
	}
	if err := s.close(); err != nil {
		t.Error(err)
	}
	if c := s.cursor("t"); c.err == nil {
		t.Errorf("cursor over a closed spill file: no error")
	}
}

// A run's keys cost it at most one chunk per tenant in memory, however
// many there are: 200,000 keys (6.6 MB as records) leave the live heap
// within a chunk and the merge's buffers of where it was. Not parallel: it
// reads the heap, which other tests would add to.
func TestKeySetMemoryFlat(t *testing.T) {
	const n = 200_000
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := live()
	var s keySet
	defer s.close()
	for i := range n {
		s.add("t", fmt.Sprintf("%064x", uint64(i)*2654435761%(n/2)), tagEnqueued) // out of order, each twice
	}
	s.seal()
	c := s.cursor("t")
	count := 0
	var last string
	for k, _, ok := c.next(); ok; k, _, ok = c.next() {
		if k <= last {
			t.Fatalf("%.8s after %.8s, want sorted without repeats", k, last)
		}
		last = k
		count++
		if count == n/4 {
			const budget = spillKeys*33 + 1<<20 // a chunk, the merge's buffers, slack
			if grown := int64(live()) - int64(before); grown > budget {
				t.Errorf("heap grew by %d bytes holding %d keys, want at most %d", grown, n, budget)
			}
		}
	}
	if c.err != nil || count != n/2 {
		t.Errorf("read %d keys (err %v), want %d", count, c.err, n/2)
	}
}

// Without a temporary directory to spill to, the chunks stay in memory:
// the run goes on with every key, only larger. Not parallel: it sets
// TMPDIR.
func TestKeySetSpillUnwritable(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()+"/missing")
	s := keySet{chunk: 2}
	for i := range 7 {
		s.add("t", fmt.Sprintf("%064x", 6-i), tagEnqueued)
	}
	if s.spill != nil {
		t.Fatal("spilled into a directory that does not exist")
	}
	s.seal()
	got := readKeys(t, &s, "t")
	if len(got) != 7 || got[0].key != fmt.Sprintf("%064x", 0) || got[6].key != fmt.Sprintf("%064x", 6) {
		t.Errorf("read %v, want the 7 keys in order", got)
	}
}

// A key this runner committed is merged with the run's own tags, in one
// chunk or across spilled ones: enqueued and committed, it is settled
// (the finish counts it unread); committed only, it is another delivery's
// document and is not read at all, nor counted, nor names a tenant.
func TestKeySetMergesCommits(t *testing.T) {
	t.Parallel()
	a, b, c := strings.Repeat("a", 64), strings.Repeat("0b", 32), strings.Repeat("c", 64)
	d, e := strings.Repeat("d", 64), strings.Repeat("e", 64)
	for _, chunk := range []int{0, 1, 2, 3} {
		t.Run(fmt.Sprint("chunk ", chunk), func(t *testing.T) {
			t.Parallel()
			s := keySet{chunk: chunk}
			defer s.close()
			s.add("t1", c, tagEnqueued)
			s.add("t1", d, tagCommitted)
			s.add("t1", a, tagReviewed)
			s.add("t1", b, tagEnqueued)
			s.add("t1", "not-hex", tagEnqueued)
			s.add("t1", c, tagCommitted)
			s.add("t1", a, tagCommitted)
			s.add("t1", e, tagSucceeded)
			s.add("t1", "not-hex", tagCommitted)
			s.add("t1", "other", tagCommitted)
			s.add("t1", e, tagCommitted)
			s.add("t2", a, tagCommitted)
			if got, want := s.seal(), []string{"t1"}; !slices.Equal(got, want) {
				t.Errorf("tenants = %v, want %v (t2 has only a commit)", got, want)
			}
			want := []otherKey{{b, tagEnqueued}, {a, tagReviewed}, {c, tagSucceeded}, {e, tagSucceeded}, {"not-hex", tagSucceeded}}
			if got := readKeys(t, &s, "t1"); !slices.Equal(got, want) {
				t.Errorf("t1 = %v, want %v", got, want)
			}
			if got := readKeys(t, &s, "t2"); len(got) != 0 {
				t.Errorf("t2 = %v, want none", got)
			}
			if n := s.count("t1"); n != 5 {
				t.Errorf("count(t1) = %d, want 5 (the adds that were not commits)", n)
			}
			var outOfOrder bool
			has := s.cursor("t1").hasFunc(&outOfOrder)
			for _, k := range []string{b, c, d} {
				if got, want := has(k), k != d; got != want {
					t.Errorf("has(%.4s…) = %v, want %v", k, got, want)
				}
			}
		})
	}
}
