package rules

import "strings"

// trimLeftMarks is strings.TrimLeft(s, ascii+"•") for a cutset of ASCII
// bytes and the bullet: with a multi-byte rune in its cutset TrimLeft
// decodes every rune and searches the set for it, and the buyer and title
// searches trim every cell so.
func trimLeftMarks(s, ascii string) string {
	for s != "" {
		if c := s[0]; c < 0x80 {
			if strings.IndexByte(ascii, c) < 0 {
				return s
			}
			s = s[1:]
			continue
		}
		if !strings.HasPrefix(s, "•") {
			return s
		}
		s = s[len("•"):]
	}
	return s
}
