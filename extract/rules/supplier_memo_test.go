package rules

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNameMemoMatchesNameBefore holds the supplier scan's name memo to
// legalNamesIn without it: one memo is shared by every line of the corpus
// (far more sharing than one document's), so a key that leaves out
// something nameBefore reads gives some line another line's name.
func TestNameMemoMatchesNameBefore(t *testing.T) {
	t.Parallel()
	lines := supplierTextLines(t)
	r := rand.New(rand.NewPCG(11, 12))
	var memo nameMemo
	calls, names := 0, 0
	check := func(raw string, s, e int, forms [][]int) {
		t.Helper()
		calls++
		want := legalNamesIn(raw, s, e, forms)
		got := legalNamesMemo(&memo, raw, s, e, forms)
		if !slices.Equal(got, want) {
			t.Fatalf("legalNamesMemo(%q, %d, %d) = %q, without the memo %q", raw, s, e, got, want)
		}
		names += len(want)
	}
	for _, ln := range lines {
		forms := reLegalForm.FindAllStringIndex(ln, -1)
		check(ln, 0, len(ln), forms)
		for _, c := range splitCells(ln) {
			check(ln, c.start, c.end, forms)
		}
		if len(ln) > 2 {
			// Random spans, as TestNameBeforeMatchesReference cuts them:
			// the same segment with its form starting elsewhere.
			fs := r.IntN(len(ln))
			fe := fs + r.IntN(len(ln)-fs+1)
			for _, cut := range []int{fs, max(0, fs-1), fs + (fe-fs)/2} {
				calls++
				n, ok := memo.nameBefore(ln, cut, fe)
				wn, _, wok := nameBefore(ln, cut, fe)
				if n != wn || ok != wok {
					t.Fatalf("memo.nameBefore(%q, %d, %d) = %q %v, nameBefore says %q %v", ln, cut, fe, n, ok, wn, wok)
				}
			}
		}
		if len(ln) > 2 && len(forms) > 0 {
			// The same line with a prefix that moves every form and may
			// turn the text before a segment from blank to not blank.
			p := []string{"  ", "BY ", "x ", "\t", "Owned by "}[r.IntN(5)]
			shifted := p + ln
			check(shifted, 0, len(shifted), reLegalForm.FindAllStringIndex(shifted, -1))
		}
	}
	if names < atLeast(2000) {
		t.Fatalf("only %d names in %d calls: the comparison proves little", names, calls)
	}
	if len(memo) >= calls {
		t.Fatalf("the memo holds %d answers for %d calls: nothing was answered from it", len(memo), calls)
	}
}

// TestSupplierShortcutsMatchReference holds titleOnly's first-byte filter
// and markLead's fast path to the forms they short-cut, on every line and
// cell of the corpus, folded and not.
func TestSupplierShortcutsMatchReference(t *testing.T) {
	t.Parallel()
	lines := supplierTextLines(t)
	titles := 0
	for k := range bareTitles {
		// Decorated and spaced titles, which the filter must let through.
		lines = append(lines, k, "* "+k+" *", strings.ReplaceAll(k, " ", "   "), "-"+strings.ToUpper(k)+"-", "• "+k, "#"+k)
	}
	for _, ln := range lines {
		texts := []string{ln, foldString(ln), strings.TrimSpace(ln)}
		for _, c := range splitCells(ln) {
			texts = append(texts, ln[c.start:c.end], foldString(ln[c.start:c.end]))
		}
		for _, s := range texts {
			if got, want := titleOnly(s), titleOnlyRef(s); got != want {
				t.Fatalf("titleOnly(%q) = %v, reference says %v", s, got, want)
			} else if got {
				titles++
			}
			if got, want := markLead(s), len(s)-len(trimLeftMarks(s, " *->#")); got != want {
				t.Fatalf("markLead(%q) = %d, trimLeftMarks says %d", s, got, want)
			}
		}
	}
	if titles < len(bareTitles) {
		t.Fatalf("only %d titles seen: the comparison proves little", titles)
	}
}

// titleOnlyRef is titleOnly before its first-byte filter.
func titleOnlyRef(cf string) bool {
	t := trimTitleMarks(cf)
	if len(t) < 5 || len(t) > 30 {
		return false
	}
	if bareTitles[t] {
		return true
	}
	return strings.Contains(t, "  ") && bareTitles[strings.Join(strings.Fields(t), " ")]
}

// TestSupplierMemoStaysInItsDocument extracts A, then B, then A again
// (the document pool reuses its buffers, and the supplier scan memoises
// names and segments): A's bytes must be the same both times.
func TestSupplierMemoStaysInItsDocument(t *testing.T) {
	t.Parallel()
	texts := corpus(t)
	keys := make([]string, 0, len(texts))
	for k := range texts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	keys = raceSample(keys)
	for i := 0; i+1 < len(keys); i += 2 {
		a, b := texts[keys[i]], texts[keys[i+1]]
		first := encodeBoth(t, a)
		encodeBoth(t, b)
		if again := encodeBoth(t, a); again != first {
			t.Fatalf("%s after %s: got\n%s\nwant\n%s", keys[i], keys[i+1], again, first)
		}
	}
}

// encodeBoth is the v1 and v2 answers to text, encoded.
func encodeBoth(t *testing.T, text string) string {
	t.Helper()
	b1, err1 := json.Marshal(Extract(text))
	b2, err2 := json.Marshal(ExtractV2(text))
	if err1 != nil || err2 != nil {
		t.Fatalf("encode: %v %v", err1, err2)
	}
	return string(b1) + "\n" + string(b2)
}

// TestLegalFormWideDeadMatchesRef holds the legal-form search, whose
// wideDead table turns a letter followed by a wide byte away before the
// NFA, to findRef (no such table; TestFirstByteFindMatchesRef holds findRef
// to the full regexp) on every line of the supplier corpus, random lines
// rich in accents and legal forms, and each opening byte before each wide
// rune.
func TestLegalFormWideDeadMatchesRef(t *testing.T) {
	t.Parallel()
	lines := supplierTextLines(t)
	x := reLegalForm.tables()
	ref := func(s string) [][]int {
		var out [][]int
		for pos := 0; ; {
			a, b, ok := x.findRef(s, pos)
			if !ok {
				return out
			}
			out, pos = append(out, []int{a, b}), b
		}
	}
	r := rand.New(rand.NewPCG(13, 14))
	wide := []string{"á", "é", "ä", "ß", "K", "ſ", "À", "Ä", "\u00a0", "\xff", "ı", "İ"}
	found := 0
	check := func(s string) {
		t.Helper()
		got, want := reLegalForm.FindAllStringIndex(s, -1), ref(s)
		if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
			t.Fatalf("reLegalForm.FindAllStringIndex(%q) = %v, findRef says %v", s, got, want)
		}
		found += len(want)
	}
	for _, ln := range lines {
		check(ln)
		if ln == "" {
			continue
		}
		k := r.IntN(len(ln))
		check(ln[:k] + wide[r.IntN(len(wide))] + ln[k:])
	}
	// Every opening byte, upper and lower, before every wide rune, alone
	// and inside a word.
	for c := byte(0); c < utf8.RuneSelf; c++ {
		for _, w := range wide {
			check(string(c) + w)
			check("x" + string(c) + w + "rl ")
			check(" " + string(c) + w + "rl GmbH")
		}
	}
	for _, s := range []string{"Sàrl", "sàrl x", "Acme SÀRL", "UG (haftungsbeschränkt)", "ug(haftungsbeschrAEnkt)", "GmbH", "gmbh"} {
		check(s)
	}
	if found < atLeast(5000) {
		t.Fatalf("only %d forms found: the comparison proves little", found)
	}
}
