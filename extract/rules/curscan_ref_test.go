package rules

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// scanCurrenciesRef is scanCurrencies as it was before it passed over the
// inside of words at once.
func scanCurrenciesRef(raw string) []curHit {
	var hits []curHit
	byFirst := &symbolsByFirst().byFirst
	for i := 0; i < len(raw); {
		// ISO code: a run of exactly three upper-case ASCII letters.
		// Inside a word (an ASCII letter before) without decoding the rune.
		if isASCIILetter(raw[i]) && !(i > 0 && isASCIILetter(raw[i-1])) && !unicode.IsLetter(runeBefore(raw, i)) {
			j := i
			for j < len(raw) && isASCIILetter(raw[j]) {
				j++
			}
			if j-i == 3 && !unicode.IsLetter(runeAt(raw, j)) {
				w := raw[i:j]
				if _, ok := currencyExponent(w); ok {
					if identTail(raw, j) {
						i = j
						continue
					}
					forms, legal := legalFormCodes[w]
					if legal && (afterWord(raw, i, forms) || !moneyBeside(raw, i, j)) {
						i = j
						continue
					}
					if wordCodes[w] && inPhrase(raw, i, j) && !afterWord(raw, i, statingWords) {
						// "BLUE PEN 2.50", "TOP UP 10.00": one space between it and
						// another word makes a word code part of a phrase, not a
						// currency.
						i = j
						continue
					}
					hits = append(hits, curHit{i, j, w, wordCodes[w] || legal})
					i = j
					continue
				}
				// "100 eur": a common code in lower case, next to a number.
				if up := strings.ToUpper(w); lowerCodes[up] && w == strings.ToLower(w) &&
					(isDigit(byteAt(raw, i-1)) || isDigit(byteAt(raw, i-2)) || isDigit(byteAt(raw, j)) || isDigit(byteAt(raw, j+1))) {
					hits = append(hits, curHit{i, j, up, true})
					i = j
					continue
				}
			}
		}
		matched := false
		for _, k := range byFirst[raw[i]] {
			s := symbols[k]
			if !strings.HasPrefix(raw[i:], s.text) {
				continue
			}
			end := i + len(s.text)
			first, _ := utf8.DecodeRuneInString(s.text)
			last, _ := utf8.DecodeLastRuneInString(s.text)
			if unicode.IsLetter(first) && unicode.IsLetter(runeBefore(raw, i)) {
				continue
			}
			if unicode.IsLetter(last) && unicode.IsLetter(runeAt(raw, end)) {
				continue
			}
			if s.code == "ZAR" && s.text == "R" {
				if !randBefore(raw, end) {
					continue
				}
				hits = append(hits, curHit{i, end, s.code, true})
				i = end
				matched = true
				break
			}
			weak := s.weak
			if weak && i > 0 && raw[i-1] == '(' && end < len(raw) && raw[end] == ')' {
				weak = false // "Total (KD)"
			}
			if weak && afterWord(raw, i, statingWords) {
				// "(AMOUNT IN RM)", "AMT(RM", "TOTAL RM INCLUDING GST": a
				// statement of the currency right after the amount's label.
				weak = false
			}
			if weak && s.code != famSR && columnCurrency(raw, i, end) {
				// ("SR" ending a line is a GST tax code far more often.)
				weak = false
			}
			hits = append(hits, curHit{i, end, s.code, weak})
			i = end
			matched = true
			break
		}
		if !matched {
			if raw[i] < utf8.RuneSelf {
				i++
				continue
			}
			_, w := utf8.DecodeRuneInString(raw[i:])
			i += w
		}
	}
	return hits
}

// TestScanCurrenciesMatchesReference holds scanCurrencies to the reference
// over the corpus lines and random ones.
func TestScanCurrenciesMatchesReference(t *testing.T) {
	t.Parallel()
	found := 0
	for _, s := range equivLines(t, true, 5000) {
		got, want := scanCurrencies(s), scanCurrenciesRef(s)
		if !slices.Equal(got, want) {
			t.Fatalf("scanCurrencies(%q) = %+v, want %+v", s, got, want)
		}
		found += len(want)
	}
	if found < 500 {
		t.Fatalf("only %d currencies found: the test would prove little", found)
	}
}

// TestRandBefore: "R" is the rand only right before an amount with cents.
func TestRandBefore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"Total   R 40,020.00", true},
		{"Total   R18,900.00", true},
		{"VAT 15%  R 5 220.00", true},
		{"Row R 12", false},         // no cents
		{"Grade R learners", false}, // no amount
		{"130.00 R", false},         // a tax code after the amount
		{"R 12.5", false},
		{"R 2026-11-19", false},
	} {
		i := strings.Index(tc.line, "R")
		if got := randBefore(tc.line, i+1); got != tc.want {
			t.Errorf("randBefore(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
