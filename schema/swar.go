package schema

import "math/bits"

// Eight bytes at a time: the byte loops over strings (well-formedness, the
// display rules, quoting) spend nearly all their time on runs of plain
// ASCII, which these tests let them skip a word at a time. Each mask is
// non-zero exactly when some byte of x has the property (the classic
// "has zero byte" bit tricks; exact as an any-byte test, the set bits
// beyond the first hit mean nothing).
const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
)

// word reads the eight bytes of s at i, little-endian, which the caller
// keeps in range; the compiler merges the loads into one.
func word(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// wordBytes is word for a byte slice.
func wordBytes(b []byte, i int) uint64 {
	b = b[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// anyLess: some byte of x is below n (n at most 0x80).
func anyLess(x uint64, n byte) uint64 {
	return (x - swarOnes*uint64(n)) &^ x & swarHigh
}

// anyEqual: some byte of x is c.
func anyEqual(x uint64, c byte) uint64 {
	y := x ^ swarOnes*uint64(c)
	return (y - swarOnes) &^ y & swarHigh
}

// notPrintable: some byte of x is not printable ASCII (0x20 to 0x7e).
func notPrintable(x uint64) uint64 {
	return anyLess(x, 0x20) | x&swarHigh | anyEqual(x, 0x7f)
}

// firstHit is the index of the first byte a non-zero mask marks: below the
// first byte that has the property no borrow arises, so the lowest set bit
// is exact.
func firstHit(m uint64) int {
	return bits.TrailingZeros64(m) >> 3
}
