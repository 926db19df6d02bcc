package rules

import "testing"

// A currency code that is also an English word counts only where it states
// a currency: beside an amount and not inside a phrase of words.
func TestWordCodeInPhrase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want string // the code found, "" for none
	}{
		{"BLUE PEN                2.50", ""},
		{"TOP UP RELOAD           10.00", ""},
		{"ALL DAY BREAKFAST       12.90", ""},
		{"TOTAL PEN               2.50", "PEN"},
		{"Amount in PEN: 250.00", "PEN"},
		{"PEN 2.50", "PEN"},
		{"2.50 PEN", "PEN"},
		{"ITEM      PEN           2.50", "PEN"},
		{"BLUE EUR 2.50", "EUR"}, // not a word code: a code whatever precedes it
	}
	for _, tc := range tests {
		got := ""
		for _, h := range scanCurrencies(tc.line) {
			got = h.code
		}
		if got != tc.want {
			t.Errorf("%q: code %q, want %q", tc.line, got, tc.want)
		}
	}
}
