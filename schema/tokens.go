package schema

import (
	"encoding/json"
	"io"
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
	toks []json.Token
	pos  int
}

func (t *valueTokens) Token() (json.Token, error) {
	if t.pos >= len(t.toks) {
		return nil, io.EOF
	}
	tok := t.toks[t.pos]
	t.pos++
	return tok, nil
}

// More reports whether the current object or array has another element,
// as json.Decoder.More does: the next token is not a closing delimiter.
func (t *valueTokens) More() bool {
	if t.pos >= len(t.toks) {
		return false
	}
	d, ok := t.toks[t.pos].(json.Delim)
	return !ok || (d != '}' && d != ']')
}
