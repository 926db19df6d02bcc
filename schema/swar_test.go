package schema

import (
	"math/rand/v2"
	"testing"
)

// TestSWARMatchesBytes holds the word tests to a byte-at-a-time reading on
// random words biased towards the bytes they look for, including the first
// byte they report.
func TestSWARMatchesBytes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	special := []byte{0, 0x1f, 0x20, 0x21, '"', '\\', '<', '>', '&', 0x7e, 0x7f, 0x80, 0x81, 0xff, '\n', '\t'}
	for range 200000 {
		var b [8]byte
		for k := range b {
			if r.IntN(4) == 0 {
				b[k] = special[r.IntN(len(special))]
			} else {
				b[k] = byte(r.IntN(256))
			}
		}
		x := wordBytes(b[:], 0)
		if word(string(b[:]), 0) != x {
			t.Fatalf("word(%q) != wordBytes", b)
		}
		for _, c := range []struct {
			name string
			m    uint64
			is   func(c byte) bool
		}{
			{"anyLess 0x20", anyLess(x, 0x20), func(c byte) bool { return c < 0x20 }},
			{"anyLess 0x80", anyLess(x, 0x80), func(c byte) bool { return c < 0x80 }},
			{"anyEqual quote", anyEqual(x, '"'), func(c byte) bool { return c == '"' }},
			{"anyEqual 0x7f", anyEqual(x, 0x7f), func(c byte) bool { return c == 0x7f }},
			{"notPrintable", notPrintable(x), func(c byte) bool { return c < 0x20 || c >= 0x7f }},
		} {
			first := -1
			for k := range b {
				if c.is(b[k]) {
					first = k
					break
				}
			}
			if (c.m != 0) != (first >= 0) || first >= 0 && firstHit(c.m) != first {
				t.Fatalf("%s(%q) = %#x, first byte %d", c.name, b, c.m, first)
			}
		}
	}
}

// TestInternedToken holds the by-length lookup to the map it is built from.
func TestInternedToken(t *testing.T) {
	t.Parallel()
	for name, want := range internedTokens() {
		if got, ok := internedToken([]byte(name)); !ok || got != want {
			t.Fatalf("internedToken(%q) = %v, %v", name, got, ok)
		}
		for _, other := range []string{name + "x", name[1:], "X" + name[1:], name[:len(name)-1] + "_"} {
			_, inMap := internedTokens()[other]
			if _, ok := internedToken([]byte(other)); ok != inMap {
				t.Fatalf("internedToken(%q) found %v, map %v", other, ok, inMap)
			}
		}
	}
}

// TestActionIDsMatchMap holds the action id set to a map past its inline
// part: the first repeat of each id reports the item it first came from.
func TestActionIDsMatchMap(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		var a actionIDs
		m := map[string]int{}
		for item := range r.IntN(3 * smallIDs) {
			id := string(rune('a' + r.IntN(2*smallIDs)))
			got, gotOK := a.find(id)
			want, wantOK := m[id]
			if got != want || gotOK != wantOK {
				t.Fatalf("find(%q) = %d, %v; map %d, %v", id, got, gotOK, want, wantOK)
			}
			if !gotOK {
				a.add(id, item)
				m[id] = item
			}
		}
	}
}
