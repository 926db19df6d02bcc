package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// v2Source is a German invoice stating every invoice-v2 fact, already in
// normalised form (LF line ends, NFC), so the text a provider receives is
// exactly this; v2Answer is a valid invoice-v2 answer for it, compact.
// Both are the acme document of testdata/input-v2, which the export and
// show tests run, so the two kinds of test read one invoice.
var v2Source, v2Answer = readV2Fixture("acme")

// readV2Fixture reads testdata/input-v2/NAME.txt and NAME.json; the answer
// is compacted so that tests may edit it by exact substring.
func readV2Fixture(name string) (source, answer string) {
	txt, err := os.ReadFile(filepath.Join("testdata", "input-v2", name+".txt"))
	if err != nil {
		panic(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "input-v2", name+".json"))
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		panic(fmt.Sprintf("testdata/input-v2/%s.json: %v", name, err))
	}
	return string(txt), buf.String()
}

// v2BadSums is v2Answer with the mistake a model makes on this layout: the
// tax read as the base it is charged on. The evidence still holds the value
// (the line reads "auf 1.000,00"), so the only fault is arithmetic: net +
// tax != total.
var v2BadSums = strings.Replace(v2Answer, `"tax_minor":19000,"total_minor"`, `"tax_minor":100000,"total_minor"`, 1)

// v2Input writes v2Source as the only document of a fresh input folder.
func v2Input(t *testing.T) (tmp, in string) {
	t.Helper()
	if v2BadSums == v2Answer {
		t.Fatal("v2BadSums: replacement did not apply")
	}
	tmp = t.TempDir()
	in = filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "acme.txt"), []byte(v2Source), 0o644); err != nil {
		t.Fatal(err)
	}
	return tmp, in
}
