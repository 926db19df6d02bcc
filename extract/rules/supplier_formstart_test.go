package rules

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// formStartLines are the corpus lines in three cases and random lines of
// legal-form pieces glued to letters, digits, dots, dashes, "@" and
// accented letters, so that forms start inside words as well as at their
// starts.
func formStartLines(t *testing.T) []string {
	t.Helper()
	parts := []string{" ", "  ", ".", "-", "@", "&", "(", ")", ",", "|", "\t", "Co", "co.", "KG", "kgaa", "GmbH", "gmbh", "Sdn",
		"SDN Bhd", "bhd", "S", "A", "s.a.", "SA", "Ltd", "LTD", "ltd.", "Inc", "inc.", "LLC", "Pte", "AG", "Oy", "BV", "SpA",
		"srl", "ſ", "K", "é", "á", "ß", "x", "1", "Acme", "über"}
	return scannerTexts(equivLines(t, true, 3000), parts, 41, 10000)
}

// TestStartsAtMatchesFindRef holds startsAt at every offset to findRef:
// a match starts at i exactly when findRef from i finds one there, with
// the same end.
func TestStartsAtMatchesFindRef(t *testing.T) {
	t.Parallel()
	x := reLegalForm.tables()
	found := 0
	for _, s := range formStartLines(t) {
		for i := 0; i < len(s); {
			a, b, ok := x.findRef(s, i)
			if !ok {
				a = len(s)
			}
			for ; i < a; i++ {
				if end, got := x.startsAt(s, i); got {
					t.Fatalf("startsAt(%q, %d) = %d, true; findRef from there finds none before %d", s, i, end, a)
				}
			}
			if !ok {
				break
			}
			if end, got := x.startsAt(s, a); !got || end != b {
				t.Fatalf("startsAt(%q, %d) = %d %v, want %d true", s, a, end, got, b)
			}
			found++
			i = a + 1
		}
	}
	if found < atLeast(20000) {
		t.Fatalf("only %d matches: the comparison proves little", found)
	}
}

// formAtWordStartRef is formAtWordStart by its definition: a match at some
// offset whose rune before passes legalNamesMemo's boundary test; starts
// are the offsets where a match starts (formStarts).
func formAtWordStartRef(s string, starts []int) bool {
	for _, i := range starts {
		if b := runeBefore(s, i); !(unicode.IsLetter(b) || unicode.IsDigit(b) || b == '.' || b == '-' || b == '@') {
			return true
		}
	}
	return false
}

// formStarts lists the offsets of s where a legal-form match starts, by
// findRef from each offset past the last one found.
func formStarts(s string) []int {
	x := reLegalForm.tables()
	var out []int
	for i := 0; i < len(s); {
		a, _, ok := x.findRef(s, i)
		if !ok {
			break
		}
		out = append(out, a)
		i = a + 1
	}
	return out
}

// hasLegalFormRef is hasLegalForm before its formAtWordStart test.
func hasLegalFormRef(s string) bool {
	return len(legalNamesIn(s, 0, len(s), reLegalForm.FindAllStringIndex(s, -1))) > 0
}

// TestLegalFormsOfKeepsNames holds formAtWordStart to its definition, and
// what scanCells and hasLegalForm read of a line's legal forms to the
// answers from the full list, on every line and cell of the corpus and on
// random lines: each cell's legal names, whether the first cell alone is a
// legal form on a line with one, and hasLegalForm of the line, each cell
// and, on lines up to 80 bytes, the line's rest after each blank.
func TestLegalFormsOfKeepsNames(t *testing.T) {
	t.Parallel()
	skipped, named, wordStart := 0, 0, 0
	for _, s := range formStartLines(t) {
		ws := formAtWordStart(s)
		if ref := formAtWordStartRef(s, formStarts(s)); ws != ref {
			t.Fatalf("formAtWordStart(%q) = %v, want %v", s, ws, ref)
		}
		if ws {
			wordStart++
		}
		all := reLegalForm.FindAllStringIndex(s, -1)
		forms := legalFormsOf(s)
		if forms != nil && !slices.EqualFunc(forms, all, slices.Equal) {
			t.Fatalf("legalFormsOf(%q) = %v, want nil or %v", s, forms, all)
		}
		if forms == nil && len(all) > 0 {
			skipped++
		}
		cells := splitCells(s)
		for k, c := range cells {
			want := legalNamesMemo(nil, s, c.start, c.end, all)
			got := legalNamesMemo(nil, s, c.start, c.end, forms)
			if !slices.Equal(got, want) {
				t.Fatalf("legalNamesMemo(%q, cell %d) = %q with legalFormsOf, %q with every match", s, k, got, want)
			}
			named += len(want)
			cellRaw := s[c.start:c.end]
			if k == 0 {
				tr := strings.TrimSpace(cellRaw)
				if w, g := len(all) > 0 && legalFormOnly(tr), len(forms) > 0 && legalFormOnly(tr); g != w {
					t.Fatalf("%q: first cell a legal form alone: %v with legalFormsOf, %v with every match", s, g, w)
				}
			}
			if got, want := hasLegalForm(cellRaw), hasLegalFormRef(cellRaw); got != want {
				t.Fatalf("hasLegalForm(%q) = %v, want %v", cellRaw, got, want)
			}
		}
		for i := 0; i <= len(s) && len(s) <= 80; i++ {
			if i > 0 && s[i-1] != ' ' {
				continue
			}
			if got, want := hasLegalForm(s[i:]), hasLegalFormRef(s[i:]); got != want {
				t.Fatalf("hasLegalForm(%q) = %v, want %v", s[i:], got, want)
			}
		}
	}
	t.Logf("%d lines with a form at a word start, %d with forms inside words only, %d names", wordStart, skipped, named)
	if skipped < atLeast(800) || named < atLeast(160) || wordStart < atLeast(1600) {
		t.Fatalf("%d lines passed over, %d names, %d lines with a form at a word start: the comparison proves little",
			skipped, named, wordStart)
	}
}

// TestHasLegalFormMemoMatches runs the supplier scan's line step on every
// text of the corpus, so its name memo holds the document's names, then
// holds hasLegalFormMemo through that memo to hasLegalForm on each line's
// first cell and trimmed text, and shopBelowPersonMemo to shopBelowPerson
// on each line with its first cell's name, as scanHeader asks them.
func TestHasLegalFormMemoMatches(t *testing.T) {
	t.Parallel()
	legal, shops := 0, 0
	for _, text := range selfCheckTexts(t) {
		d := newDocument(text)
		s := &supplierScan{d: d, regs: d.regions(), customers: map[string]int{}, cands: map[string]*supCand{}}
		s.scanLines()
		for i, ln := range d.lines {
			if len(ln.cells) == 0 {
				continue
			}
			first := cutName(ln.raw[ln.cells[0].start:ln.cells[0].end])
			for _, x := range []string{first, strings.TrimSpace(ln.raw)} {
				want := hasLegalForm(x)
				if got := hasLegalFormMemo(&s.names, x); got != want {
					t.Fatalf("hasLegalFormMemo(%q) = %v through the scan's memo, hasLegalForm says %v", x, got, want)
				}
				if want {
					legal++
				}
			}
			wj, wn := d.shopBelowPerson(i, first)
			if gj, gn := d.shopBelowPersonMemo(&s.names, i, first); gj != wj || gn != wn {
				t.Fatalf("shopBelowPersonMemo(%d, %q) = %d %q, shopBelowPerson says %d %q", i, first, gj, gn, wj, wn)
			}
			if wj >= 0 {
				shops++
			}
		}
		d.release()
	}
	t.Logf("%d texts with a legal name, %d shops below a person", legal, shops)
	if legal < atLeast(800) || shops < atLeast(6) {
		t.Fatalf("%d legal names, %d shops: the comparison proves little", legal, shops)
	}
}
