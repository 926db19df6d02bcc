package rules

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLineHasMatchesLexicon holds the line shortcuts (has, index, all) to the lexicon's own
// search on every lexicon and every line of the fixtures and dev texts.
func TestLineHasMatchesLexicon(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pat := range []string{fixtureDir + "/*.txt", fixtureDir + "/*/*.txt", "testdata/dev/*.txt", "/tmp/devset2/*/*.txt"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatalf("glob %s: %v", pat, err)
		}
		files = append(files, m...)
	}
	var lines []*line
	for _, f := range raceSample(files) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		lines = append(lines, newDocument(normalizeText(b)).lines...)
	}
	hits := 0
	for _, lx := range lexicons {
		for _, ln := range lines {
			want := lx.FindStringIndex(ln.f.s)
			if got := ln.index(lx); !slices.Equal(got, want) {
				t.Fatalf("%s on %q: index %v, FindStringIndex %v", lx.tables().re(), ln.f.s, got, want)
			}
			if got := ln.has(lx); got != (want != nil) {
				t.Fatalf("%s on %q: has %v, FindStringIndex %v", lx.tables().re(), ln.f.s, got, want)
			}
			if got, want := ln.all(lx), lx.FindAllStringIndex(ln.f.s, -1); !equalMatches(want, got) {
				t.Fatalf("%s on %q: all %v, FindAllStringIndex %v", lx.tables().re(), ln.f.s, got, want)
			}
			if want != nil {
				hits++
			}
		}
	}
	if hits < atLeast(8000) {
		t.Fatalf("only %d matches: the comparison proves little", hits)
	}
}

// TestLineNormIsNormName holds the line's memo, read off its folded text,
// to normName of its raw text on every line of the corpus.
func TestLineNormIsNormName(t *testing.T) {
	t.Parallel()
	n := 0
	for _, text := range equivLines(t, true, 2000) {
		for _, ln := range newDocument(text).lines {
			if got, want := ln.norm(), normName(ln.raw); got != want {
				t.Fatalf("%q: norm %q, normName %q", ln.raw, got, want)
			}
			n++
		}
	}
	if n < atLeast(10000) {
		t.Fatalf("only %d lines: the comparison proves little", n)
	}
}
