package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// parseNumberRef is parseNumber as it was before it cut its groups from
// the token: the reference TestParseNumberMatchesReference holds it to.
func parseNumberRef(tok string, exp int, expKnown bool) (minor int64, hasFrac bool, ok bool) {
	var groups []string
	var seps []sepKind
	cur := strings.Builder{}
	for _, r := range tok {
		switch {
		case r >= '0' && r <= '9':
			cur.WriteRune(r)
		default:
			k := separatorKind(r)
			if k == sepNone || cur.Len() == 0 {
				return 0, false, false
			}
			groups = append(groups, cur.String())
			seps = append(seps, k)
			cur.Reset()
		}
	}
	if cur.Len() == 0 {
		return 0, false, false
	}
	groups = append(groups, cur.String())

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
	intDigits := strings.TrimLeft(strings.Join(intGroups, ""), "0")
	if len(intDigits) > maxIntDigits {
		return 0, false, false
	}
	if len(frac) > 6 {
		return 0, false, false
	}
	var v int64
	for i := 0; i < len(intDigits); i++ {
		v = v*10 + int64(intDigits[i]-'0')
	}
	for i := 0; i < exp; i++ {
		v *= 10
	}
	// Fraction: pad or round half up to exp digits.
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

// TestParseNumberMatchesReference holds parseNumber to parseNumberRef on
// every number token of the corpus and on random tokens of digits and
// separators, for every exponent, known or not.
func TestParseNumberMatchesReference(t *testing.T) {
	t.Parallel()
	var toks []string
	for _, ln := range equivLines(t, false, 0) {
		for _, n := range findNumbers(ln, scanCurrencies(ln)) {
			toks = append(toks, ln[n.numStart:n.numEnd])
		}
	}
	parts := []string{"0", "1", "00", "12", "123", "1234", "999", "000", "5", ".", ",", " ", "'", "’", "\u00a0", "\u202f", "x", "\xff", "-"}
	rng := rand.New(rand.NewPCG(11, 12))
	for range atLeast(50000) {
		var b strings.Builder
		for range 1 + rng.IntN(7) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		toks = append(toks, b.String())
	}
	parsed := 0
	for _, tok := range toks {
		for exp := range 4 {
			for _, known := range []bool{false, true} {
				wv, wf, wok := parseNumberRef(tok, exp, known)
				gv, gf, gok := parseNumber(tok, exp, known)
				if gv != wv || gf != wf || gok != wok {
					t.Fatalf("parseNumber(%q, %d, %v) = %d %v %v, want %d %v %v", tok, exp, known, gv, gf, gok, wv, wf, wok)
				}
				if wok {
					parsed++
				}
			}
		}
	}
	if parsed < atLeast(50000) {
		t.Fatalf("only %d tokens parse: the comparison proves little", parsed)
	}
}
