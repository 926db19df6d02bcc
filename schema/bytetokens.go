package schema

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// byteTokens hands out the tokens a json.Decoder with UseNumber reads from
// b, which must be one well-formed JSON value (checkSyntax has accepted
// it). Trusting that, it needs no state machine: commas and colons are
// separators to skip, and a token's kind is its first byte. It reads a
// document in a fraction of the decoder's time, which boxes and buffers
// every token; held to the decoder by TestByteTokensMatchDecoder and
// FuzzByteTokens.
type byteTokens struct {
	b []byte
	i int
}

// skip moves past white space and separators.
func (t *byteTokens) skip() {
	for t.i < len(t.b) {
		switch t.b[t.i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			t.i++
		default:
			return
		}
	}
}

// Token implements tokenSource.
func (t *byteTokens) Token() (json.Token, error) {
	t.skip()
	if t.i >= len(t.b) {
		return nil, io.EOF
	}
	start := t.i
	switch c := t.b[start]; c {
	case '{', '}', '[', ']':
		t.i++
		return json.Delim(c), nil
	case '"':
		return t.str()
	case 't':
		t.i += len("true")
		return true, nil
	case 'f':
		t.i += len("false")
		return false, nil
	case 'n':
		t.i += len("null")
		return nil, nil
	}
	for t.i < len(t.b) && isNumberByte(t.b[t.i]) {
		t.i++
	}
	return json.Number(t.b[start:t.i]), nil
}

// str reads the string starting at t.i. One without escapes is its bytes
// (valid UTF-8: checkSyntax made sure); one with escapes is decoded by
// encoding/json itself, so every escape means what it does there.
func (t *byteTokens) str() (json.Token, error) {
	start := t.i
	escaped := false
	i := start + 1
	for {
		// The next quote, then a backslash before it: two vector scans,
		// where one scan for either byte went a byte at a time.
		j := bytes.IndexByte(t.b[i:], '"')
		if j < 0 {
			return nil, io.ErrUnexpectedEOF // not well formed: checkSyntax rules it out
		}
		if k := bytes.IndexByte(t.b[i:i+j], '\\'); k >= 0 {
			j = k
		}
		i += j
		if t.b[i] == '"' {
			break
		}
		escaped = true
		i += 2 // the backslash and the byte it escapes (a \u's digits are plain)
	}
	t.i = i + 1
	if !escaped {
		// A key, or a value such as a version or a document type, is
		// handed out already boxed: keys were half the allocations of a
		// walk.
		if tok, ok := internedToken(t.b[start+1 : i]); ok {
			return tok, nil
		}
		return string(t.b[start+1 : i]), nil
	}
	var s string
	if err := json.Unmarshal(t.b[start:t.i], &s); err != nil {
		return nil, err
	}
	return s, nil
}

// More implements tokenSource, as json.Decoder.More: the next token is not
// a closing delimiter.
func (t *byteTokens) More() bool {
	t.skip()
	return t.i < len(t.b) && t.b[t.i] != '}' && t.b[t.i] != ']'
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// internedTokens maps the names a document is made of (every key of every
// version, and the values of closed sets) to themselves as json.Token, so
// byteTokens hands them out without allocating. Built on first use.
var internedTokens = sync.OnceValue(func() map[string]json.Token {
	m := map[string]json.Token{}
	add := func(names ...string) {
		for _, n := range names {
			m[n] = n
		}
	}
	for _, fs := range [][]field{v1Fields, v1FactFields, v1ActionFields, v2Fields, v2TaxLineFields, v2LineItemFields, v2EvidenceFields} {
		for _, f := range fs {
			add(f.name)
		}
	}
	add(V1, V2)
	add(v1Kinds...)
	add(v2DocTypes...)
	return m
})

// internedByLen is internedTokens by length: a value longer than every
// name (an excerpt, a title) is told apart by its length alone, and a short
// one is compared with the few names of its length, first and last byte
// first, instead of being hashed.
var internedByLen = sync.OnceValue(func() [][]internedName {
	var byLen [][]internedName
	for name, tok := range internedTokens() {
		for len(byLen) <= len(name) {
			byLen = append(byLen, nil)
		}
		byLen[len(name)] = append(byLen[len(name)], internedName{name, tok})
	}
	return byLen
})

type internedName struct {
	name string
	tok  json.Token
}

// internedToken returns the interned token of the name b spells.
func internedToken(b []byte) (json.Token, bool) {
	byLen := internedByLen()
	if len(b) == 0 || len(b) >= len(byLen) {
		return nil, false
	}
	first, last := b[0], b[len(b)-1]
	for i := range byLen[len(b)] {
		n := &byLen[len(b)][i]
		if n.name[0] == first && n.name[len(n.name)-1] == last && n.name == string(b) {
			return n.tok, true
		}
	}
	return nil, false
}
