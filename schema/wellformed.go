package schema

// wellFormed reports whether b is exactly what json.Valid accepts: one
// JSON value surrounded by optional white space, nested at most 10000
// deep, strings free of raw control bytes. It reads b once, with no state
// machine per byte, because json.Valid was a sixth of a validation.
// TestValidateEquivalent and FuzzValidateEquivalent hold it to json.Valid
// through checkSyntax; FuzzWellFormed directly.
func wellFormed(b []byte) bool {
	ok, _ := wellFormedLone(b)
	return ok
}

// wellFormedLone is wellFormed that also returns what loneSurrogate would
// for a well-formed b (the offset of the first lone surrogate escape, or
// -1), found in the same pass.
func wellFormedLone(b []byte) (ok bool, lone int) {
	p := jsonParser{b: b, lone: -1}
	p.space()
	if !p.value(0) {
		return false, -1
	}
	p.space()
	if p.i != len(b) {
		return false, -1
	}
	return true, p.lone
}

// maxJSONDepth is encoding/json's nesting limit (maxNestingDepth).
const maxJSONDepth = 10000

type jsonParser struct {
	b []byte
	i int
	// lone is the offset of the first \u escape of a UTF-16 surrogate not
	// paired high then low, -1 while there is none.
	lone int
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// value reads one value at nesting depth (the containers it is inside).
func (p *jsonParser) value(depth int) bool {
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; c {
	case '{':
		return p.object(depth + 1)
	case '[':
		return p.array(depth + 1)
	case '"':
		return p.str()
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	default:
		return p.number()
	}
}

func (p *jsonParser) literal(word string) bool {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return true
}

func (p *jsonParser) object(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	p.i++ // {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return true
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' || !p.str() {
			return false
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.space()
		if !p.value(depth) {
			return false
		}
		if done, ok := p.separator('}'); done || !ok {
			return ok
		}
	}
}

func (p *jsonParser) array(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	p.i++ // [
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return true
	}
	for {
		if !p.value(depth) {
			return false
		}
		if done, ok := p.separator(']'); done || !ok {
			return ok
		}
	}
}

// str reads a string whose opening quote is at p.i.
func (p *jsonParser) str() bool {
	b := p.b
	for i := p.i + 1; i < len(b); i++ {
		// Runs of bytes that are neither a quote, a backslash nor a
		// control byte need no look one by one.
		for i+8 <= len(b) {
			x := wordBytes(b, i)
			if m := anyLess(x, 0x20) | anyEqual(x, '"') | anyEqual(x, '\\'); m != 0 {
				i += firstHit(m)
				break
			}
			i += 8
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			p.i = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			i++
			if i >= len(b) {
				return false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return false
				}
				if r := escapedUnit(b, i-1); r >= 0xd800 && r <= 0xdfff {
					// As loneSurrogate: a high one followed by a low one
					// is a pair, whose second escape the loop reads next.
					next := escapedUnit(b, i+5)
					if r <= 0xdbff && next >= 0xdc00 && next <= 0xdfff {
						i += 6
					} else if p.lone < 0 {
						p.lone = i - 1
					}
				}
				i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *jsonParser) number() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return false
		}
		i = j
	}
	p.i = i
	return true
}

// digits returns the offset of the first byte at or after i that is not a
// decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// separator reads what follows a member or an element: a comma (more
// follow: done false) or the closing byte (done true); anything else is
// malformed (ok false).
func (p *jsonParser) separator(closing byte) (done, ok bool) {
	p.space()
	if p.i >= len(p.b) {
		return false, false
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		p.space()
		return false, true
	case closing:
		p.i++
		return true, true
	}
	return false, false
}
