package rules

import "testing"

// TestPrepaidLeavesV1TotalNull: where a printed payment already made is
// exactly the gross total less the amount due, invoice-summary-v1's one
// total is ambiguous and left null; the currency is still stated. Without
// that exact payment the amount due stands, as before.
func TestPrepaidLeavesV1TotalNull(t *testing.T) {
	t.Parallel()
	var null int64 = -1
	tests := []struct {
		name, text, cur string
		total           int64 // null: no total
	}{
		{"deposit deducted", "Acme LLC\nTotal $1,000.00\nLess deposit ($300.00)\nBalance due $700.00\n", "USD", null},
		// invoice-v2's summary reading states no amount without a currency,
		// so it cannot see the deposit either: the amount due stands.
		{"without a currency the deduction is not read", "Total $1,000.00\nLess deposit ($300.00)\nBalance due $700.00\n", "", 70000},
		{"payments on account, German", "Rechnungssumme ohne USt.   20.000,00 EUR\nUmsatzsteuer 19 %   3.800,00 EUR\nBruttosumme   23.800,00 EUR\nErhaltene Anzahlungen   11.900,00 EUR\nZahlbetrag   11.900,00 EUR\n", "EUR", null},
		{"the payment's amount on the line below its label", "Acme LLC\nTotal   $4,446.44\nLess: Deposit paid\n  (02/20/2026)   -$2,000.00\nBALANCE DUE   $2,446.44\n", "USD", null},
		{"a payment that is not the difference", "Acme LLC\nTotal $1,000.00\nLess deposit ($200.00)\nBalance due $700.00\n", "USD", 70000},
		{"payment words without a deduction", "Acme LLC\nTotal due $1,000.00\nPayment by bank transfer within 30 days.\n", "USD", 100000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Extract(tc.text)
			want := "null"
			if tc.total != null {
				want = intp(&tc.total)
			}
			if g := intp(got.Invoice.TotalMinor); g != want {
				t.Errorf("total = %s, want %s", g, want)
			}
			if c := orDash(got.Invoice.Currency); c != orDashS(tc.cur) {
				t.Errorf("currency = %s, want %s", c, orDashS(tc.cur))
			}
		})
	}
}
