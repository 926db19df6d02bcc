package schema

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaskIBAN returns the form of an IBAN that listings print: the country
// code and check digits, an ellipsis, and the last four characters
// ("DE89…3000"). That is what a clerk needs to tell two accounts of a
// supplier apart, and too little to pay into: the account number itself is
// hidden. Spaces are dropped first, so the print form masks like the
// electronic one. Anything too short to keep those eight characters and
// still hide some is masked whole.
func MaskIBAN(iban string) string {
	s := strings.ToUpper(strings.Join(strings.Fields(iban), ""))
	if len(s) < 12 || !isASCIIAlnum(s) {
		return "…"
	}
	return s[:4] + "…" + s[len(s)-4:]
}

// MaskIBANIn returns text with every occurrence of iban replaced by
// MaskIBAN(iban). An occurrence may be written in print form, with spaces,
// dashes or dots between its characters and in either case ("IBAN DE89 3704
// 0044 0532 0130 00"), because that is how evidence and source texts carry
// it. found reports whether any occurrence was replaced; a caller holding
// text that should contain the IBAN and does not find it must hide the
// whole text rather than print it.
func MaskIBANIn(text, iban string) (masked string, found bool) {
	want := strings.ToUpper(strings.Join(strings.Fields(iban), ""))
	if want == "" {
		return text, false
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		if end := matchLoose(text, i, want); end > 0 {
			b.WriteString(MaskIBAN(want))
			i, found = end, true
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		b.WriteString(text[i : i+size])
		i += size
	}
	return b.String(), found
}

// matchLoose reports where an occurrence of want (upper-case letters and
// digits) that starts at text[i] ends, or 0. Between its characters it
// skips separators people type into IBANs; it never starts or ends on one,
// and it does not match inside a longer run of letters and digits.
func matchLoose(text string, i int, want string) int {
	if i > 0 && isAlnumByte(text[i-1]) {
		return 0
	}
	j := i
	for k := 0; k < len(want); k++ {
		if k > 0 {
			for j < len(text) && isIBANSeparator(text, j) {
				_, size := utf8.DecodeRuneInString(text[j:])
				j += size
			}
		}
		if j >= len(text) || unicode.ToUpper(rune(text[j])) != rune(want[k]) {
			return 0
		}
		j++
	}
	if j < len(text) && isAlnumByte(text[j]) {
		return 0
	}
	return j
}

// isIBANSeparator reports a space (including no-break and narrow no-break
// spaces), dash or dot at text[j].
func isIBANSeparator(text string, j int) bool {
	r, _ := utf8.DecodeRuneInString(text[j:])
	return r == ' ' || r == '-' || r == '.' || r == '\u00a0' || r == '\u202f'
}

func isAlnumByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

func isASCIIAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlnumByte(s[i]) {
			return false
		}
	}
	return true
}
