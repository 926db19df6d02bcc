package replay

import (
	"strconv"
	"unicode/utf8"
)

// decodeRecordFast decodes the records a Recorder writes (every key spelt
// as stored, at most once; plain integers; error null) in one pass over
// the bytes, unescaping the output once. It reports false for anything
// else, and decodeRecord then takes encoding/json's strict path, whose
// errors name the problem: the fast path never decides a record is
// corrupt. For a record it does decode, the result is the one the strict
// path gives (TestDecodeRecordFastMatches, FuzzDecodeRecord). It exists
// because decoding was most of a replayed call: encoding/json read the
// output three times (scan, copy, unquote).
func decodeRecordFast(b []byte) (*record, bool) {
	p := recParser{b: b}
	p.space()
	if !p.byte('{') {
		return nil, false
	}
	var rec record
	var seen uint16
	p.space()
	if p.peek() == '}' {
		return nil, false // no keys: the strict path says which is missing
	}
	for {
		p.space()
		key, ok := p.plainString()
		if !ok {
			return nil, false
		}
		bit, known := recordKeys[key]
		if !known || seen&bit != 0 {
			return nil, false // unknown, cased otherwise or repeated: strict path
		}
		seen |= bit
		p.space()
		if !p.byte(':') {
			return nil, false
		}
		p.space()
		switch key {
		case "job_key":
			rec.JobKey, ok = p.plainString()
		case "attempt":
			var n int64
			n, ok = p.integer()
			rec.Attempt = int(n)
		case "schema_version":
			rec.SchemaVersion, ok = p.plainString()
		case "provider":
			rec.Provider, ok = p.plainString()
		case "model":
			rec.Model, ok = p.plainString()
		case "input_tokens":
			rec.InputTokens, ok = p.integer()
		case "output_tokens":
			rec.OutputTokens, ok = p.integer()
		case "request_id":
			rec.RequestID, ok = p.plainString()
		case "http_status":
			var n int64
			n, ok = p.integer()
			rec.HTTPStatus = int(n)
		case "output":
			if p.literal("null") {
				break
			}
			var s string
			s, ok = p.string()
			rec.Output = &s
		case "output_encoding":
			rec.OutputEncoding, ok = p.plainString()
		case "error":
			ok = p.literal("null")
		}
		if !ok {
			return nil, false
		}
		p.space()
		if p.byte(',') {
			continue
		}
		if !p.byte('}') {
			return nil, false
		}
		break
	}
	p.space()
	if p.i != len(b) || seen&requiredKeys != requiredKeys {
		return nil, false
	}
	return &rec, true
}

// recordKeys gives each key of a stored record a bit, to catch repeats.
var recordKeys = map[string]uint16{
	"job_key": 1 << 0, "attempt": 1 << 1, "schema_version": 1 << 2, "provider": 1 << 3, "model": 1 << 4,
	"input_tokens": 1 << 5, "output_tokens": 1 << 6, "request_id": 1 << 7, "http_status": 1 << 8,
	"output": 1 << 9, "output_encoding": 1 << 10, "error": 1 << 11,
}

// requiredKeys are the keys decodeRecord requires.
const requiredKeys = 1<<0 | 1<<1 | 1<<9 | 1<<11

type recParser struct {
	b []byte
	i int
}

func (p *recParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *recParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *recParser) byte(c byte) bool {
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

func (p *recParser) literal(word string) bool {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return false
	}
	// A literal must end there: "nullx" is not null.
	if j := p.i + len(word); j < len(p.b) && isWordByte(p.b[j]) {
		return false
	}
	p.i += len(word)
	return true
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// plainString reads a string without escapes, control bytes or invalid
// UTF-8: what encoding/json would decode to the same bytes.
func (p *recParser) plainString() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	for i := start; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			s := p.b[start:i]
			if !utf8.Valid(s) {
				return "", false
			}
			p.i = i + 1
			return string(s), true
		case c < 0x20, c == '\\':
			return "", false
		}
	}
	return "", false
}

// string reads a string, unescaping \" \\ \/ \b \f \n \r \t and \u escapes
// outside the surrogate range; a surrogate escape, a control byte or
// invalid UTF-8 (which encoding/json would replace) is false.
func (p *recParser) string() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	b := p.b
	start := p.i
	// Find the end and whether anything needs unescaping.
	end, escaped := -1, false
	for i := start; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			end = i
			break
		}
		if c < 0x20 {
			return "", false
		}
		if c == '\\' {
			escaped = true
			i++
		}
	}
	if end < 0 || !utf8.Valid(b[start:end]) {
		return "", false
	}
	p.i = end + 1
	if !escaped {
		return string(b[start:end]), true
	}
	out := make([]byte, 0, end-start)
	for i := start; i < end; i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+4 >= end {
				return "", false
			}
			r, err := strconv.ParseUint(string(b[i+1:i+5]), 16, 32)
			if err != nil || r >= 0xd800 && r <= 0xdfff {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			i += 4
		default:
			return "", false
		}
	}
	return string(out), true
}

// integer reads -?(0|[1-9][0-9]*) that fits an int64 (what encoding/json
// decodes into an int or int64 unchanged on a 64-bit machine).
func (p *recParser) integer() (int64, bool) {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	j := i
	for j < len(b) && '0' <= b[j] && b[j] <= '9' {
		j++
	}
	if j == i || b[i] == '0' && j > i+1 {
		return 0, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b[p.i:j]), 10, strconv.IntSize)
	if err != nil {
		return 0, false
	}
	p.i = j
	return n, true
}
