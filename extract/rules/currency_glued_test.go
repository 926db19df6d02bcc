package rules

import "testing"

// TestIdentTailNoCurrency: three capitals glued to an identifier (a coupon
// code, an address's abbreviations run together with commas) are no
// currency code; a code glued to its amount still is.
func TestIdentTailNoCurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want string // the codes found, in order
	}{
		{"1    PZ-M   (HT)   NOK2-BFD   21.90", ""},
		{"1    WNG6          DKK1WED    12.50", ""},
		{"   LOT 3, JALAN PLUMBUM, SEK,U5,", ""},
		{"TOTAL EUR1.234,56", "EUR"},
		{"TOTAL EUR 1.234,56", "EUR"},
		{"Betrag: 1.234,56 EUR, zahlbar sofort", "EUR"},
		{"SEK 47 533,75", "SEK"},
		{"NOK2 500,00", "NOK"},
	}
	for _, tt := range tests {
		got := ""
		for _, h := range scanCurrencies(tt.line) {
			got += h.code
		}
		if got != tt.want {
			t.Errorf("scanCurrencies(%q) codes %q, want %q", tt.line, got, tt.want)
		}
	}
}
