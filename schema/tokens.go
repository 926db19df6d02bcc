package schema

import (
	"encoding/json"
	"io"
	"strconv"
)

// tokenSource is what the walker reads: a json.Decoder over a candidate's
// bytes, or valueTokens over a Go value the caller built. Both hand out the
// same tokens for the same document, so every check runs unchanged on
// either.
type tokenSource interface {
	Token() (json.Token, error)
	More() bool
}

// valueTokens replays the tokens a json.Decoder with UseNumber would read
// from json.Marshal of a document, without the bytes in between.
type valueTokens struct {
	toks []valueToken
	pos  int
}

// valueToken is one token, its string or integer kept unboxed: putting a
// string or json.Number in an interface allocates, and the walker reads
// most of them through str and integer, which take them as they are.
type valueToken struct {
	tok  json.Token // the token when kind is tokAny
	s    string
	n    int64
	kind uint8
}

const (
	tokAny uint8 = iota
	tokString
	tokInt
)

func (t *valueTokens) Token() (json.Token, error) {
	if t.pos >= len(t.toks) {
		return nil, io.EOF
	}
	v := &t.toks[t.pos]
	t.pos++
	switch v.kind {
	case tokString:
		return v.s, nil
	case tokInt:
		return json.Number(strconv.FormatInt(v.n, 10)), nil
	}
	return v.tok, nil
}

// nextString reads the next token when it is a string; false leaves it.
func (t *valueTokens) nextString() (string, bool) {
	if t.pos >= len(t.toks) || t.toks[t.pos].kind != tokString {
		return "", false
	}
	t.pos++
	return t.toks[t.pos-1].s, true
}

// nextInt reads the next token when it is an integer; false leaves it.
func (t *valueTokens) nextInt() (int64, bool) {
	if t.pos >= len(t.toks) || t.toks[t.pos].kind != tokInt {
		return 0, false
	}
	t.pos++
	return t.toks[t.pos-1].n, true
}

// More reports whether the current object or array has another element,
// as json.Decoder.More does: the next token is not a closing delimiter.
func (t *valueTokens) More() bool {
	if t.pos >= len(t.toks) {
		return false
	}
	d, ok := t.toks[t.pos].tok.(json.Delim)
	return !ok || (d != '}' && d != ']')
}
