package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
)

// jsonStringCases are strings at every edge of encoding/json's string
// encoding: each ASCII byte, HTML characters, U+2028/2029, invalid and
// truncated UTF-8, surrogate halves encoded as UTF-8, multi-byte runes.
func jsonStringCases() []string {
	var all strings.Builder
	for b := range 256 {
		all.WriteByte(byte(b))
	}
	cases := []string{"", all.String(), "plain", `q" b\ / <a href="x">&amp;</a>`,
		"\u2028\u2029 \u2027\u202a", "Zürich 🧾 €", "\xff\xfe", "cut \xe2\x82", "\xed\xa0\x80 half",
		"\x00\x01\x1f\x7f\b\f\n\r\t", "end\\", strings.Repeat("é\n<", 1000)}
	for b := range 256 {
		cases = append(cases, string([]byte{'a', byte(b), 'z'}))
	}
	return cases
}

// TestAppendJSONStringMatchesMarshal: byte for byte what json.Marshal
// writes for the same string.
func TestAppendJSONStringMatchesMarshal(t *testing.T) {
	t.Parallel()
	for _, s := range jsonStringCases() {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("prefix"), s); !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("%q: appended %q, json.Marshal %q", s, got[len("prefix"):], want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringCases() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: appended %q, json.Marshal %q", s, got, want)
		}
	})
}

// marshalTail is how requestBody encoded a request's messages before
// appendUserMessage: json.Marshal of each wireMessage.
func marshalTail(t *testing.T, req *extract.Request) []byte {
	t.Helper()
	user, err := json.Marshal(wireMessage{Role: "user", Content: req.Schema.UserMessage(req.Text)})
	if err != nil {
		t.Fatal(err)
	}
	tail := append([]byte{','}, user...)
	if req.Feedback != nil {
		fb, err := json.Marshal(wireMessage{Role: "user", Content: fmt.Sprintf(feedbackFormat, req.Feedback.Error())})
		if err != nil {
			t.Fatal(err)
		}
		tail = append(append(tail, ','), fb...)
	}
	return append(tail, "]}"...)
}

// TestRequestBodyMatchesMarshal holds the request body to the bytes the
// json.Marshal encoding sent, for every fixture document and every edge
// string, under every schema version, with and without a re-ask's
// feedback.
func TestRequestBodyMatchesMarshal(t *testing.T) {
	t.Parallel()
	p, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m-1"})
	if err != nil {
		t.Fatal(err)
	}
	texts := jsonStringCases()
	err = filepath.WalkDir("../../fixtures", func(path string, e fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".txt") {
			return err
		}
		b, err := os.ReadFile(path)
		texts = append(texts, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 400 {
		t.Fatalf("%d texts, want the edge cases and the fixtures' documents", len(texts))
	}
	feedback := []*schema.ValidationError{nil, {Path: "invoice.total_minor", Category: "type", Msg: `must be an integer, not "1.00" <&>`}}
	for _, name := range schema.Versions() {
		v, err := schema.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			for _, fb := range feedback {
				req := &extract.Request{Text: text, Schema: v, Feedback: fb}
				body, err := p.requestBody(req)
				if err != nil {
					t.Fatal(err)
				}
				if want := marshalTail(t, req); !bytes.Equal(body.tail, want) {
					t.Errorf("%s, text %d %.30q, feedback %v: tail differs:\n got %.200q\nwant %.200q", name, i, text, fb != nil, body.tail, want)
				}
			}
		}
	}
}
