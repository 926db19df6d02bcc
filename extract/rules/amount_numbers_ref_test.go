package rules

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// appendNumbersRef is appendNumbers as it was before it passed over ASCII
// bytes that are no digit without decoding them.
func appendNumbersRef(out []amountTok, raw string, curs []curHit) []amountTok {
	curEndAt := func(i int) bool {
		for _, c := range curs {
			if c.end == i || c.end < i && i-c.end <= 3 && strings.TrimSpace(raw[c.end:i]) == "" {
				return true
			}
		}
		return false
	}
	curStartAt := func(j int) bool {
		for _, c := range curs {
			if c.start == j || c.start > j && c.start-j <= 3 && strings.TrimSpace(raw[j:c.start]) == "" {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(raw); {
		if !isDigit(raw[i]) {
			_, w := utf8.DecodeRuneInString(raw[i:])
			i += w
			continue
		}
		start := i
		j := i
		groupLen := 0
		for j < len(raw) {
			if isDigit(raw[j]) {
				j++
				groupLen++
				continue
			}
			r, w := utf8.DecodeRuneInString(raw[j:])
			k := separatorKind(r)
			if k == sepNone || j+w >= len(raw) || !isDigit(raw[j+w]) {
				break
			}
			if k == sepSpace || k == sepApos {
				// A space or apostrophe groups only full thousands.
				n := 0
				for j+w+n < len(raw) && isDigit(raw[j+w+n]) {
					n++
				}
				if n != 3 || groupLen > 3 {
					break
				}
			}
			j += w
			groupLen = 0
		}
		end := j
		i = j
		prev := runeBefore(raw, start)
		next := runeAt(raw, end)
		reject := false
		switch {
		case unicode.IsLetter(prev) && !curEndAt(start):
			reject = true
		case prev == '/' || prev == '#' || prev == '_' || prev == '\\' || prev == '@':
			reject = true
		case prev == ':' && isDigit(byteAt(raw, start-2)):
			reject = true // "10:30"
		case prev == '.' && start >= 2 && unicode.IsLetter(runeBefore(raw, start-1)) && !curEndAt(start):
			reject = true
		case prev == '-' || prev == '–':
			p2 := runeBefore(raw, start-utf8.RuneLen(prev))
			if unicode.IsLetter(p2) || unicode.IsDigit(p2) {
				reject = true
			}
		}
		switch {
		case unicode.IsLetter(next) && !curStartAt(end):
			reject = true
		case next == '/' || next == ':' || next == '_' || next == '@':
			if isDigit(byteAt(raw, end+1)) {
				reject = true
			}
		case next == '-' || next == '.' || next == ',':
			if isDigit(byteAt(raw, end+1)) {
				reject = true
			}
		}
		if reject {
			continue
		}
		if _, _, ok := parseNumber(raw[start:end], 2, false); !ok {
			continue // "31.03.2026", "12,34,5"
		}
		tok := amountTok{start: start, end: end, numStart: start, numEnd: end}
		if raw[start] == '0' && end-start > 1 && !hasDecimalSep(raw[start:end]) {
			tok.code = true // "0417": a code, not an amount
		}
		// Percentages.
		rest := strings.TrimLeft(raw[end:], " \u00a0\u202f")
		if strings.HasPrefix(rest, "%") || strings.HasPrefix(rest, "‰") {
			tok.percent = true
		}
		// Sign: "-12.00", "- €12.00", "€ -12.00", "(12.00)", "12.00-".
		k := start
		for k > 0 {
			r := runeBefore(raw, k)
			if r == ' ' || r == '\u00a0' || r == '\u202f' {
				k -= utf8.RuneLen(r)
				continue
			}
			matched := false
			for _, c := range curs {
				if c.end == k {
					k = c.start
					matched = true
					break
				}
			}
			if matched {
				continue
			}
			if r == '-' || r == '−' || r == '–' || r == '(' {
				tok.neg = true
				tok.start = k - utf8.RuneLen(r)
			}
			break
		}
		if next == '-' || next == '−' || next == ')' {
			if !(next == '-' && isDigit(byteAt(raw, end+1))) {
				tok.neg = true
				tok.end = end + utf8.RuneLen(next)
			}
		}
		out = append(out, tok)
	}
	// Digit groups separated by single spaces with no decimals ("5390 0754
	// 7034", "+32 15 55 20 44") are account or phone numbers, not amounts.
	code := make([]bool, len(out))
	for k, t := range out {
		code[k] = t.code
	}
	for k := 0; k+1 < len(out); k++ {
		a, b := out[k], out[k+1]
		gap := raw[a.numEnd:b.numStart]
		if (gap == " " || gap == "\u00a0") && !hasDecimalSep(raw[a.numStart:a.numEnd]) && !a.percent {
			code[k], code[k+1] = true, true
		}
	}
	kept := out[:0]
	for k, t := range out {
		if !code[k] {
			kept = append(kept, t)
		}
	}
	return kept
}

// TestAppendNumbersMatchesReference holds appendNumbers to the reference,
// with each line's own currencies, on every corpus line in three cases and
// on random lines of digits, separators, signs, currencies and letters.
func TestAppendNumbersMatchesReference(t *testing.T) {
	t.Parallel()
	parts := []string{"1", "2", "0", "9", "12", "1.234,56", "1 234", "1'000", " ", "  ", ".", ",", "-", "–", "(", ")", "%", "‰",
		"/", ":", "#", "_", "@", "\u00a0", "\u202f", "€", "$", "EUR", "RM", "kr", "a", "é", "x", "Total", "\t"}
	lines := scannerTexts(equivLines(t, true, 3000), parts, 31, 50000)
	found := 0
	for _, s := range lines {
		curs := scanCurrencies(s)
		want, got := appendNumbersRef(nil, s, curs), appendNumbers(nil, s, curs)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("appendNumbers(%q) = %+v, reference %+v", s, got, want)
		}
		found += len(want)
	}
	if found < atLeast(20000) {
		t.Fatalf("only %d numbers: the comparison proves little", found)
	}
}
