package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// matchTexts returns folded lines of the fixtures and dev texts plus
// strings built to hit every step kind's edges.
func matchTexts(t *testing.T) []string {
	t.Helper()
	out := []string{
		"invoice no. 7", "invoice no .7", "invoice no.7", "inv.#12", "p. o. no", "p.o.no", "p o nr",
		"re.-nr 5", "re - nr", "re--/ nr", "n' de facture", "n de  facture", "montant de l avoir",
		"total\n\tdue", "total  due", "totaldue", "subtotal", "sub-total", "sub / total", "c/f", "c f",
		"§ 13b", "§13b ustg", "ritenuta d'acconto", "ritenuta d acconto", "a", "", " ", ".", "invoice",
		"Invoice No", "e-maii", "vat reg.", "vat reg. no", "cap. soc.", "p.iva:", "p. iva", "t.n.v.",
		"Ã\u0083 total", "\xc3\x83", "\xc2\xa7 13b", "tax-exempt", "tax - exempt", "art. 17-ter",
	}
	var files []string
	for _, pat := range []string{fixtureDir + "/*.txt", fixtureDir + "/*/*.txt", "testdata/dev/*.txt"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatalf("glob %s: %v", pat, err)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		d := newDocument(normalizeText(b))
		out = append(out, d.ftext)
		for _, ln := range d.lines {
			out = append(out, ln.f.s)
		}
	}
	return raceSample(out)
}

// TestPhraseProgMatchesRegexp checks the byte-level phrase matcher against
// the regular expression phraseRE writes, anchored at every position of
// real and edge-case texts: the two must agree on every match end.
func TestPhraseProgMatchesRegexp(t *testing.T) {
	t.Parallel()
	var phrases []string
	for _, l := range [][]string{allPhrases(), customerBlockPhrases, supplierBlockPhrases, bankBlockPhrases, dueDateStrongPhrases} {
		phrases = append(phrases, l...)
	}
	// Dots, apostrophes and spaces around phrase words, in every order:
	// the optional steps (stepDotOpt, stepDotWord, stepApos) are walked
	// without the position sets where a literal follows them.
	parts := []string{"inv", "no", "n", "de", "vat", "reg", "p", "o", "art", "s", "l", "acconto", "facture",
		".", " ", "'", "\t", "  ", " .", ". ", "x", "#", "-", "_", "é"}
	texts := append(matchTexts(t), scannerTexts(nil, parts, 31, 4000)...)
	var pos, next [16]int
	checked := 0
	for _, p := range phrases {
		f := foldString(strings.TrimSpace(p))
		if f == "" || strings.ContainsRune(" .-/'", rune(f[0])) {
			continue // such lexicons keep the full expression
		}
		re := longest(`^(?:` + strings.TrimPrefix(phraseRE(p), `\b`) + `)`)
		prog := compilePhrase(p)
		for _, text := range texts {
			for s := 0; s < len(text); s++ {
				if text[s] != f[0] {
					continue
				}
				want := -1
				if m := re.FindStringIndex(text[s:]); m != nil {
					want = m[1]
				}
				if got := prog.longestAt(text[s:], pos[:0], next[:0]); got != want {
					t.Fatalf("phrase %q on %q at %d: matcher ends at %d, regexp at %d", p, text, s, got, want)
				}
				checked++
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d positions checked", checked)
	}
}

// TestLegalFormPrefilter checks reLegalForm's literal-prefix search against
// its full expression on every raw line of the fixtures and dev texts and
// on case and Unicode-folding edge cases.
func TestLegalFormPrefilter(t *testing.T) {
	t.Parallel()
	lines := []string{"ACME GMBH & CO. KG", "Foo S. à r.l.", "Bar SARL", "Baz Co.,Ltd", "Qux PTY LTD",
		"Kelvin \u212aft", "ſarl", "Sp. z o.o.", "A/S", "a / s", "x&co.", "Oy Ab", "UG (haftungsbeschränkt)",
		"ltda.", "e.K.", "S.p.A.", "inc", "INC.", "Srl", "SRl", ""}
	for _, text := range globTexts(t, fixtureDir+"/*.txt", fixtureDir+"/*/*.txt", "testdata/dev/*.txt") {
		lines = append(lines, strings.Split(text, "\n")...)
	}
	full := reLegalForm.tables().Regexp
	hits := 0
	for _, ln := range lines {
		want := full.FindAllStringIndex(ln, -1)
		got := reLegalForm.FindAllStringIndex(ln, -1)
		if len(want) != len(got) {
			t.Fatalf("%q: got %v, want %v", ln, got, want)
		}
		for i := range want {
			if want[i][0] != got[i][0] || want[i][1] != got[i][1] {
				t.Fatalf("%q: got %v, want %v", ln, got, want)
			}
		}
		hits += len(want)
	}
	if hits < 50 {
		t.Fatalf("only %d legal forms found; the comparison proves little", hits)
	}
}

// TestLexiconSearchMatchesRegexp holds every lexicon's search (prefilter,
// phrase groups, byte-level matcher) to its full leftmost-longest
// expression, on whole folded documents and on each of their lines.
func TestLexiconSearchMatchesRegexp(t *testing.T) {
	t.Parallel()
	texts := matchTexts(t)
	if len(lexicons) < 30 {
		t.Fatalf("only %d lexicons registered", len(lexicons))
	}
	// Whole documents are slow under the full expressions: a few of them
	// cover phrases that run across lines.
	// Distinct lines only, and every third of them, keep it to seconds.
	var short []string
	long, seen := 0, map[string]bool{}
	for i, text := range texts {
		if len(text) > 400 {
			if long++; long > 8 {
				continue
			}
		} else if seen[text] || i%3 != 0 && i > 60 {
			continue
		}
		seen[text] = true
		short = append(short, text)
	}
	hits := 0
	for li, lx := range lexicons {
		tb := lx.tables()
		for _, text := range short {
			want := tb.re().FindAllStringIndex(text, -1)
			got := tb.FindAllStringIndex(text, -1)
			if len(want) != len(got) {
				t.Fatalf("lexicon %d on %q: got %v, want %v", li, text, got, want)
			}
			for i := range want {
				if want[i][0] != got[i][0] || want[i][1] != got[i][1] {
					t.Fatalf("lexicon %d on %q: got %v, want %v", li, text, got, want)
				}
			}
			hits += len(want)
		}
	}
	if hits < atLeast(1000) {
		t.Fatalf("only %d matches; the comparison proves little", hits)
	}
}

// TestStartRESkipsOnlyNonMatches holds every first-byte filtered regexp to
// its plain regexp on folded lines, their cells and edge cases.
func TestStartRESkipsOnlyNonMatches(t *testing.T) {
	t.Parallel()
	texts := append(matchTexts(t), "", " ", "\tcredit note", "  gutschrift", "rechnung", "Rechnung", "ſales receipt",
		"\u212aassenbon", "objet : relance", "pro forma", "1. mahnung")
	if len(startREs) < 8 {
		t.Fatalf("only %d anchored regexps registered", len(startREs))
	}
	hits := 0
	for i, x := range startREs {
		tb := x.get()
		for _, text := range texts {
			want, got := tb.re.FindStringIndex(text), x.FindStringIndex(text)
			if (want == nil) != (got == nil) || want != nil && (want[0] != got[0] || want[1] != got[1]) {
				t.Fatalf("anchored regexp %d (%s) on %q: got %v, want %v", i, tb.re, text, got, want)
			}
			if want != nil {
				hits++
			}
		}
	}
	if hits < 5 {
		t.Fatalf("only %d matches; the comparison proves little", hits)
	}
}
