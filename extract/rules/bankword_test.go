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
