package rules

import (
	"strings"
	"testing"
)

// TestBankWordMayHoldsEveryMatch writes each of reBankWord's words in
// several cases, accents and neighbours and holds bankWordMay to saying
// yes wherever the regexp matches; the guarded-regexp equivalence test
// holds it over the corpus.
func TestBankWordMayHoldsEveryMatch(t *testing.T) {
	t.Parallel()
	body := bankWordSrc[strings.Index(bankWordSrc, "(?:")+3 : strings.LastIndex(bankWordSrc, ")")]
	re := reBankWord().Regexp
	matched := 0
	for _, w := range strings.Split(body, "|") {
		w = strings.ReplaceAll(w, `\w*`, "")
		for _, acc := range []string{"e", "é", "É"} {
			word := strings.ReplaceAll(w, "[ée]", acc)
			for _, form := range []string{word, strings.ToUpper(word), strings.ToUpper(word[:1]) + word[1:],
				strings.ReplaceAll(word, "k", "\u212a"), strings.ReplaceAll(word, "s", "\u017f")} {
				for _, s := range []string{form, "x " + form + " y", "(" + form + ")", "é" + form, "1" + form, form + "x"} {
					want := re.MatchString(s)
					if want {
						matched++
					}
					if want && !bankWordMay(s) {
						t.Fatalf("bankWordMay(%q) = false, reBankWord matches", s)
					}
				}
			}
		}
	}
	if matched < 200 {
		t.Fatalf("only %d texts match: the test would prove little", matched)
	}
	for _, s := range []string{"Global Trading Sdn Bhd", "ACME GmbH", "Shipping & Handling"} {
		if bankWordMay(s) {
			t.Errorf("bankWordMay(%q) = true: the guard lets a plain name through", s)
		}
	}
}

// TestBankWordInMatchesRegexp holds bankWordIn to reBankWord's regexp
// wherever it answers (ASCII text), and to answering on every ASCII text:
// on the corpus lines in three cases, their cells, and random texts of bank
// words, their pieces, word bytes and separators.
func TestBankWordInMatchesRegexp(t *testing.T) {
	t.Parallel()
	re := reBankWord().Regexp
	var texts []string
	for _, ln := range equivLines(t, true, 3000) {
		texts = append(texts, ln)
		for _, c := range splitCells(ln) {
			texts = append(texts, ln[c.start:c.end])
		}
	}
	parts := []string{" ", "  ", "x", "S", "_", "1", "-", "'", "(", ".", "é", "É", "\u212a", "\u017f", "e", "E"}
	body := bankWordSrc[strings.Index(bankWordSrc, "(?:")+3 : strings.LastIndex(bankWordSrc, ")")]
	for _, w := range strings.Split(body, "|") {
		w = strings.ReplaceAll(strings.ReplaceAll(w, `\w*`, ""), "[ée]", "e")
		parts = append(parts, w, strings.ToUpper(w), w[:len(w)/2+1], w[len(w)/2:])
	}
	texts = scannerTexts(texts, parts, 41, 60000)
	matched, answered := 0, 0
	for _, s := range texts {
		got, ok := bankWordIn(s)
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < 0x80
		}
		if ok != ascii {
			t.Fatalf("bankWordIn(%q): ok %v on a text that is ASCII: %v", s, ok, ascii)
		}
		if !ok {
			continue
		}
		answered++
		want := re.MatchString(s)
		if got != want {
			t.Fatalf("bankWordIn(%q) = %v, reBankWord says %v", s, got, want)
		}
		if want {
			matched++
		}
		if g := reBankWord().MatchString(s); g != want {
			t.Fatalf("reBankWord().MatchString(%q) = %v, the regexp says %v", s, g, want)
		}
	}
	if matched < atLeast(5000) || answered < atLeast(50000) {
		t.Fatalf("%d texts answered, %d matched: the comparison proves little", answered, matched)
	}
}
