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

	"github.com/google/go-cmp/cmp"
)

// answerBody wraps content in a chat completion the way bench/fakellm and
// the OpenAI API send one, members in the API's order.
func answerBody(t testing.TB, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	type message struct {
		Role        string  `json:"role"`
		Content     string  `json:"content"`
		Refusal     *string `json:"refusal"`
		Annotations []any   `json:"annotations"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		Logprobs     any     `json:"logprobs"`
		FinishReason string  `json:"finish_reason"`
	}
	err := enc.Encode(struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   any      `json:"usage"`
	}{"chatcmpl-1", "chat.completion", 1760000000, "gpt-x",
		[]choice{{Message: message{Role: "assistant", Content: content, Annotations: []any{}}, FinishReason: "stop"}},
		map[string]int{"prompt_tokens": 4711, "completion_tokens": 815, "total_tokens": 5526}})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fixtureAnswers are the expected answers of fixtures/, as the contents
// of chat completions: what a model sends back for real documents.
func fixtureAnswers(t testing.TB) [][]byte {
	t.Helper()
	var bodies [][]byte
	err := filepath.WalkDir("../../fixtures", func(path string, e fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".expect.json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		bodies = append(bodies, answerBody(t, string(b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bodies) < 50 {
		t.Fatalf("found %d fixture answers, want the fixtures/ set", len(bodies))
	}
	return bodies
}

// oddBodies are bodies at the edges of the fast path: each either read by
// it or left to encoding/json, never read differently.
var oddBodies = []string{
	`{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"stop"}]}`,
	` {"model":"m","choices":[{"message":{"content":"x"}}]} ` + "\n",
	`{"model":"m","choices":[{"message":{"content":"x"}}]} trailing`,
	`{"model":"m","choices":[{"message":{"content":"x"}}]}{}`,
	`{"model":"m","choices":[]}`,
	`{"model":"m","choices":null}`,
	`{"model":"m"}`,
	`{"model":"m","choices":[null]}`,
	`{"model":"m","choices":[{"message":null,"finish_reason":"stop"}]}`,
	`{"model":"m","choices":[5]}`,
	`{"model":"m","choices":[{"message":{"content":null,"refusal":"no"}}]}`,
	`{"model":null,"choices":[{"message":{"content":"x"}}],"usage":null}`,
	// Duplicates: json.Unmarshal keeps the last, or merges two objects.
	`{"model":"a","model":"b","choices":[{"message":{"content":"x"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"x"},"message":{"refusal":"r"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"x","content":"y"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"choices":[{"message":{"content":"y"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"choices":[{"message":{"refusal":"r"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"stop"},{}],"choices":[{}]}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1,"prompt_tokens":2}}`,
	// Names matched without regard to case, escaped, or folded.
	`{"Model":"M","choices":[{"message":{"content":"x"}}]}`,
	`{"model":"m","CHOICES":[{"message":{"content":"x"}}]}`,
	`{"model":"m","choices":[{"Message":{"Content":"x"},"Finish_Reason":"stop"}]}`,
	`{"mod\u0065l":"m","choices":[{"message":{"content":"x"}}]}`,
	"{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"x\"}}],\"u\u017fage\":{\"prompt_tokens\":3}}",
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":{"PROMPT_TOKENS":3}}`,
	// Numbers.
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-0,"completion_tokens":9223372036854775807}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":9223372036854775808}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1.0}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1e2}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":01}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":"12"}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"created":1.5e+10,"n":-0.0E-1}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"created":1.}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"created":.5}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"created":+1}`,
	// Strings.
	`{"model":"m","choices":[{"message":{"content":"q\" b\\ s\/ \b\f\n\r\t \u00e9 \u20AC \u0000"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"pair \ud83e\uddfe"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"lone \ud83e x"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"low \udc00"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"bad \x"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"short \u12"}}]}`,
	`{"model":"m","choices":[{"message":{"content":"hex \u00G0"}}]}`,
	"{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"Zürich 🧾 \u2028\"}}]}",
	"{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"bad \xff\xfe utf8\"}}]}",
	"{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"cut \xe2\x82\"}}]}",
	"{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"surrogate \xed\xa0\x80\"}}]}",
	"{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"tab\tin\"}}]}",
	"{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"x\"}}],\"other\":\"raw \x01\"}",
	"{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"x\"}}],\"other\":\"\xff ok\"}",
	`{"model":"m","choices":[{"message":{"content":"x"}}],"other":"esc \q"}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"other":"esc \u00"}`,
	`{"model":"m","choices":[{"message":{"content":"x\`,
	// Kinds.
	`{"model":5,"choices":[{"message":{"content":"x"}}]}`,
	`{"model":"m","choices":[{"message":{"content":["x"]}}]}`,
	`{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":7}]}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"usage":[]}`,
	`{"model":"m","choices":{}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"extra":{"a":[1,true,false,null,{"b":"c"}],"d":{}}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"extra":[tru]}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"extra":nul}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"extra":{"a" 1}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"extra":{"a":1,}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"extra":[1,]}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"extra":[1 2]}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],}`,
	// Closers that do not match their opener.
	`{"model":"m","choices":[{"message":{"content":"x"}}}}`,
	`{"model":"m","choices":[{"message":{"content":"x"}]]}`,
	`{"model":"m","choices":[{"message":{"content":"x"]}]}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}]]`,
	`{"model":"m","choices":[]}}`,
	`{"model":"m","choices":[}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}]`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"deep":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
	`{"model":"m","choices":[{"message":{"content":"x"}}],"deep":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	"\ufeff{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"x\"}}]}",
	`null`, `[]`, `"x"`, `5`, ``, `{`,
}

// TestFastCompletionMatchesUnmarshal holds the fast path to
// unmarshalCompletion: on the answers to every fixture and on odd bodies,
// decodeCompletion reads what it read before (or fails as it did), and the
// fixtures' answers do take the fast path.
func TestFastCompletionMatchesUnmarshal(t *testing.T) {
	t.Parallel()
	for i, body := range fixtureAnswers(t) {
		if _, ok := fastCompletion(body); !ok {
			t.Errorf("fixture answer %d: not read by the fast path:\n%.300s", i, body)
		}
		checkSameCompletion(t, fmt.Sprintf("fixture answer %d", i), body)
	}
	for _, body := range oddBodies {
		checkSameCompletion(t, fmt.Sprintf("%.80q", body), []byte(body))
	}
	// The shapes servers send must not fall back.
	for _, body := range oddBodies[:2] {
		if _, ok := fastCompletion([]byte(body)); !ok {
			t.Errorf("%q: not read by the fast path", body)
		}
	}
}

// TestFastCompletionRecording reads the answers of a recording (invx run
// --record DIR, what bench/fakellm serves) when INVX_TEST_RECORDING names
// one: thousands of real answers through both decoders.
func TestFastCompletionRecording(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("INVX_TEST_RECORDING")
	if dir == "" {
		t.Skip("INVX_TEST_RECORDING is not set")
	}
	n := 0
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var rec struct{ Output string }
		if err := json.Unmarshal(b, &rec); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		body := answerBody(t, rec.Output)
		if _, ok := fastCompletion(body); !ok {
			t.Errorf("%s: not read by the fast path", path)
		}
		checkSameCompletion(t, path, body)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d recorded answers", n)
}

// checkSameCompletion compares decodeCompletion with unmarshalCompletion
// on body: the same fields, or both an error.
func checkSameCompletion(t *testing.T, name string, body []byte) {
	t.Helper()
	want, wantErr := unmarshalCompletion(body)
	got, gotErr := decodeCompletion(body)
	if (gotErr != nil) != (wantErr != nil) {
		t.Errorf("%s: error %v, before %v", name, gotErr, wantErr)
		return
	}
	if gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Errorf("%s: error %q, before %q", name, gotErr, wantErr)
	}
	if d := cmp.Diff(answerFields(want), answerFields(got)); d != "" {
		t.Errorf("%s: (-before +now)\n%s", name, d)
	}
}

// FuzzFastCompletion: wherever the fast path reads a body, json.Unmarshal
// into wireCompletion reads the same fields from it.
func FuzzFastCompletion(f *testing.F) {
	for _, b := range oddBodies {
		f.Add([]byte(b))
	}
	f.Add(answerBody(f, `{"schema_version":"invoice-v1","total_minor":100,"note":"<b> & \"q\" é"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, ok := fastCompletion(body); !ok {
			return
		}
		var w wireCompletion
		if err := json.Unmarshal(body, &w); err != nil {
			t.Fatalf("fast path read %q, json.Unmarshal fails: %v", body, err)
		}
		if len(w.Choices) == 0 {
			t.Fatalf("fast path read %q, json.Unmarshal finds no choices", body)
		}
		checkSameCompletion(t, fmt.Sprintf("%q", body), body)
	})
}

// BenchmarkDecodeCompletion decodes the fixtures' answers: the adapter's
// CPU and allocations per answer read.
func BenchmarkDecodeCompletion(b *testing.B) {
	bodies := fixtureAnswers(b)
	for _, tc := range []struct {
		name   string
		decode func([]byte) (*completion, error)
	}{{"fast", decodeCompletion}, {"unmarshal", unmarshalCompletion}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := tc.decode(bodies[i%len(bodies)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
