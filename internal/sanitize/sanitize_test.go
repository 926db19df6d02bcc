package sanitize

import "testing"

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "bad gateway", 100, "bad gateway"},
		{"controls and blanks", "a\r\n\tb\x00c\x7fd\u0085e  f", 100, "a b c d e f"},
		{"invalid UTF-8", "a\xffb", 100, "a\uFFFDb"},
		{"cut on a rune boundary", "ab€cd", 6, "ab…"},
		{"cut exactly", "abcdef", 6, "abcdef"},
		{"cut with ellipsis", "abcdefgh", 6, "abc…"},
		{"trimmed", "  x  ", 100, "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Line(tc.in, tc.max)
			if got != tc.want {
				t.Errorf("Line(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
			if len(got) > max(tc.max, len(tc.want)) {
				t.Errorf("Line(%q, %d) is %d bytes", tc.in, tc.max, len(got))
			}
		})
	}
}
