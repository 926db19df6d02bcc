package schema

import (
	"math"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCurrencyExponent(t *testing.T) {
	t.Parallel()
	type result struct {
		Exp int
		OK  bool
	}
	tests := []struct {
		code string
		want result
	}{
		{"EUR", result{2, true}},
		{"USD", result{2, true}},
		{"GBP", result{2, true}},
		{"CHF", result{2, true}},
		{"JPY", result{0, true}},
		{"KRW", result{0, true}},
		{"CLP", result{0, true}},
		{"ISK", result{0, true}},
		{"VND", result{0, true}},
		{"XOF", result{0, true}},
		{"BHD", result{3, true}},
		{"KWD", result{3, true}},
		{"JOD", result{3, true}},
		{"OMR", result{3, true}},
		{"TND", result{3, true}},
		{"IQD", result{3, true}},
		{"LYD", result{3, true}},
		{"CLF", result{4, true}},
		{"UYW", result{4, true}},
		{"XCG", result{2, true}},
		{"ZWG", result{2, true}},
		{"SLE", result{2, true}},
		{"VED", result{2, true}},
		{"eur", result{0, false}},
		{"Eur", result{0, false}},
		{"EURO", result{0, false}},
		{"EU", result{0, false}},
		{"", result{0, false}},
		{"€", result{0, false}},
		{"HRK", result{0, false}}, // replaced by EUR in 2023
		{"ANG", result{0, false}}, // replaced by XCG in 2025
		{"ZWL", result{0, false}}, // replaced by ZWG in 2024
		{"XAU", result{0, false}}, // no minor unit
		{"XXX", result{0, false}}, // no currency
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			t.Parallel()
			exp, ok := CurrencyExponent(tt.code)
			if diff := cmp.Diff(tt.want, result{exp, ok}); diff != "" {
				t.Errorf("CurrencyExponent(%q) mismatch (-want +got):\n%s", tt.code, diff)
			}
		})
	}
}

func TestCurrencyTable(t *testing.T) {
	t.Parallel()
	code := regexp.MustCompile(`^[A-Z]{3}$`)
	for c, exp := range iso4217 {
		if !code.MatchString(c) {
			t.Errorf("code %q is not three upper-case letters", c)
		}
		if exp < 0 || exp > 4 {
			t.Errorf("%s: exponent %d outside 0..4", c, exp)
		}
	}
	// List One has about 180 codes, some 15 of them without a minor
	// unit; a table far from 165 lost or invented codes.
	if n := len(iso4217); n < 160 || n > 175 {
		t.Errorf("table has %d codes, want about 165", n)
	}
}

func TestFormatMinor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		minor    int64
		currency string
		want     string
	}{
		{123456, "EUR", "1234.56"},
		{5, "EUR", "0.05"},
		{50, "EUR", "0.50"},
		{100, "EUR", "1.00"},
		{0, "EUR", "0.00"},
		{-123456, "EUR", "-1234.56"},
		{-5, "EUR", "-0.05"},
		{120000, "JPY", "120000"},
		{0, "JPY", "0"},
		{-7, "KRW", "-7"},
		{1250, "BHD", "1.250"},
		{5, "KWD", "0.005"},
		{12345, "CLF", "1.2345"},
		{1, "CLF", "0.0001"},
		{123456, "XYZ", "1234.56"}, // unknown: two decimals
		{123456, "", "1234.56"},
		{123456, "jpy", "1234.56"}, // not a code, so not JPY
		{9007199254740991, "USD", "90071992547409.91"},
		{math.MaxInt64, "EUR", "92233720368547758.07"},
		{math.MinInt64, "EUR", "-92233720368547758.08"},
		{math.MinInt64, "JPY", "-9223372036854775808"},
	}
	for _, tt := range tests {
		t.Run(tt.want+" "+tt.currency, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, FormatMinor(tt.minor, tt.currency)); diff != "" {
				t.Errorf("FormatMinor(%d, %q) mismatch (-want +got):\n%s", tt.minor, tt.currency, diff)
			}
		})
	}
}
