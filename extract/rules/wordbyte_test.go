package rules

import (
	"regexp"
	"testing"
)

// TestWordBytesMatchRegexp holds the word-byte tables to regexp's \w on
// every byte: isREWordByte is \w on any ASCII byte and false on every
// byte of a multi-byte rune; isWordByte is \w less the capitals.
func TestWordBytesMatchRegexp(t *testing.T) {
	t.Parallel()
	w := regexp.MustCompile(`^\w$`)
	for c := range 256 {
		b := byte(c)
		want := c < 0x80 && w.MatchString(string([]byte{b}))
		if got := isREWordByte(b); got != want {
			t.Errorf("isREWordByte(%q) = %v, want %v", b, got, want)
		}
		if got, want := isWordByte(b), want && !(b >= 'A' && b <= 'Z'); got != want {
			t.Errorf("isWordByte(%q) = %v, want %v", b, got, want)
		}
	}
}
