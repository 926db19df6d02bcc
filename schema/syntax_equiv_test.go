package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// checkSyntaxRef is checkSyntax as it was before its json.Valid fast path:
// the decoder alone. The fast path must answer exactly as it does.
func checkSyntaxRef(raw []byte) ([]byte, *ValidationError) {
	if len(raw) > maxDocumentBytes {
		return nil, verr(CategoryDecode, "$", "larger than %d bytes", maxDocumentBytes)
	}
	if !utf8.Valid(raw) {
		return nil, verr(CategoryDecode, "$", "not valid UTF-8 at byte %d", invalidUTF8Offset(raw))
	}
	if len(bytes.TrimLeft(raw, jsonSpace)) == 0 {
		return nil, verr(CategoryDecode, "$", "empty answer, want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return nil, syntaxError("$", err)
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(raw[end:], jsonSpace); len(rest) > 0 {
		return nil, verr(CategoryTrailingData, "$", "data after the JSON document at byte %d", len(raw)-len(rest))
	}
	if i := loneSurrogate(raw[:end]); i >= 0 {
		return nil, loneSurrogateError(i)
	}
	return raw[:end], nil
}

// syntaxCorpus is every JSON file under fixtures/ and schema testdata,
// each also cut short, doubled, padded and given trailing bytes.
func syntaxCorpus(t *testing.T) [][]byte {
	t.Helper()
	var files []string
	for _, pat := range []string{"../fixtures/*/*.json", "../fixtures/*/*/*.json", "../fixtures/*/*/*/*.json", "testdata/*/*.json", "testdata/*.json"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatalf("glob %s: %v", pat, err)
		}
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("only %d JSON files found; the comparison would prove little", len(files))
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		out = append(out, b, []byte(" \n"+string(b)+"\t\r\n "), []byte(string(b)+string(b)), []byte(string(b)+"x"),
			[]byte(string(b)+" 1"), b[:len(b)/2], b[:len(b)*9/10], []byte(`"`+string(b)))
	}
	for _, s := range []string{"", " ", "{}", "{} ", " {}{}", "1", "1 ", "1 2", "[1,]", `"\ud800"`, `{"a":"\udc00x"}`,
		`{"a":"\ud83d\ude00"}`, "nul", "null", "true false", "{\"a\":1}\n\n", "\xff", "{\"a\":\"\xc3\"}", "0x1", "-", "01"} {
		out = append(out, []byte(s))
	}
	return out
}

func TestCheckSyntaxMatchesDecoder(t *testing.T) {
	t.Parallel()
	accepted := 0
	for _, raw := range syntaxCorpus(t) {
		got, gotErr := checkSyntax(raw)
		want, wantErr := checkSyntaxRef(raw)
		if !bytes.Equal(got, want) || (got == nil) != (want == nil) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("checkSyntax(%.80q):\n got %q, %v\nwant %q, %v", raw, got, gotErr, want, wantErr)
		}
		if wantErr == nil {
			accepted++
		}
	}
	if accepted < 50 {
		t.Fatalf("only %d answers accepted; the fast path was hardly compared", accepted)
	}
}
