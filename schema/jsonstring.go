// JSON strings as encoding/json quotes them, without its reflection: the
// canonical result encoder here and extract/openai's chat request encoder
// write one string at a time into their own buffers, and differ only in
// HTML escaping.

package schema

import "unicode/utf8"

// plain and html say which ASCII bytes go out as they are: everything from
// 0x20 but '"' and '\\'; HTML-safe output also escapes '<', '>' and '&'.
var plain, html = func() (p, h [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		p[b] = b != '"' && b != '\\'
		h[b] = p[b] && b != '<' && b != '>' && b != '&'
	}
	return p, h
}()

// appendJSONQuoted appends s quoted as encoding/json quotes a string: \" and \\, the
// short escapes \b \f \n \r \t, \u00XX (lower-case hex) for the other
// control bytes, \ufffd for each invalid UTF-8 byte, \u2028 and \u2029
// escaped; with htmlSafe (json.Marshal's default) also <, > and & as
// \u003c, \u003e and \u0026 (SetEscapeHTML(false) is htmlSafe false).
func appendJSONQuoted(dst []byte, s string, htmlSafe bool) []byte {
	const hex = "0123456789abcdef"
	safe := &plain
	if htmlSafe {
		safe = &html
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			// Printable ASCII but the quote, the backslash and (HTML-safe)
			// < > &: out as it is.
			x := word(s, i)
			m := notPrintable(x) | anyEqual(x, '"') | anyEqual(x, '\\')
			if htmlSafe {
				m |= anyEqual(x, '<') | anyEqual(x, '>') | anyEqual(x, '&')
			}
			if m == 0 {
				i += 8
				continue
			}
			i += firstHit(m)
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
