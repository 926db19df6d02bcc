package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// symbolsByFirst holds the indexes of symbols by their first byte, in
// symbols' order: the first scanner tried every symbol at every byte of every
// line, a fifth of the extractor's time, though at most a handful share the
// byte in front of them. Built on first use from symbols itself, so a
// symbol added there is found here too.
var symbolsByFirst = onFirstUse(func() *curStarts {
	t := &curStarts{}
	for k, s := range symbols {
		if s.text == "" {
			continue
		}
		t.byFirst[s.text[0]] = append(t.byFirst[s.text[0]], k)
	}
	for c := range 256 {
		t.none[c] = c < utf8.RuneSelf && !isASCIILetter(byte(c)) && t.byFirst[c] == nil
		if c < utf8.RuneSelf && !isASCIILetter(byte(c)) && !t.none[c] {
			t.stops = append(t.stops, byte(c))
		}
	}
	return t
})

// curStarts is symbolsByFirst's table, with none marking the bytes that
// open neither a symbol nor a code (an ASCII byte that is no letter and no
// symbol's first): the scan passes over them with one load each, where the
// three tests they stand for cost a tenth of newDocument.
type curStarts struct {
	byFirst [256][]int
	none    [256]bool
	stops   []byte // the ASCII bytes no letter that open a symbol ("$")
}

// nextStart is the index of the first byte of s at or after i that is not
// none, or len(s): eight bytes at a time, as a letter, a byte that is not
// ASCII or one of stops.
func (t *curStarts) nextStart(s string, i int) int {
	if i < len(s) && !t.none[s[i]] {
		return i // one blank between words: no block to load
	}
	for ; i+8 <= len(s); i += 8 {
		x := load8(s, i)
		m := letterLanes(x) | x&lanes80
		if len(t.stops) == 1 {
			m |= byteLanes(x, t.stops[0]) // "$", the only one for now
		} else {
			for _, c := range t.stops {
				m |= byteLanes(x, c)
			}
		}
		if m != 0 {
			return i + firstLane(m)
		}
	}
	for i < len(s) && t.none[s[i]] {
		i++
	}
	return i
}

// scanCurrencies lists the currency codes and symbols of one raw line,
// with the symbol search indexed by first byte (it replaced a search that
// tried every symbol at every byte; TestScanCurrenciesMatchesFind proved
// the two equal on every fixture, development text and random line before
// the old one was removed).
// statingWords are the words after which a short symbol states the
// currency of the amount: "AMOUNT IN RM", "TOTAL RM".
var statingWords = []string{"in", "AMT(", "AMOUNT(", "TOTAL", "AMOUNT", "AMT"}

func scanCurrencies(raw string) []curHit { return appendCurrencies(nil, raw) }

// appendCurrencies is scanCurrencies appending to hits, which must be empty
// (newDocument passes the spare capacity of one buffer for all its lines;
// see claimTail).
func appendCurrencies(hits []curHit, raw string) []curHit {
	starts := symbolsByFirst()
	byFirst, none := &starts.byFirst, &starts.none
	for i := 0; i < len(raw); {
		if none[raw[i]] {
			// A digit, space or punctuation no symbol opens with (most
			// bytes that are not letters): nothing starts here, as the
			// tests below would find one at a time.
			i = starts.nextStart(raw, i+1)
			continue
		}
		if i > 0 && isASCIILetter(raw[i-1]) && isASCIILetter(raw[i]) {
			// Inside a word: no ISO code starts here, and every symbol
			// opening with a letter needs no letter before it. The rest
			// of the word is passed over at once (each of its letters
			// was tried against the symbols).
			for i < len(raw) && isASCIILetter(raw[i]) {
				i++
			}
			continue
		}
		// ISO code: a run of exactly three upper-case ASCII letters.
		// Inside a word (an ASCII letter before) without decoding the rune.
		wordEnd := 0 // where the run of ASCII letters from i ends, once read
		if isASCIILetter(raw[i]) && !(i > 0 && isASCIILetter(raw[i-1])) && !unicode.IsLetter(runeBefore(raw, i)) {
			j := i
			for j < len(raw) && isASCIILetter(raw[j]) {
				j++
			}
			wordEnd = j
			if j-i == 3 && !unicode.IsLetter(runeAt(raw, j)) {
				w := raw[i:j]
				if _, ok := currencyExponent(w); ok {
					if identTail(raw, j) {
						// Reason: a code glued to an identifier's digits and
						// letters is part of it, not a currency.
						i = j
						continue
					}
					forms, legal := legalFormCodes[w]
					if legal && (afterWord(raw, i, forms) || !moneyBeside(raw, i, j)) {
						i = j
						continue
					}
					word := wordCodes[w]
					if word && inPhrase(raw, i, j) && !afterWord(raw, i, statingWords) {
						// "BLUE PEN 2.50", "TOP UP 10.00": one space between it and
						// another word makes a word code part of a phrase, not a
						// currency.
						i = j
						continue
					}
					hits = append(hits, curHit{i, j, w, word || legal})
					i = j
					continue
				}
				// "100 eur": a common code in lower case, next to a number.
				// w is three ASCII letters: upper-cased on the stack, and
				// as a string only when it is taken (strings.ToUpper
				// allocated for every lower-case word).
				up := [3]byte{w[0] &^ 0x20, w[1] &^ 0x20, w[2] &^ 0x20}
				if isLowerASCII(w[0]) && isLowerASCII(w[1]) && isLowerASCII(w[2]) && lowerCodes[string(up[:])] &&
					(isDigit(byteAt(raw, i-1)) || isDigit(byteAt(raw, i-2)) || isDigit(byteAt(raw, j)) || isDigit(byteAt(raw, j+1))) {
					hits = append(hits, curHit{i, j, string(up[:]), true})
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
				// Never stated by a label or a column: only the amount
				// right after it makes the letter a currency.
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
			if wordEnd > i {
				// The rest of the word: each of its letters has one
				// before it, and the test for that above would pass it.
				i = wordEnd
				continue
			}
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

// randBefore reports whether the "R" ending at end stands right before an
// amount with decimals ("R 2,350.00", "R18900.00"): a lone capital is a
// row, grade or tax code everywhere else.
func randBefore(raw string, end int) bool {
	j := end
	if j < len(raw) && raw[j] == ' ' {
		j++
	}
	k := j
	for k < len(raw) && (isDigit(raw[k]) || raw[k] == ',' || raw[k] == '.' || raw[k] == ' ' && k+1 < len(raw) && isDigit(raw[k+1]) && k+4 <= len(raw)) {
		k++
	}
	if k == j || !isDigit(raw[j]) {
		return false
	}
	n := strings.TrimRight(raw[j:k], " ")
	return len(n) >= 4 && n[len(n)-3] == '.' && isDigit(n[len(n)-2]) && isDigit(n[len(n)-1]) && (k == len(raw) || !isASCIILetter(raw[k]))
}

// inPhrase reports whether the word raw[i:j] is one of a phrase of words:
// one space between it and a letter on either side ("BLUE PEN", "TOP UP"),
// not a column gap ("ITEM   PEN") and not a number ("PEN 2.50").
func inPhrase(raw string, i, j int) bool {
	before := i >= 2 && raw[i-1] == ' ' && unicode.IsLetter(runeBefore(raw, i-1))
	after := j+1 < len(raw) && raw[j] == ' ' && unicode.IsLetter(runeAt(raw, j+1))
	return before || after
}

func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }
