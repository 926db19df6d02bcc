package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// recordedGolden holds the rules extractor's recorded invoice-v2 answers,
// one "path<TAB>answer" line per fixture text, the path relative to
// extract/rules.
const recordedGolden = "../extract/rules/testdata/v2golden/answers.jsonl"

// recordedAnswers returns every recorded answer with the text it was made
// from, normalised as extract.Normalize does (which this package cannot
// import): no BOM, LF line ends, NFC.
func recordedAnswers(t testing.TB) [][2]string {
	t.Helper()
	f, err := os.Open(recordedGolden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		path, answer, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("%s: line without a tab: %.80q", recordedGolden, sc.Text())
		}
		raw, err := os.ReadFile(filepath.Join("../extract/rules", path))
		if errors.Is(err, fs.ErrNotExist) && strings.HasPrefix(path, "synth/") {
			continue // made in memory by the rules tests' generator
		}
		if err != nil {
			t.Fatal(err)
		}
		raw = bytes.TrimPrefix(raw, []byte("\uFEFF"))
		s := strings.ReplaceAll(string(raw), "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
		out = append(out, [2]string{answer, norm.NFC.String(s)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("only %d recorded answers in %s", len(out), recordedGolden)
	}
	return out
}

// TestRecordedAnswersAccepted: the recorded answers are what the rules
// extractor hands out, so the validator accepts nearly all of them; a
// loader that read the wrong texts would see them refused for evidence.
func TestRecordedAnswersAccepted(t *testing.T) {
	t.Parallel()
	rec := recordedAnswers(t)
	refused := 0
	for _, r := range rec {
		if _, err := v2.ValidateReviewable([]byte(r[0]), r[1]); err != nil {
			refused++
			t.Logf("refused: %v", err)
		}
	}
	if refused > 0 {
		t.Fatalf("%d of %d recorded answers refused", refused, len(rec))
	}
}

// TestRecordedEquivalent holds the validator to the frozen reference, and
// the value check to the byte check, on the recorded answers of every
// fixture text and on one-byte changes and truncations of them (every
// mutationStep-th offset, shifted per answer), under each kind of check.
func TestRecordedEquivalent(t *testing.T) {
	t.Parallel()
	mutations := []func(b []byte, i int) []byte{
		func(b []byte, i int) []byte { return b[:i] },
		func(b []byte, i int) []byte { return append(bytes.Clone(b[:i]), b[i+1:]...) },
		func(b []byte, i int) []byte { c := bytes.Clone(b); c[i] = '"'; return c },
		func(b []byte, i int) []byte { c := bytes.Clone(b); c[i] = '1'; return c },
		func(b []byte, i int) []byte { c := bytes.Clone(b); c[i] ^= 0x20; return c },
	}
	n, values := 0, 0
	for k, r := range recordedAnswers(t) {
		raw, source := []byte(r[0]), r[1]
		for _, flags := range []byte{0, 1, 0b110} {
			c, pruned := equivalenceChecks(v2, flags)
			src := source
			if pruned {
				src = ""
			}
			sameValidation(t, v2, raw, src, c)
			n++
		}
		for i := k % mutationStep; i < len(raw); i += mutationStep {
			for _, m := range mutations {
				b := m(raw, i)
				sameValidation(t, v2, b, source, checks{})
				n++
				var doc InvoiceV2
				if json.Unmarshal(b, &doc) == nil {
					want := byteCheck(t, &doc, source)
					if got := CheckV2Reviewable(&doc, source); !reflect.DeepEqual(got, want) {
						t.Fatalf("%q: value check %v, byte check %v", b, got, want)
					}
					values++
				}
			}
		}
	}
	t.Logf("%d validations compared with the reference, %d value checks with the byte check", n, values)
}
