package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxIntDigits bounds the integer part so that minor units fit an int64.
const maxIntDigits = 13

// sepKind classifies a character that may sit between digit groups.
type sepKind byte

const (
	sepNone  sepKind = 0
	sepComma sepKind = ','
	sepDot   sepKind = '.'
	sepSpace sepKind = ' '
	sepApos  sepKind = '\''
)

func separatorKind(r rune) sepKind {
	switch r {
	case ',':
		return sepComma
	case '.':
		return sepDot
	case ' ', '\u00a0', '\u202f', '\u2009', '\u2007':
		return sepSpace
	case '\'', '’', 'ʼ':
		return sepApos
	}
	return sepNone
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// parseNumber interprets a printed number (digits and separators only, no
// sign) as an amount in minor units of a currency with exponent exp. Whether
// a single "," or "." is a decimal or a thousands separator is decided from
// the digits after it and from the exponent: "1.250" is 1250 fils for a
// three-decimal currency (expKnown and exp == 3) and 1250 units otherwise.
// Only integer arithmetic is used. It reports whether a fraction was printed.
func parseNumber(tok string, exp int, expKnown bool) (minor int64, hasFrac bool, ok bool) {
	if minor, hasFrac, ok, done := parsePlainNumber(tok, exp); done {
		return minor, hasFrac, ok
	}
	return parseNumberGroups(tok, exp, expKnown)
}

// parsePlainNumber is parseNumber for the shapes most numbers have, "120",
// "120.50" and "1,234.50", with done false for every other: those need no
// group slices, separator kinds nor general grouping check, which were
// most of parseNumber's work, and readRow and the total readers parse
// every token again.
func parsePlainNumber(tok string, exp int) (minor int64, hasFrac bool, ok bool, done bool) {
	i := 0
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	if i == 0 {
		return 0, false, false, false
	}
	if i == len(tok) {
		minor, hasFrac, ok = plainMinor(tok, "", exp)
		return minor, hasFrac, ok, true
	}
	sep := tok[i]
	if sep != '.' && sep != ',' {
		return 0, false, false, false
	}
	intEnd := i
	if i <= 3 {
		// "1,234,567.50": thousands groups of one separator, then the
		// other one before the fraction.
		j := i
		for j+4 < len(tok) && tok[j] == sep && isDigit(tok[j+1]) && isDigit(tok[j+2]) && isDigit(tok[j+3]) {
			j += 4
		}
		if j > i && j < len(tok) && tok[j] != sep && (tok[j] == '.' || tok[j] == ',') {
			intEnd = j
		}
	}
	frac := tok[intEnd+1:]
	// A single separator before three digits may group thousands: that
	// depends on the exponent and the leading digits.
	if len(frac) == 0 || intEnd == i && len(frac) == 3 {
		return 0, false, false, false
	}
	for k := 0; k < len(frac); k++ {
		if !isDigit(frac[k]) {
			return 0, false, false, false
		}
	}
	minor, hasFrac, ok = plainMinor(tok[:intEnd], frac, exp)
	return minor, hasFrac, ok, true
}

// plainMinor is minorUnits for an integer part of digits and the
// separators between its groups, which it passes over.
func plainMinor(intPart, frac string, exp int) (minor int64, hasFrac bool, ok bool) {
	var v int64
	n := 0
	for i := 0; i < len(intPart); i++ {
		c := intPart[i]
		if !isDigit(c) || n == 0 && c == '0' {
			continue
		}
		if n++; n > maxIntDigits {
			return 0, false, false
		}
		v = v*10 + int64(c-'0')
	}
	return withFraction(v, frac, exp)
}

// parseNumberGroups is parseNumber for any shape.
func parseNumberGroups(tok string, exp int, expKnown bool) (minor int64, hasFrac bool, ok bool) {
	// The digit groups are cut from tok, in arrays on the stack for the
	// usual few: a builder and a string per group were a tenth of a
	// receipt's allocations.
	var groupArr [8]string
	var sepArr [8]sepKind
	groups, seps := groupArr[:0], sepArr[:0]
	start := 0 // of the current group
	for i := 0; i < len(tok); {
		r, w := rune(tok[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(tok[i:])
		}
		if r < '0' || r > '9' {
			k := separatorKind(r)
			if k == sepNone || i == start {
				return 0, false, false
			}
			groups = append(groups, tok[start:i])
			seps = append(seps, k)
			start = i + w
		}
		i += w
	}
	if start == len(tok) {
		return 0, false, false
	}
	groups = append(groups, tok[start:])

	intGroups := groups
	frac := ""
	if n := len(seps); n > 0 {
		last := seps[n-1]
		lastGroup := groups[n]
		decimal := false
		if last == sepComma || last == sepDot {
			same, other := false, false
			for _, s := range seps[:n-1] {
				if s == last {
					same = true
				} else {
					other = true
				}
			}
			switch {
			case same:
				// "1.234.567" groups; "1.234.56" is an OCR slip for 1234.56.
				decimal = len(lastGroup) != 3 && !other
			case other:
				decimal = true
			case len(lastGroup) != 3:
				decimal = true
			case strings.TrimLeft(groups[0], "0") == "":
				decimal = true
			case expKnown && exp == 3:
				decimal = true
			default:
				decimal = false
			}
		}
		if decimal {
			frac = lastGroup
			intGroups = groups[:n]
			seps = seps[:n-1]
		}
	}
	// Validate the thousands grouping of the integer part.
	if len(seps) > 0 {
		kind := seps[0]
		for _, s := range seps {
			if s != kind {
				return 0, false, false
			}
		}
		if len(intGroups[0]) > 3 {
			return 0, false, false
		}
		for i, g := range intGroups[1:] {
			lastInt := i == len(intGroups)-2
			switch {
			case len(g) == 3:
			case len(g) == 2 && !lastInt && kind == sepComma: // 1,23,456.00
			default:
				return 0, false, false
			}
		}
	}
	return minorUnits(intGroups, frac, exp)
}

// minorUnits is the amount printed as the integer part's digit groups and
// the fraction's digits, in minor units of exponent exp.
func minorUnits(intGroups []string, frac string, exp int) (minor int64, hasFrac bool, ok bool) {
	// The integer part's digits after its leading zeros, read across the
	// groups without joining them.
	var v int64
	n := 0
	for _, g := range intGroups {
		for i := 0; i < len(g); i++ {
			if n == 0 && g[i] == '0' {
				continue
			}
			if n++; n > maxIntDigits {
				return 0, false, false
			}
			v = v*10 + int64(g[i]-'0')
		}
	}
	return withFraction(v, frac, exp)
}

// withFraction is the integer part v with the fraction's digits, in minor
// units of exponent exp: padded, or rounded half up to exp digits.
func withFraction(v int64, frac string, exp int) (minor int64, hasFrac bool, ok bool) {
	if len(frac) > 6 {
		return 0, false, false
	}
	for i := 0; i < exp; i++ {
		v *= 10
	}
	var f int64
	for i := 0; i < exp; i++ {
		f *= 10
		if i < len(frac) {
			f += int64(frac[i] - '0')
		}
	}
	if len(frac) > exp && frac[exp] >= '5' {
		f++
	}
	return v + f, frac != "", true
}

// amountTok is a number printed in a raw line.
type amountTok struct {
	start, end       int // raw span including sign or parentheses
	numStart, numEnd int // the digits and separators
	neg              bool
	percent          bool
	code             bool // part of an account, phone or reference number
}

func (a amountTok) text(raw string) string { return raw[a.numStart:a.numEnd] }

// findNumbers lists the amount-like numbers of a raw line: not glued to
// letters (except currency symbols), not parts of dates, times, references or
// percentages (those are kept but flagged).
func findNumbers(raw string, curs []curHit) []amountTok { return appendNumbers(nil, raw, curs) }

// appendNumbers is findNumbers appending to out, which must be empty
// (newDocument passes the spare capacity of one buffer for all its lines;
// see claimTail).
func appendNumbers(out []amountTok, raw string, curs []curHit) []amountTok {
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
		if c := raw[i]; c < utf8.RuneSelf && !isDigit(c) {
			// Most bytes: no rune to decode. The bytes up to the next
			// digit or rune are passed over eight at a time.
			i = nextDigitOrRune(raw, i+1)
			continue
		}
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
		prev := rune(byteAt(raw, start-1)) // 0 at the start, as runeBefore
		if prev >= utf8.RuneSelf {
			prev = runeBefore(raw, start)
		}
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
		// (An ASCII byte other than a blank after the number is the only
		// byte that can open the rest, and most are not "%": no trim.)
		if c := byteAt(raw, end); c == '%' || c == ' ' || c >= utf8.RuneSelf {
			// The spaces at once; trimLeftBlanks only where a rune
			// follows them (a no-break space, "‰").
			e := end
			for e < len(raw) && raw[e] == ' ' {
				e++
			}
			rest := raw[e:]
			if e < len(raw) && raw[e] >= utf8.RuneSelf {
				rest = trimLeftBlanks(rest)
			}
			if strings.HasPrefix(rest, "%") || strings.HasPrefix(rest, "‰") {
				tok.percent = true
			}
		}
		// Sign: "-12.00", "- €12.00", "€ -12.00", "(12.00)", "12.00-".
		k := start
		for k > 0 {
			// A column's number is right-aligned after a run of spaces:
			// the run at once, each of its bytes read as the loop below
			// would (a decoded rune per space was a sixth of the scan).
			for k >= 8 && load8(raw, k-8) == lanes01*' ' {
				k -= 8 // eight spaces of a wide column gap at once
			}
			for k > 0 && raw[k-1] == ' ' {
				k--
			}
			if k == 0 {
				break
			}
			r := rune(raw[k-1])
			if r >= utf8.RuneSelf {
				r = runeBefore(raw, k)
			}
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
	// One pass, in place: kept never overtakes k, and a token's pair with
	// the next is judged before the next is read from out.
	kept := out[:0]
	pairedPrev := false // out[k-1] and out[k] are such a pair
	for k := range out {
		t := out[k]
		code := t.code || pairedPrev
		pairedPrev = false
		if k+1 < len(out) {
			gap := raw[t.numEnd:out[k+1].numStart]
			if (gap == " " || gap == "\u00a0") && !hasDecimalSep(raw[t.numStart:t.numEnd]) && !t.percent {
				code, pairedPrev = true, true
			}
		}
		if !code {
			kept = append(kept, t)
		}
	}
	return kept
}

// hasDecimalSep reports whether a printed number contains "," or ".".
func hasDecimalSep(s string) bool { return strings.ContainsAny(s, ".,") }

func byteAt(s string, i int) byte {
	if i < 0 || i >= len(s) {
		return 0
	}
	return s[i]
}
