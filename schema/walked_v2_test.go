package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// walkedTokens returns the tokens the walk of an accepted document records.
func walkedTokens(t *testing.T, raw string) []json.Token {
	t.Helper()
	first, e := checkSyntax([]byte(raw))
	if e != nil {
		t.Fatal(e)
	}
	w := &walker{dec: &byteTokens{b: first}, source: testSourceV2, version: V2, record: true}
	if e := w.document(v2Fields); e != nil {
		t.Fatal(e)
	}
	return w.toks
}

// decodeWalkedV2 fills the document json.Unmarshal fills, and refuses,
// rather than guesses at, tokens the walk would never have accepted: the
// caller then falls back to json.Unmarshal.
func TestDecodeWalkedV2(t *testing.T) {
	t.Parallel()
	toks := walkedTokens(t, validDocV2)
	var got, want InvoiceV2
	if !decodeWalkedV2(toks, &got) {
		t.Fatal("refused the tokens of an accepted document")
	}
	if err := json.Unmarshal([]byte(validDocV2), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-json.Unmarshal +walked):\n%s", diff)
	}
	replace := func(i int, tok json.Token) []json.Token {
		c := append([]json.Token(nil), toks...)
		c[i] = tok
		return c
	}
	key := func(name string) int {
		for i, tok := range toks {
			if tok == name {
				return i
			}
		}
		t.Fatalf("no key %q", name)
		return -1
	}
	for name, bad := range map[string][]json.Token{
		"truncated":        toks[:len(toks)-1],
		"trailing":         append(append([]json.Token(nil), toks...), json.Delim('}')),
		"unknown key":      replace(key("title"), "Title"),
		"string for int":   replace(key("net_minor")+1, "12"),
		"float":            replace(key("net_minor")+1, json.Number("1.5")),
		"int for string":   replace(key("title")+1, json.Number("1")),
		"null for bool":    replace(key("lines_complete")+1, nil),
		"unknown evidence": replace(key("evidence")+2, "nope"),
	} {
		var d InvoiceV2
		if decodeWalkedV2(bad, &d) {
			t.Errorf("%s: accepted", name)
		}
	}
}
