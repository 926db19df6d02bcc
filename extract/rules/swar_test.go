package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// laneRef sets the high bit of each lane of x whose byte in satisfies.
func laneRef(x uint64, in func(byte) bool) uint64 {
	var m uint64
	for k := range 8 {
		if in(byte(x >> (8 * k))) {
			m |= 0x80 << (8 * k)
		}
	}
	return m
}

// swarWords are random words, words of one repeated byte for every byte
// value, and words mixing each byte with its neighbours (the lanes where a
// carry or borrow would leak).
func swarWords() []uint64 {
	rng := rand.New(rand.NewPCG(11, 12))
	var ws []uint64
	for range 200000 {
		ws = append(ws, rng.Uint64())
	}
	for c := range 256 {
		ws = append(ws, lanes01*uint64(c))
		for d := range 256 {
			ws = append(ws, uint64(c)|uint64(d)<<8|uint64(c)<<16|0xff<<24|uint64(d)<<32|0x00<<40|uint64(c)<<48|uint64(d)<<56)
		}
	}
	return ws
}

// TestSWARMasks holds each lane mask to its byte-wise definition on every
// byte value in every lane.
func TestSWARMasks(t *testing.T) {
	t.Parallel()
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isDig := func(c byte) bool { return c >= '0' && c <= '9' }
	for _, x := range swarWords() {
		checks := []struct {
			name      string
			got, want uint64
		}{
			{"digitLanes", digitLanes(x), laneRef(x, isDig)},
			{"upperLanes", upperLanes(x), laneRef(x, isUpper)},
			{"letterLanes", letterLanes(x), laneRef(x, isASCIILetter)},
			{"byteLanes $", byteLanes(x, '$'), laneRef(x, func(c byte) bool { return c == '$' })},
			{"byteLanes 0", byteLanes(x, 0), laneRef(x, func(c byte) bool { return c == 0 })},
			{"byteLanes ff", byteLanes(x, 0xff), laneRef(x, func(c byte) bool { return c == 0xff })},
			{"inRange7 0-7f", inRange7(x, 0, 0x7f), laneRef(x, func(c byte) bool { return c < 0x80 })},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Fatalf("%s(%#016x) = %#016x, want %#016x", c.name, x, c.got, c.want)
			}
		}
	}
}

// TestSWARScans holds nextDigit, nextDigitOrRune and countDigits to byte
// loops from every start of random strings long enough for several blocks.
func TestSWARScans(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "Z", " ", "        ", "0", "9", "/", ":", "é", "€", "\xff", "abcdefghij", "    .   "}
	rng := rand.New(rand.NewPCG(13, 14))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		want := 0
		for i := range len(s) {
			if isDigit(s[i]) {
				want++
			}
		}
		if got := countDigits(s); got != want {
			t.Fatalf("countDigits(%q) = %d, want %d", s, got, want)
		}
		for i := 0; i <= len(s); i++ {
			d, r := i, i
			for d < len(s) && !isDigit(s[d]) {
				d++
			}
			for r < len(s) && !isDigit(s[r]) && s[r] < 0x80 {
				r++
			}
			if got := nextDigit(s, i); got != d {
				t.Fatalf("nextDigit(%q, %d) = %d, want %d", s, i, got, d)
			}
			if got := nextDigitOrRune(s, i); got != r {
				t.Fatalf("nextDigitOrRune(%q, %d) = %d, want %d", s, i, got, r)
			}
		}
	}
}

// TestCurStartsNextStart holds the currency scan's skip to its table, none,
// from every start of random strings of symbol bytes, letters and the rest.
func TestCurStartsNextStart(t *testing.T) {
	t.Parallel()
	starts := symbolsByFirst()
	if len(starts.stops) == 0 {
		t.Fatal("no symbol opens with an ASCII byte that is no letter: the test would prove little")
	}
	parts := []string{"$", "a", "Z", " ", "        ", "0", "12.50", "/", "(", "é", "€", "£", "\xff", "........", "  ,  -  "}
	rng := rand.New(rand.NewPCG(15, 16))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		for i := 0; i <= len(s); i++ {
			want := i
			for want < len(s) && starts.none[s[want]] {
				want++
			}
			if got := starts.nextStart(s, i); got != want {
				t.Fatalf("nextStart(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}
