package einvoice

import (
	"regexp"
	"strings"
	"time"

	"github.com/invx/invx/schema"
)

// decimalRe is the lexical space of xs:decimal, which every e-invoice
// amount, quantity and percentage uses.
var decimalRe = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)

// Minor reads an xs:decimal as an integer count of minor units of a
// currency with exponent exp ("10686.2", 2 -> 1068620), as the schema's
// evidence check reads it (schema.XSDecimalMinor). It refuses, rather than
// rounds, a value with non-zero digits beyond exp: a line price of 0.1234
// EUR has no exact minor-unit form.
func Minor(s string, exp int) (int64, bool) {
	if exp < 0 || exp > 4 {
		return 0, false
	}
	return schema.XSDecimalMinor(strings.TrimSpace(s), exp)
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
