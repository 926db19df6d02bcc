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
	return out
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
	texts := matchTexts(t)
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
