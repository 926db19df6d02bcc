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
