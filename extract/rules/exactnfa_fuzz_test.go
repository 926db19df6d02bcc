package rules

import (
	"reflect"
	"regexp"
	"testing"
)

// FuzzExactNFAMatchesRegexp holds every program that answers for a regexp
// (the anchored regexps' find, the guarded regexps' MatchString, the legal
// forms' search past a byte above 0x7f) to that regexp on any text: the corpus tests cover the lines we have, this the
// bytes an unseen document may hold (marks, invalid UTF-8, odd spacing),
// raw and folded.
func FuzzExactNFAMatchesRegexp(f *testing.F) {
	for _, s := range []string{
		"Rechnungsnummer: RE-24-00931", "invoice no. 4711", "TAX INVOICE", "nr. 7", "Facture n° F2024-0588",
		"UG (haftungsbeschränkt)", "Sàrl", "due date:\t31.03.2026", "\xc3(\xff", "k\u212a\u017fs", "", "  :",
	} {
		f.Add(s)
	}
	anchored := map[*regexp.Regexp]bool{}
	var starts []*startRE
	for _, x := range startREs {
		anchored[x.get().re] = true
		if x.get().exact != nil {
			starts = append(starts, x)
		}
	}
	var guards []*guardedRE
	for _, get := range guardedREs {
		if g := get(); g.prog() != nil && !anchored[g.Regexp] {
			guards = append(guards, g)
		}
	}
	if len(starts) == 0 || len(guards) == 0 {
		f.Fatalf("%d anchored and %d guarded regexps with a program: nothing to hold", len(starts), len(guards))
	}
	legal := reLegalForm.tables().Regexp
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := reLegalForm.FindAllStringIndex(text, -1), legal.FindAllStringIndex(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("legal forms in %q: %v, regexp %v", text, got, want)
		}
		for _, s := range []string{text, foldString(text)} {
			for _, x := range starts {
				want := x.get().re.FindStringIndex(s)
				a, b, ok := x.find(s)
				if ok != (want != nil) || ok && (a != want[0] || b != want[1]) {
					t.Fatalf("%s on %q: find %d %d %v, regexp %v", x.get().re, s, a, b, ok, want)
				}
			}
			for _, g := range guards {
				if got, want := g.MatchString(s), g.Regexp.MatchString(s); got != want {
					t.Fatalf("%s on %q: MatchString %v, regexp %v", g.Regexp, s, got, want)
				}
			}
		}
	})
}
