package rules

import (
	"math/rand"
	"testing"
)

// TestKeySetBlocksMatchAMap holds the blocked key set to a plain set of
// codes: every code of one to three word bytes is asked of sets holding
// none, one, a block's worth and many keys, spread over the blocks.
func TestKeySetBlocksMatchAMap(t *testing.T) {
	const word = "abcdefghijklmnopqrstuvwxyz0123456789_"
	r := rand.New(rand.NewSource(17))
	var all []string
	for _, a := range word {
		all = append(all, string(a))
		for _, b := range word {
			all = append(all, string(a)+string(b))
			for _, c := range word {
				all = append(all, string(a)+string(b)+string(c))
			}
		}
	}
	for _, n := range []int{0, 1, 2, 40, 600, 5000} {
		ks := newKeySet()
		want := map[int]bool{}
		for range n {
			p := all[r.Intn(len(all))]
			ks.add(p)
			want[keyCode(p)] = true
		}
		for _, p := range all {
			if k := keyCode(p); ks.has(k) != want[k] {
				t.Fatalf("%d keys: has(%q) = %v, want %v", n, p, ks.has(k), want[k])
			}
		}
		if len(ks.words)/8 > keyBlocks+1 {
			t.Fatalf("%d keys: %d blocks for %d block slots", n, len(ks.words)/8, keyBlocks)
		}
	}
}
