package rules

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/invx/invx/extract"
)

// fixtureDir is the shared fixture suite, written independently of this
// package; its accuracy floor is enforced by the fixtures package.
const fixtureDir = "../../fixtures/invoices"

// normalizeText is the pipeline's normalisation, so tests see what the
// provider sees in a run.
func normalizeText(b []byte) string {
	s, err := extract.Normalize(b)
	if err != nil {
		panic(err)
	}
	return s
}

// compareName folds a supplier name for comparison: case, punctuation and a
// trailing legal form do not count (the eval package scores the same way).
func compareName(s string) string {
	var b []rune
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b = append(b, r)
		case r == '.' || r == ',' || r == '\'' || r == '-' || r == '&':
		default:
			b = append(b, ' ')
		}
	}
	words := strings.Fields(string(b))
	for len(words) > 1 && testLegalForms[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ")
}

var testLegalForms = map[string]bool{
	"gmbh": true, "ag": true, "kg": true, "sa": true, "sl": true, "sas": true, "sarl": true, "bv": true, "nv": true,
	"srl": true, "spa": true, "ltd": true, "limited": true, "llc": true, "inc": true, "corp": true, "plc": true,
	"ab": true, "aps": true, "as": true, "oy": true, "co": true, "ug": true, "ek": true, "spzoo": true, "wll": true, "kk": true,
}

// raceStride is how much the regexp equivalence tests thin their corpora
// under the race detector, which slows regular-expression matching about
// tenfold: every raceStride-th text is compared there, every text in a
// plain run (.ci/run runs them plainly too).
const raceStride = 8

// raceSample is xs, or about one in raceStride of its elements under
// -race. A text is kept by a hash of its content, not its place: picked
// by place, every fixture added moved the sample of all later texts, and
// the size floors of the comparisons failed at random (once 0 texts with
// a web address, once 2,443 lexicon matches for a floor of 2,500).
func raceSample[T any](xs []T) []T {
	if !raceOn {
		return xs
	}
	var out []T
	for i, x := range xs {
		if s, ok := any(x).(string); ok {
			h := fnv.New32a()
			h.Write([]byte(s))
			if h.Sum32()%raceStride == 0 {
				out = append(out, x)
			}
			continue
		}
		if i%raceStride == 0 {
			out = append(out, x)
		}
	}
	return out
}

// atLeast is a "the comparison proves something" floor, scaled down with
// the corpus under -race.
func atLeast(n int) int {
	if raceOn {
		return n / raceStride
	}
	return n
}

// globTexts reads the files the patterns match, normalised as a run would
// see them; a pattern that matches nothing adds nothing (the dev set is
// not on every machine).
func globTexts(t testing.TB, pats ...string) []string {
	t.Helper()
	var texts []string
	for _, pat := range pats {
		files, err := filepath.Glob(pat)
		if err != nil {
			t.Fatalf("glob %s: %v", pat, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
			texts = append(texts, normalizeText(b))
		}
	}
	return texts
}
