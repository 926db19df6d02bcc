package openai

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fastCompletion reads a chat completion in the shape every server sends
// for an answer (an object with a non-empty choices array of objects,
// every member we read of its expected kind) in one pass over the body,
// without reflection. json.Unmarshal into wireCompletion was 40 % of the
// adapter's own CPU in a 10k-document run at --concurrency 256 against
// bench/fakellm (0.33 of 0.78 s); this reads the fixtures' answers in a
// quarter of its time with a third of its allocations
// (BenchmarkDecodeCompletion).
//
// ok is false for anything else, and then decodeCompletion reads the body
// as before; so ok must only be true where json.Unmarshal into
// wireCompletion succeeds and yields the same fields
// (TestFastCompletionMatchesUnmarshal, FuzzFastCompletion). Where it is
// unsure (a duplicate or case-folded member name, a string with a
// surrogate escape or invalid UTF-8 aside, a number with a fraction, deep
// nesting) it says no rather than reproduce encoding/json's rule.
func fastCompletion(body []byte) (cc *completion, ok bool) {
	d := fastDecoder{b: body}
	cc = &completion{}
	var seen uint8
	d.ws()
	if !d.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			cc.Model, ok = d.str()
			return ok && first(&seen, 1)
		case "choices":
			cc.Choices, ok = d.choices()
			return ok && len(cc.Choices) > 0 && first(&seen, 2)
		case "usage":
			return d.usage(cc) && first(&seen, 4)
		}
		return d.other(key, "model", "choices", "usage")
	}) {
		return nil, false
	}
	d.ws()
	// Choices is required: without it json.Unmarshal left it empty and
	// the lenient reading took over.
	return cc, d.i == len(d.b) && len(cc.Choices) > 0
}

// maxFastDepth bounds the nesting fastDecoder skips over; deeper bodies
// (no server sends them) go to encoding/json.
const maxFastDepth = 64

// fastDecoder walks one JSON value in b from position i. Every method
// returns false on anything it does not accept.
type fastDecoder struct {
	b     []byte
	i     int
	depth int
}

// first marks bit in seen and reports whether it was clear: a member we
// read must come once. json.Unmarshal lets a repeated member's value win
// but decodes a repeated choices array into the first one's elements,
// keeping the fields the second leaves out; rather than copy that rule,
// any repeat goes to it.
func first(seen *uint8, bit uint8) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// ws skips the whitespace JSON allows.
func (d *fastDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// object reads an object, calling member with each member name, the
// decoder positioned at the member's value; member must consume the
// value.
func (d *fastDecoder) object(member func(key []byte) bool) bool {
	return d.list('{', '}', func() bool {
		key, ok := d.key()
		if !ok {
			return false
		}
		d.ws()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return false
		}
		d.i++
		d.ws()
		return member(key)
	})
}

// list reads a container from open to close, calling item at each item
// (an object's member or an array's element) with the separators, the
// depth bound and the empty container handled here, once for both.
func (d *fastDecoder) list(open, close byte, item func() bool) bool {
	if d.i >= len(d.b) || d.b[d.i] != open {
		return false
	}
	d.i++
	d.depth++
	if d.depth > maxFastDepth {
		return false
	}
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == close {
		d.i++
		d.depth--
		return true
	}
	for {
		if !item() {
			return false
		}
		d.ws()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.ws()
		case close:
			d.i++
			d.depth--
			return true
		default:
			return false
		}
	}
}

// key reads a member name: printable ASCII without escapes only, so that
// comparing bytes is how encoding/json matches it.
func (d *fastDecoder) key() ([]byte, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false
	}
	start := d.i + 1
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			return d.b[start:j], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

// other skips the value of a member that is none of names. A name that
// equals one of them but for case is refused: json.Unmarshal would read
// it into that field.
func (d *fastDecoder) other(key []byte, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(string(key), n) {
			return false
		}
	}
	return d.skip()
}

// str reads a string or null ("") as json.Unmarshal reads it into a
// string field.
func (d *fastDecoder) str() (string, bool) {
	if d.null() {
		return "", true
	}
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	start := d.i
	plain := true
	for j := start + 1; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			if plain {
				return string(d.b[start+1 : j]), true
			}
			return unquote(d.b[start : j+1])
		case c == '\\':
			plain = false
			j++ // the escaped byte, checked by unquote
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	return "", false
}

// unquote decodes a quoted JSON string token with escapes or non-ASCII
// bytes. A surrogate escape or invalid UTF-8, which encoding/json replaces
// by rules of its own, is handed to it whole.
func unquote(tok []byte) (string, bool) {
	s := tok[1 : len(tok)-1]
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					return "", false
				}
				if r >= 0xD800 && r < 0xE000 {
					return unquoteSlow(tok)
				}
				b.WriteRune(r)
				i += 4
			default:
				return "", false
			}
			i += 2
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				return unquoteSlow(tok)
			}
			b.Write(s[i : i+size])
			i += size
		}
	}
	return b.String(), true
}

func unquoteSlow(tok []byte) (string, bool) {
	var s string
	if json.Unmarshal(tok, &s) != nil {
		return "", false
	}
	return s, true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// null consumes a null literal if one is next.
func (d *fastDecoder) null() bool {
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// int reads an integer or null (0) as json.Unmarshal reads it into an
// int64: no fraction, no exponent, in range.
func (d *fastDecoder) int() (int64, bool) {
	if d.null() {
		return 0, true
	}
	start := d.i
	if !d.number() {
		return 0, false
	}
	n, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 64)
	return n, err == nil
}

// number skips a number in JSON's grammar.
func (d *fastDecoder) number() bool {
	b, i := d.b, d.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	d.i = i
	return true
}

// skip passes over any valid JSON value; json.Unmarshal checks the whole
// body's syntax before it reads a field, so an unread member must be valid
// too.
func (d *fastDecoder) skip() bool {
	if d.i >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(func(key []byte) bool { return d.skip() })
	case c == '[':
		return d.array(d.skip)
	case c == '"':
		return d.skipString()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.null()
	}
	return d.number()
}

func (d *fastDecoder) literal(lit string) bool {
	if len(d.b)-d.i >= len(lit) && string(d.b[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// skipString passes over a string, checking its escapes.
func (d *fastDecoder) skipString() bool {
	for j := d.i + 1; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			return true
		case c == '\\':
			if j+1 >= len(d.b) {
				return false
			}
			switch d.b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if _, ok := hex4(d.b[j+2:]); !ok {
					return false
				}
				j += 5
			default:
				return false
			}
		case c < 0x20:
			return false
		}
	}
	return false
}

// array reads an array, calling elem at each element.
func (d *fastDecoder) array(elem func() bool) bool {
	return d.list('[', ']', elem)
}

// choices reads the choices array: objects only (a null or another kind
// goes to encoding/json).
func (d *fastDecoder) choices() ([]choice, bool) {
	list := make([]choice, 0, 1)
	ok := d.array(func() bool {
		var c choice
		var seen uint8
		ok := d.object(func(key []byte) bool {
			switch string(key) {
			case "finish_reason":
				var ok bool
				c.FinishReason, ok = d.str()
				return ok && first(&seen, 1)
			case "message":
				return d.message(&c) && first(&seen, 2)
			}
			return d.other(key, "finish_reason", "message")
		})
		list = append(list, c)
		return ok
	})
	return list, ok
}

// message reads a choice's message object.
func (d *fastDecoder) message(c *choice) bool {
	var seen uint8
	return d.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "content":
			c.Content, ok = d.str()
			return ok && first(&seen, 1)
		case "refusal":
			c.Refusal, ok = d.str()
			return ok && first(&seen, 2)
		}
		return d.other(key, "content", "refusal")
	})
}

// usage reads the usage object or null.
func (d *fastDecoder) usage(cc *completion) bool {
	if d.null() {
		return true
	}
	var seen uint8
	return d.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "prompt_tokens":
			cc.Usage.PromptTokens, ok = d.int()
			return ok && first(&seen, 1)
		case "completion_tokens":
			cc.Usage.CompletionTokens, ok = d.int()
			return ok && first(&seen, 2)
		}
		return d.other(key, "prompt_tokens", "completion_tokens")
	})
}
