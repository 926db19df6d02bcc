package rules

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// updateV1 rewrites the v1 golden file from the current code. Run it only on
// a commit whose v1 answers are known good (main before v2 work began).
var updateV1 = flag.Bool("update-v1", false, "rewrite testdata/v1golden/answers.jsonl from Extract")

const v1GoldenPath = "testdata/v1golden/answers.jsonl"

// v1Inputs lists every text the v1 answers are pinned on: the shared
// fixtures and the development set, sorted so the golden file is stable.
func v1Inputs(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(fixtureDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".txt") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatalf("walk fixtures: %v", err)
	}
	dev, err := filepath.Glob("testdata/dev/*.txt")
	if err != nil {
		t.Fatalf("glob dev: %v", err)
	}
	files = append(files, dev...)
	sort.Strings(files)
	if len(files) < 100 {
		t.Fatalf("only %d inputs found; the golden comparison would prove little", len(files))
	}
	return files
}

// TestV1Unchanged pins Extract's invoice-summary-v1 answers byte for byte:
// the v2 readers share the number, currency and total code with v1, and a
// released schema's answers must not move when v2 is added beside it.
func TestV1Unchanged(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	for _, p := range v1Inputs(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		ans, err := json.Marshal(Extract(normalizeText(b)))
		if err != nil {
			t.Fatalf("encode %s: %v", p, err)
		}
		got.WriteString(filepath.ToSlash(p) + "\t")
		got.Write(ans)
		got.WriteByte('\n')
	}
	if *updateV1 {
		if err := os.WriteFile(v1GoldenPath, got.Bytes(), 0o644); err != nil {
			t.Fatalf("write golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(v1GoldenPath)
	if err != nil {
		t.Fatalf("read golden (create it with -update-v1 on main's code): %v", err)
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(got.String(), "\n")
	if len(wl) != len(gl) {
		t.Errorf("golden has %d lines, Extract gave %d", len(wl), len(gl))
	}
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			t.Errorf("v1 answer changed:\nwant %s\ngot  %s", wl[i], gl[i])
		}
	}
}
