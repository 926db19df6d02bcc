package rules

import (
	"math/bits"
	"slices"
	"testing"
)

// gatherKeysRefLine is gatherKeys for one line as it was on main at
// fa9613d (newLineKeysHits, then lexAll.findAllIn with its allGroup.ends
// and run), frozen as the reference the document pass is held to.
func gatherKeysRefLine(f string) lineKeys {
	var lk lineKeys
	idx := lexKeys()
	lk.lexN = idx.n
	var buf []int32
	var hbuf []keyHit
	withKeys := keysUnindexed()
	for s := 0; s < len(f); {
		c := f[s]
		if !isAlnumByte[c] {
			lk.other[c/64] |= 1 << (c % 64)
			s++
			continue
		}
		if s == 0 || !isREWordByte(f[s-1]) {
			k := 0
			for n := 0; n < 3 && s+n < len(f) && isWordByte(f[s+n]); n++ {
				k = k*keyBase + wordCode(f[s+n])
				if withKeys {
					buf = append(buf, int32(k))
				}
				if m := idx.slot[k]; m != 0 {
					lk.lex.or(&idx.masks[m-1])
					hbuf = append(hbuf, keyHit{pos: int32(s), key: int32(k)})
				}
			}
		}
		s++
		for s < len(f) && isAlnumByte[f[s]] {
			s++
		}
	}
	lk.keys, lk.hits = buf, hbuf
	x := lexAllIndex()
	var found lexMask
	var out []lexFound
	var ends [lexMaskWords * 64]int32
	var pos, next [16]int
	hits := lk.hits
	for i := 0; i < len(hits); {
		s := int(hits[i].pos)
		var at lexMask
		for ; i < len(hits) && int(hits[i].pos) == s; i++ {
			slot := x.slot[hits[i].key]
			if slot == 0 {
				continue
			}
			gs := x.groups[slot-1]
			for gi := range gs {
				if g := &gs[gi]; hasLitAt(f, s, g.lit) {
					endsRef(g, f[s:], pos[:0], next[:0], &ends, &at)
				}
			}
		}
		for w, m := range at {
			for m != 0 {
				id := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				out = append(out, lexFound{pos: int32(s), end: int32(s) + ends[id] - 1, lex: uint8(id)})
				ends[id] = 0
			}
			found[w] |= at[w]
		}
	}
	lk.setFound(out, found)
	return lk
}

// endsRef is allGroup.ends as it was: every run of the group's rests
// tested against its need in turn.
func endsRef(g *allGroup, t string, pos, next []int, ends *[lexMaskWords * 64]int32, at *lexMask) {
	p := len(g.lit)
	runRef(g, 0, g.nNone, t, p, pos, next, ends, at)
	c, afterSpaces, afterSep := -1, -2, -2
	if p < len(t) {
		c = int(t[p])
	}
	for _, r := range g.runs {
		var ok bool
		switch r.need.skip {
		case needAt:
			ok = c == int(r.need.b)
		case needAfterSpaces:
			if afterSpaces == -2 {
				afterSpaces = byteAfterRun(t, p, stepSpaces)
			}
			ok = afterSpaces == int(r.need.b)
		case needAfterSep:
			if afterSep == -2 {
				afterSep = byteAfterRun(t, p, stepSep)
			}
			ok = afterSep == int(r.need.b)
		case needNotWord:
			ok = c < 0 || !isREWordByte(byte(c))
		}
		if ok {
			runRef(g, int(r.lo), int(r.hi), t, p, pos, next, ends, at)
		}
	}
}

// runRef is allGroup.run as it was.
func runRef(g *allGroup, lo, hi int, t string, p int, pos, next []int, ends *[lexMaskWords * 64]int32, at *lexMask) {
	for i := lo; i < hi; i++ {
		e := g.rests[i].longestAfter(t, p, pos, next)
		if e < 0 {
			continue
		}
		for w, m := range g.lexs[i] {
			at[w] |= m
			for m != 0 {
				id := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				ends[id] = max(ends[id], int32(e)+1)
			}
		}
	}
}

// TestGatherKeysMatchesReference holds the document pass (gatherKeys,
// through newDocument, one document after another from the pool) and the
// single-line one (line.keysOf) to the frozen reference on every line of
// the fixtures, development texts, synthetic invoices and, where present,
// the local dev set: the keys, hits, other bytes, lexicon masks and every
// match.
func TestGatherKeysMatchesReference(t *testing.T) {
	t.Parallel()
	texts := selfCheckTexts(t)
	lines, found := 0, 0
	check := func(what, f string, got *lineKeys) {
		t.Helper()
		want := gatherKeysRefLine(f)
		if !slices.Equal(got.keys, want.keys) || !slices.Equal(got.hits, want.hits) || got.other != want.other ||
			got.lex != want.lex || got.lexN != want.lexN || !slices.Equal(got.found, want.found) ||
			got.foundLex != want.foundLex || got.may != want.may {
			t.Fatalf("%s %q:\n got %+v\nwant %+v", what, f, *got, want)
		}
		found += len(want.found)
	}
	for _, text := range texts {
		d := newDocument(text)
		for _, ln := range d.lines {
			check("gatherKeys", ln.f.s, &ln.lk)
			lines++
		}
		d.release()
	}
	for _, s := range equivLines(t, true, 3000) {
		for _, f := range []string{s, foldString(s)} {
			ln := &line{f: folded{s: f}}
			check("keysOf", f, ln.keysOf())
		}
	}
	t.Logf("%d texts, %d lines, %d matches", len(texts), lines, found)
	if lines < atLeast(6400) || found < atLeast(20000) {
		t.Fatalf("only %d lines, %d matches: the comparison proves little", lines, found)
	}
}

// TestKeyBytesInvertsKeyCode holds keyBytes, which tells the lexicon
// table which groups' literal is the key itself (and so matches untested),
// to keyCode on every prefix of one to three word bytes.
func TestKeyBytesInvertsKeyCode(t *testing.T) {
	t.Parallel()
	const word = "abcdefghijklmnopqrstuvwxyz0123456789_"
	n := 0
	var walk func(p string)
	walk = func(p string) {
		if p != "" {
			if got := keyBytes(keyCode(p)); got != p {
				t.Fatalf("keyBytes(keyCode(%q)) = %q", p, got)
			}
			n++
		}
		if len(p) < 3 {
			for i := range len(word) {
				walk(p + word[i:i+1])
			}
		}
	}
	walk("")
	if n != 37+37*37+37*37*37 {
		t.Fatalf("%d prefixes tried", n)
	}
}
