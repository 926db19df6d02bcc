package rules

import (
	"slices"
	"testing"
)

// newLineKeysHitsRef is newLineKeysHits as it was before it stepped over
// the letters and digits inside a word at once.
func newLineKeysHitsRef(f string) lineKeys {
	var lk lineKeys
	idx := lexKeys()
	lk.lexN = idx.n
	for s := 0; s < len(f); s++ {
		c := f[s]
		if !isAlnumByte[c] {
			lk.other[c/64] |= 1 << (c % 64)
			continue
		}
		if s > 0 && isREWordByte(f[s-1]) {
			continue
		}
		k := 0
		for n := 0; n < 3 && s+n < len(f) && isWordByte(f[s+n]); n++ {
			k = k*keyBase + wordCode(f[s+n])
			lk.keys = append(lk.keys, int32(k))
			if m := idx.slot[k]; m != 0 {
				lk.lex.or(&idx.masks[m-1])
				lk.hits = append(lk.hits, keyHit{pos: int32(s), key: int32(k)})
			}
		}
	}
	return lk
}

// TestLineKeysMatchReference holds newLineKeysHits, appending to shared
// buffers as gatherKeys does, to its old loop on every corpus line, folded
// and not (capitals, "_" and bytes above 0x7f inside words), and on random
// texts: the keys, the hits, the other bytes and the lexicon mask.
func TestLineKeysMatchReference(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "Z", "_", "0", "9", " ", "-", ".", "é", "\xff", "ab", "Tot", "total", "inv", "n_o", "__", "元"}
	lines := equivLines(t, true, 3000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	lines = scannerTexts(lines, parts, 71, 50000)
	var buf []int32
	var hbuf []keyHit
	hits := 0
	for _, f := range lines {
		want := newLineKeysHitsRef(f)
		var got lineKeys
		got, buf, hbuf = newLineKeysHits(f, buf, hbuf, true)
		if !slices.Equal(got.keys, want.keys) || !slices.Equal(got.hits, want.hits) || got.other != want.other ||
			got.lex != want.lex || got.lexN != want.lexN {
			t.Fatalf("newLineKeysHits(%q) = %+v, the old loop %+v", f, got, want)
		}
		hits += len(want.hits)
	}
	if hits < atLeast(100000) {
		t.Fatalf("only %d key hits: the comparison proves little", hits)
	}
}
