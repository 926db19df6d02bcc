package replay

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recordBytes encodes rec as a Recorder writes it (indented) and as a
// person might (compact).
func recordBytes(t testing.TB, rec *record) [][]byte {
	t.Helper()
	var out [][]byte
	for _, indent := range []string{"  ", ""} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", indent)
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// decodeSeeds are records as written, with outputs that need every kind of
// escape, and hand-written variants only the strict path takes.
func decodeSeeds(t testing.TB) [][]byte {
	t.Helper()
	outputs := []string{
		`{"schema_version":"invoice-v2","title":"ACME \"Büro\" <GmbH> & Co"}`,
		"line\nbreak\ttab\r\x01\x1f\u2028\u2029 \\ / 😀 é",
		"",
	}
	var seeds [][]byte
	for i, out := range outputs {
		rec := &record{JobKey: "0123abcd", Attempt: i + 1, callMeta: callMeta{SchemaVersion: "invoice-v2", Provider: "rules",
			Model: "rules-v1", InputTokens: 12, OutputTokens: -3, RequestID: "req_1", HTTPStatus: 200}, Output: &out}
		seeds = append(seeds, recordBytes(t, rec)...)
	}
	b64 := "/w=="
	seeds = append(seeds, recordBytes(t, &record{JobKey: "k", Attempt: 1, Output: &b64, OutputEncoding: encodingBase64})...)
	seeds = append(seeds, recordBytes(t, &record{JobKey: "k", Attempt: 2, Error: &recordedError{Class: "transient", Status: 503}})...)
	good := `{"job_key":"0123abcd","attempt":1,"provider":"ollama","model":"m","input_tokens":1,"output_tokens":2,` +
		`"request_id":"","http_status":200,"output":"{}","error":null}`
	for _, s := range []string{
		good,
		strings.Replace(good, `"output":"{}"`, `"output":"\u00e9\ud83d\ude00\/\"\b\f"`, 1),
		strings.Replace(good, `"output":"{}"`, `"output":"\ud800"`, 1),
		strings.Replace(good, `"model"`, `"Model"`, 1),
		strings.Replace(good, `"attempt":1`, `"attempt":1,"attempt":1`, 1),
		strings.Replace(good, `"attempt":1`, `"attempt":1.0`, 1),
		strings.Replace(good, `"attempt":1`, `"attempt":01`, 1),
		strings.Replace(good, `"attempt":1`, `"attempt":-0`, 1),
		strings.Replace(good, `"http_status":200`, `"http_status":99999999999999999999`, 1),
		strings.Replace(good, `"model":"m"`, `"model":null`, 1),
		strings.Replace(good, `"model":"m"`, `"model":"m\u0000"`, 1),
		strings.Replace(good, `"model":"m"`, "\"model\":\"\xff\"", 1),
		strings.Replace(good, `"error":null`, `"error":nullx`, 1),
		good + " \n",
		good + " {}",
		"  " + good,
		"null",
		"{}",
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// sameDecode fails t unless decodeRecord agrees with the strict path on b.
func sameDecode(t testing.TB, b []byte) {
	t.Helper()
	got, gotErr := decodeRecord(b)
	want, wantErr := decodeRecordStrict(b)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("decodeRecord(%q): error %v, strict path %v", b, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(record{})); diff != "" {
		t.Fatalf("decodeRecord(%q) differs from the strict path (-want +got):\n%s", b, diff)
	}
}

// sameSchema fails t unless the fast path reads the schema version the
// token scan reads from b.
func sameSchema(t testing.TB, b []byte) {
	t.Helper()
	want := tokenSchema(bytes.NewReader(b))
	if v, ok := leadingSchema(b); ok && v != want {
		t.Fatalf("schema of %q: leading keys %q, token scan %q", b, v, want)
	}
}

func TestDecodeRecordFastMatches(t *testing.T) {
	t.Parallel()
	seeds := decodeSeeds(t)
	for _, b := range seeds {
		sameDecode(t, b)
		sameSchema(t, b)
		for i := range b {
			sameDecode(t, b[:i])
			c := bytes.Clone(b)
			c[i] = '"'
			sameDecode(t, c)
			sameSchema(t, c)
			c[i] = '\\'
			sameDecode(t, c)
			sameSchema(t, c)
		}
	}
	// The fast paths must take what a Recorder writes, or they only cost.
	for i, b := range seeds[:8] {
		if _, ok := decodeRecordFast(b); !ok {
			t.Errorf("fast path refused a recorded file:\n%s", b)
		}
		if v, ok := leadingSchema(b); i < 6 && (!ok || v != "invoice-v2") {
			t.Errorf("leading keys read schema %q, %v from a recorded file:\n%s", v, ok, b)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	for _, b := range decodeSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sameDecode(t, b)
		sameSchema(t, b)
		if got, want := keyName(string(b)), keyRE.MatchString(string(b)); got != want {
			t.Fatalf("keyName(%q) = %v, regexp %v", b, got, want)
		}
		if n, ok := attemptNumber(string(b)); ok != attemptRE.MatchString(string(b)) || ok && strconv.Itoa(n)+".json" != string(b) {
			t.Fatalf("attemptNumber(%q) = %d, %v", b, n, ok)
		}
	})
}

// keyRE is the rule keyName spells out.
var keyRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

func TestKeyNameMatchesRegexp(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"", "a", "0123abcd", ".a", "-a", "_a", "a.b_c-d", "a/b", "a b", "é", "a\n",
		strings.Repeat("a", 128), strings.Repeat("a", 129), "A" + strings.Repeat(".", 127)} {
		if got, want := keyName(k), keyRE.MatchString(k); got != want {
			t.Errorf("keyName(%q) = %v, regexp %v", k, got, want)
		}
	}
}

// attemptRE is the rule attemptNumber spells out.
var attemptRE = regexp.MustCompile(`^([1-9][0-9]{0,8})\.json$`)

func TestAttemptNumberMatchesRegexp(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"1.json", "0.json", "01.json", "10.json", "999999999.json", "1000000000.json",
		".json", "1.jso", "1.json.tmp", "a.json", "1a.json", "-1.json", "+1.json", "1.JSON", "12345.json"} {
		n, ok := attemptNumber(name)
		m := attemptRE.FindStringSubmatch(name)
		if ok != (m != nil) || ok && strconv.Itoa(n) != m[1] {
			t.Errorf("attemptNumber(%q) = %d, %v; regexp %q", name, n, ok, m)
		}
	}
}
