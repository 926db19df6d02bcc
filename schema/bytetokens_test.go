package schema

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sameTokens reads doc with json.Decoder (UseNumber) and with byteTokens,
// asking More before every Token as the walker does, and fails at the
// first difference.
func sameTokens(t *testing.T, doc []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	bt := &byteTokens{b: doc}
	for n := 0; ; n++ {
		if m1, m2 := dec.More(), bt.More(); m1 != m2 {
			t.Fatalf("token %d of %.80q: More = %v, decoder says %v", n, doc, m2, m1)
		}
		t1, e1 := dec.Token()
		t2, e2 := bt.Token()
		if (e1 == nil) != (e2 == nil) || !reflect.DeepEqual(t1, t2) {
			t.Fatalf("token %d of %.80q: %#v (%v), decoder read %#v (%v)", n, doc, t2, e2, t1, e1)
		}
		if e1 != nil {
			return
		}
	}
}

// tokenCorpus is every JSON document under the repository's testdata and
// fixtures that checkSyntax accepts, plus hand-written corner cases.
func tokenCorpus(t *testing.T) [][]byte {
	t.Helper()
	docs := [][]byte{
		[]byte(`{"a":"\u00e9\n\t\"\\\/","b":["\ud83d\ude00",-0.5e+10,1E3,0,-0,true,false,null,{},[]]}`),
		[]byte(" \t\r\n{ \"k\" : [ 1 , 2 ] , \"e\" : { } } \n"),
		[]byte(`"\\"`), []byte(`"a\\\"b"`), []byte(`12.50`), []byte(`[[[["deep"]]]]`), []byte(`{"":""}`),
		[]byte(`{"x":"日本語 ü € \u20ac"}`),
	}
	for _, root := range []string{"testdata", "../fixtures", "../extract"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			docs = append(docs, b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var out [][]byte
	for _, d := range docs {
		if first, e := checkSyntax(d); e == nil {
			out = append(out, first)
		}
	}
	return out
}

func TestByteTokensMatchDecoder(t *testing.T) {
	t.Parallel()
	docs := tokenCorpus(t)
	if len(docs) < 100 {
		t.Fatalf("only %d documents: the corpus moved", len(docs))
	}
	for _, d := range docs {
		sameTokens(t, d)
	}
}

func FuzzByteTokens(f *testing.F) {
	f.Add([]byte(`{"a":"\u00e9\"","b":[1.5,-2,true,null,{}]}`))
	f.Add([]byte(`[" \\ ", 1e-3, "x"]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		first, e := checkSyntax(b)
		if e != nil {
			return
		}
		sameTokens(t, first)
	})
}
