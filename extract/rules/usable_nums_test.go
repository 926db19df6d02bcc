package rules

import (
	"math/rand"
	"path/filepath"
	"slices"
	"testing"
)

// usableNumsRef is usableNums as it was before it returned the line's own
// numbers when it kept them all: a fresh slice of the usable ones.
func usableNumsRef(ln *line, absorbF [][]int) []amountTok {
	var out []amountTok
	for _, t := range ln.nums {
		if t.percent {
			continue
		}
		skip := false
		for _, dh := range ln.dateHits() {
			s, e := ln.f.rawSpan(dh.start, dh.end)
			if t.numStart < e && t.numEnd > s {
				skip = true
				break
			}
		}
		for _, a := range absorbF {
			s, e := ln.f.rawSpan(a[0], a[1])
			if t.numStart >= s && t.numEnd <= e {
				skip = true
				break
			}
		}
		if !skip {
			out = append(out, t)
		}
	}
	return out
}

// TestUsableNumsMatchesReference holds usableNums to the reference on every
// line of the fixtures, development texts, the local dev set (when present)
// and seeded synthetic invoices, without absorbed spans and with random
// ones, including nil-ness (an empty answer is nil) and a capped result.
func TestUsableNumsMatchesReference(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, pat := range []string{"../../fixtures/*/*.txt", "../../fixtures/*/*/*.txt", "testdata/dev/*.txt",
		"/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt"} {
		texts = append(texts, globTexts(t, filepath.FromSlash(pat))...)
	}
	r := rand.New(rand.NewSource(7))
	for range 200 {
		text, _ := synthInvoice(r)
		texts = append(texts, text)
	}
	texts = raceSample(texts)
	if len(texts) < atLeast(300) {
		t.Fatalf("only %d texts; the comparison would prove little", len(texts))
	}
	lines, dropped := 0, 0
	for _, text := range texts {
		d := newDocument(text)
		for _, ln := range d.lines {
			absorbs := [][][]int{nil}
			if n := len(ln.f.s); n > 0 {
				a := r.Intn(n)
				absorbs = append(absorbs, [][]int{{a, a + r.Intn(n-a+1)}}, [][]int{{0, n}})
			}
			for _, ab := range absorbs {
				got, want := usableNums(ln, ab), usableNumsRef(ln, ab)
				if !slices.Equal(got, want) || (got == nil) != (want == nil) {
					t.Fatalf("usableNums(%q, %v) = %+v, want %+v", ln.raw, ab, got, want)
				}
				if cap(got) > len(got) && len(got) == len(ln.nums) {
					t.Fatalf("usableNums(%q) returned the line's numbers uncapped: an append would write into them", ln.raw)
				}
				if len(want) < len(ln.nums) {
					dropped++
				}
			}
			lines++
		}
	}
	if lines < atLeast(5000) || dropped < atLeast(500) {
		t.Fatalf("only %d lines, %d with numbers left out: the test would prove little", lines, dropped)
	}
}
