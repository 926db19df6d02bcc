package rules

import "math/bits"

// Eight bytes at a time: the per-line scanners (numbers, currencies, id
// runs, digit tests) spend most of their time passing over bytes that
// cannot start what they look for, and a synthetic or real document is
// mostly letters and runs of blanks. These helpers test a block of eight
// bytes of a string at once; each scanner still decides byte by byte where
// a block holds a byte it stops at, so its answers are unchanged
// (TestSWARMasks holds the masks to their byte-wise definitions).

const (
	lanes01 = 0x0101010101010101
	lanes7f = 0x7f7f7f7f7f7f7f7f
	lanes80 = 0x8080808080808080
)

// load8 is s[i:i+8] as a little-endian word (the compiler makes one load
// of it); the caller checks i+8 <= len(s).
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// inRange7 sets the high bit of each lane of x whose byte is an ASCII byte
// in [lo, hi] (hi at most 0x7f): with the high bits cleared no lane
// carries into the next.
func inRange7(x uint64, lo, hi byte) uint64 {
	y := x & lanes7f
	ge := y + lanes01*uint64(0x80-lo)
	gt := y + lanes01*uint64(0x7f-hi)
	return ge &^ gt &^ x & lanes80
}

// digitLanes sets the high bit of each lane of x holding an ASCII digit.
func digitLanes(x uint64) uint64 { return inRange7(x, '0', '9') }

// upperLanes sets the high bit of each lane of x holding A-Z.
func upperLanes(x uint64) uint64 { return inRange7(x, 'A', 'Z') }

// letterLanes sets the high bit of each lane of x holding an ASCII letter.
func letterLanes(x uint64) uint64 { return inRange7(x|lanes01*0x20, 'a', 'z') &^ x }

// byteLanes sets the high bit of each lane of x equal to c, exactly (no
// borrow from a lower lane).
func byteLanes(x uint64, c byte) uint64 {
	t := x ^ lanes01*uint64(c)
	return ^(((t & lanes7f) + lanes7f) | t) & lanes80
}

// firstLane is the index of the lowest lane whose high bit m sets; m is
// not zero.
func firstLane(m uint64) int { return bits.TrailingZeros64(m) >> 3 }

// nextDigit is the index of the first ASCII digit of s at or after i, or
// len(s).
func nextDigit(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := digitLanes(load8(s, i)); m != 0 {
			return i + firstLane(m)
		}
	}
	for i < len(s) && (s[i] < '0' || s[i] > '9') {
		i++
	}
	return i
}

// nextDigitOrRune is the index of the first byte of s at or after i that
// is an ASCII digit or not ASCII, or len(s).
func nextDigitOrRune(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := load8(s, i)
		if m := digitLanes(x) | x&lanes80; m != 0 {
			return i + firstLane(m)
		}
	}
	for i < len(s) && s[i] < 0x80 && (s[i] < '0' || s[i] > '9') {
		i++
	}
	return i
}

// countDigits is the number of ASCII digits in s.
func countDigits(s string) int {
	n, i := 0, 0
	for ; i+8 <= len(s); i += 8 {
		n += bits.OnesCount64(digitLanes(load8(s, i)))
	}
	for ; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}
