package rules

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// updateV2 rewrites the v2 golden file from the current code. It has its own
// name because two tests registering -update-v1 would panic at start-up.
var updateV2 = flag.Bool("update-v2", false, "rewrite testdata/v2golden/answers.jsonl from ExtractV2")

const v2GoldenPath = "testdata/v2golden/answers.jsonl"

// v2GoldenSynth is how many generated invoices the golden also pins: they
// reach layouts (languages, OCR noise) the hand-written fixtures do not.
const v2GoldenSynth = 200

// v2Inputs lists every fixture text and every text under testdata, sorted so
// the golden file is stable.
func v2Inputs(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, root := range []string{fixtureDir, "testdata"} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".txt") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatalf("walk %s: %v", root, err)
		}
	}
	sort.Strings(files)
	if len(files) < 100 {
		t.Fatalf("only %d inputs found; the golden comparison would prove little", len(files))
	}
	return files
}

// goldenLine appends one "name<TAB>json" line for an answer.
func goldenLine(t *testing.T, buf *bytes.Buffer, name string, ans any) {
	t.Helper()
	b, err := json.Marshal(ans)
	if err != nil {
		t.Fatalf("encode %s: %v", name, err)
	}
	buf.WriteString(name + "\t")
	buf.Write(b)
	buf.WriteByte('\n')
}

// TestV2Unchanged pins ExtractV2's invoice-v2 answers byte for byte over the
// fixtures, testdata and a seeded synthetic corpus (whose v1 answers it pins
// too), so work on the extractor's speed cannot move a single answer.
func TestV2Unchanged(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	for _, p := range v2Inputs(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		goldenLine(t, &got, filepath.ToSlash(p), ExtractV2(normalizeText(b)))
	}
	r := rand.New(rand.NewSource(20261201))
	for i := range v2GoldenSynth {
		text, _ := synthInvoice(r)
		name := "synth/" + strconv.Itoa(i)
		goldenLine(t, &got, name+"/v1", Extract(text))
		goldenLine(t, &got, name+"/v2", ExtractV2(text))
	}
	if *updateV2 {
		if err := os.MkdirAll(filepath.Dir(v2GoldenPath), 0o755); err != nil {
			t.Fatalf("make golden dir: %v", err)
		}
		if err := os.WriteFile(v2GoldenPath, got.Bytes(), 0o644); err != nil {
			t.Fatalf("write golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(v2GoldenPath)
	if err != nil {
		t.Fatalf("read golden (create it with -update-v2 on unoptimised code): %v", err)
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(got.String(), "\n")
	if len(wl) != len(gl) {
		t.Errorf("golden has %d lines, the extractor gave %d", len(wl), len(gl))
	}
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			t.Errorf("answer changed:\nwant %s\ngot  %s", wl[i], gl[i])
		}
	}
}
