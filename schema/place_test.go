package schema

import (
	"strings"
	"testing"
)

// TestCurrencyInPlace: a currency's evidence may be a place of the one
// country that pays in it, and nothing looser: not a place of two
// countries, not a street named after a place, not a name that is also
// another country's or a brand's, not a two-letter code.
func TestCurrencyInPlace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, code string
		ok               bool
	}{
		{"a state", "43000 KAJANG, SELANGOR", "MYR", true},
		{"a federal territory", "50450 Kuala Lumpur", "MYR", true},
		{"a city", "47400 PETALING JAYA", "MYR", true},
		{"a name over two lines", "KUALA\n  LUMPUR", "MYR", true},
		{"the country", "Johor Bahru, Malaysia", "MYR", true},
		{"another country's currency", "43000 KAJANG, SELANGOR", "SGD", false},
		{"singapore", "SINGAPORE 058357", "SGD", true},
		{"an australian state", "Brisbane QLD 4000, Queensland", "AUD", true},
		{"an indian state", "Andheri East, Mumbai, Maharashtra", "INR", true},
		{"a canadian province", "Montréal (Québec) H3B 2Y5", "CAD", true},
		{"a mexican state", "44130 Guadalajara, Jalisco", "MXN", true},
		{"new mexico is no mexico", "Santa Fe, New Mexico", "MXN", false},
		{"the us by name", "Austin, TX 78701, USA", "USD", true},
		{"places of two countries", "81100 JOHOR BAHRU, JOHOR / 9 TAMPINES ST 11, SINGAPORE", "MYR", false},
		{"places of two countries, the other's currency", "81100 JOHOR BAHRU, JOHOR / 9 TAMPINES ST 11, SINGAPORE", "SGD", false},
		{"brunei beside a malaysian state", "KUALA BELAIT, BRUNEI / MIRI, SARAWAK", "MYR", false},
		{"brunei is not malaysia", "BANDAR SERI BEGAWAN BE3519", "MYR", false},
		{"a street named after a state", "68 PENANG ROAD", "MYR", false},
		{"a street in a malay address", "NO 54, JALAN IPOH", "MYR", false},
		{"the street's city after it", "NO 54, JALAN IPOH, 51200 KUALA LUMPUR", "MYR", true},
		{"inside a word", "SELANGORKU MART", "MYR", false},
		{"a state shared with another country", "Punjab", "INR", false},
		{"a state named like a country", "Atlanta, Georgia", "USD", false},
		{"a brand named after a state", "TEXAS CHICKEN", "USD", false},
		{"a two-letter code alone", "MY", "MYR", false},
		{"nothing", "TOTAL 22.30", "MYR", false},
		{"beside another currency's code", "43000 KAJANG, SELANGOR  TOTAL SGD 22.30", "MYR", false},
		{"beside another currency's sign", "50450 Kuala Lumpur  Total € 22,30", "MYR", false},
		{"beside its own sign", "50450 KUALA LUMPUR  TOTAL $22.30", "MYR", true},
		{"a code-like word in lower case", "Kuala Lumpur, all day", "MYR", true},
		{"capitals glued into a word", "SELANGOR ALLMART", "MYR", true},
	}
	for _, tt := range tests {
		if got := currencyIn(tt.text, tt.code); got != tt.ok {
			t.Errorf("%s: currencyIn(%q, %s) = %v, want %v", tt.name, tt.text, tt.code, got, tt.ok)
		}
	}
}

// TestPlaceTable: every name is lower case and trimmed (matching folds the
// evidence to lower case), every currency is an ISO code, and no name is
// listed for two countries.
func TestPlaceTable(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, c := range placeCountries() {
		if _, ok := CurrencyExponent(c.currency); !ok {
			t.Errorf("%s: currency %q is not an ISO code", c.country, c.currency)
		}
		if len(PlaceNames(c.country)) == 0 {
			t.Errorf("%s: PlaceNames lists nothing", c.country)
		}
		for _, n := range c.names {
			if n != strings.ToLower(strings.TrimSpace(n)) || strings.Contains(n, "  ") {
				t.Errorf("%s: name %q is not lower case, trimmed, single-spaced", c.country, n)
			}
			if len(n) < 3 {
				t.Errorf("%s: name %q is too short to place a text", c.country, n)
			}
			if other, ok := seen[n]; ok {
				t.Errorf("%q listed for %s and %s", n, other, c.country)
			}
			seen[n] = c.country
			if got := PlaceCurrency("at " + strings.ToUpper(n) + " 12345"); got != c.currency {
				t.Errorf("PlaceCurrency(%q) = %q, want %s", n, got, c.currency)
			}
		}
	}
}

// TestStateZIPBacksUSD: a US state with its ZIP code ending an address is
// evidence of USD, as a listed place is, unless another country's place or
// currency is named beside it; a country-prefixed postcode is not.
func TestStateZIPBacksUSD(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s, code string
		want    bool
	}{
		{"BENTONVILLE AR 72712", "USD", true},
		{"Burlington, VT 05401", "USD", true},
		{"Austin, TX 78701-1234  (512) 555-0100", "USD", true},
		{"Austin, TX 78701", "CAD", false},
		{"DE 37079 Göttingen", "USD", false},
		{"Musterweg 1, DE 37079 Göttingen", "USD", false},
		{"Austin, TX 78701  EUR 5.00", "USD", false},
		{"Austin, TX 78701 / Toronto, Canada", "USD", false},
		{"TX 78701", "USD", false},
		{"47301 PETALING JAYA", "USD", false},
	} {
		if got := CurrencyIn(c.s, c.code); got != c.want {
			t.Errorf("CurrencyIn(%q, %s) = %v, want %v", c.s, c.code, got, c.want)
		}
	}
}
