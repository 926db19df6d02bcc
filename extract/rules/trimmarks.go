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

// trimLeftBlanks is strings.TrimLeft(s, " \u00a0\u202f") without its
// rune-by-rune path for a cutset of several-byte runes: appendNumbers asks
// it after every number.
func trimLeftBlanks(s string) string {
	for {
		switch {
		case strings.HasPrefix(s, " "):
			s = s[1:]
		case strings.HasPrefix(s, "\u00a0"):
			s = s[len("\u00a0"):]
		case strings.HasPrefix(s, "\u202f"):
			s = s[len("\u202f"):]
		default:
			return s
		}
	}
}
