package rules

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// updateV1Golden rewrites testdata/v1_golden.json. Only do it when a change
// to v1's answers is intended: v1 is a released schema, and the rules
// extractor's v1 answers are part of what users compare runs against.
var updateV1Golden = flag.Bool("update-v1", false, "rewrite testdata/v1_golden.json from the current Extract")

const v1GoldenFile = "testdata/v1_golden.json"

// v1GoldenInputs is every text the v1 answers are pinned on: the fixture
// suite, the development set and the fuzz seed corpus, keyed by path.
func v1GoldenInputs(t *testing.T) map[string]string {
	t.Helper()
	out := corpus(t)
	seeds, err := filepath.Glob("testdata/fuzz/FuzzExtract/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range seeds {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// "go test fuzz v1\nstring(\"...\")": the second line quotes the text.
		lines := strings.SplitN(string(b), "\n", 3)
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "string(") {
			continue
		}
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "string("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[f] = s
	}
	return out
}

// TestV1Golden proves that teaching the extractor invoice-v2 changed none of
// its invoice-summary-v1 answers: the golden file was written from main's
// code before the v2 work began, and every answer must match it byte for
// byte.
func TestV1Golden(t *testing.T) {
	t.Parallel()
	inputs := v1GoldenInputs(t)
	got := map[string]string{}
	for name, text := range inputs {
		b, err := json.Marshal(Extract(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got[name] = string(b)
	}
	if *updateV1Golden {
		writeGolden(t, got)
		return
	}
	b, err := os.ReadFile(v1GoldenFile)
	if err != nil {
		t.Fatalf("read %s: %v (run with -update-v1 to create it)", v1GoldenFile, err)
	}
	var want map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("decode %s: %v", v1GoldenFile, err)
	}
	if len(want) < 140 {
		t.Fatalf("%d golden answers, want at least 140", len(want))
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: in the golden file but no longer an input", name)
			continue
		}
		if g != w {
			t.Errorf("%s: v1 answer changed\n got: %s\nwant: %s", name, g, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: new input without a golden answer (run with -update-v1)", name)
		}
	}
}

func writeGolden(t *testing.T, m map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.WriteString("{\n")
	for i, k := range keys {
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(m[k])
		buf.Write(kb)
		buf.WriteString(": ")
		buf.Write(vb)
		if i < len(keys)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	if err := os.WriteFile(v1GoldenFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
