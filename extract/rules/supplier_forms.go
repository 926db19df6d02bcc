package rules

import (
	"strings"
	"unicode"
)

// isCurrencyForm reports whether the legal form at raw[fs:fe] is a bare
// "BHD" that is the Bahraini dinar: next to an amount ("BHD 12.500",
// "12.500 BHD") it is a currency, and "Total BHD" is no company.
func isCurrencyForm(raw string, fs, fe int) bool {
	if !strings.EqualFold(strings.TrimSuffix(raw[fs:fe], "."), "bhd") {
		return false
	}
	after := strings.TrimLeft(raw[fe:], " .:")
	before := strings.TrimRight(raw[:fs], " ")
	if after != "" && unicode.IsDigit(rune(after[0])) {
		return true
	}
	return before != "" && unicode.IsDigit(rune(before[len(before)-1]))
}

// letterCount is the number of letters in s.
func letterCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
