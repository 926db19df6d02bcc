package einvoice

import (
	"regexp"
	"strings"
	"time"
)

// decimalRe is the lexical space of xs:decimal, which every e-invoice
// amount, quantity and percentage uses.
var decimalRe = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)

// maxDigits keeps a converted amount within ±2^53, the range invx's
// schemas allow.
const maxDigits = 15

// Minor reads an xs:decimal as an integer count of minor units of a
// currency with exponent exp ("10686.2", 2 -> 1068620). It refuses, rather
// than rounds, a value with non-zero digits beyond exp: a line price of
// 0.1234 EUR has no exact minor-unit form.
func Minor(s string, exp int) (int64, bool) {
	s = strings.TrimSpace(s)
	if !decimalRe.MatchString(s) || exp < 0 || exp > 4 {
		return 0, false
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	intPart, frac, _ := strings.Cut(s, ".")
	if len(frac) > exp {
		if strings.Trim(frac[exp:], "0") != "" {
			return 0, false
		}
		frac = frac[:exp]
	}
	frac += strings.Repeat("0", exp-len(frac))
	digits := strings.TrimLeft(intPart+frac, "0")
	if len(digits) > maxDigits {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Quantity returns an xs:decimal in the plain form invx's schemas use for
// quantities (-?digits(.digits)?), or false.
func Quantity(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !decimalRe.MatchString(s) {
		return "", false
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	intPart, frac, _ := strings.Cut(s, ".")
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	if len(out) > 32 {
		return "", false
	}
	return out, true
}

// Date returns a date field as YYYY-MM-DD: UBL's xs:date (a time-zone
// suffix is dropped) or CII's DateTimeString in format 102 (YYYYMMDD).
// Other CII formats (610 is a month, 616 a week) are not a day: false.
func Date(f Field) (string, bool) {
	v := f.Value
	layout := time.DateOnly
	switch f.Attr["format"] {
	case "":
		if len(v) > 10 {
			v = v[:10]
		}
	case "102":
		layout = "20060102"
	default:
		return "", false
	}
	t, err := time.Parse(layout, v)
	if err != nil {
		return "", false
	}
	return t.Format(time.DateOnly), true
}
