package rules

import (
	"strconv"
	"testing"
)

// TestHeaderOverAColumnIsNoTotal: a total label heading a column of item
// amounts ("Gross", "Brutto") has no one value below it; a summary row
// under its labels has. Both schemas read the same total.
func TestHeaderOverAColumnIsNoTotal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		want       int64 // -1: null
	}{
		{"gross column of an item table", "Drukarnia Wisla Sp. z o.o.\nFaktura FV/2024/11/0342\n\n" +
			"Lp. Nazwa                Ilosc  Netto     VAT   Brutto\n" +
			"1   Ulotki A5              1    640,00   23%   787,20\n" +
			"2   Menu A4               40    500,00   23%   615,00\n\n" +
			"Platnosc przelewem, 14 dni.\n", -1},
		{"one summary row under its labels", "Acme Ltd\nInvoice INV-7\n\n" +
			"Net            VAT 20%        Total\n" +
			"100.00 GBP     20.00 GBP      120.00 GBP\n\n" +
			"Thank you for your business.\n", 12000},
		{"summary row, then a line of words", "Acme Ltd\nInvoice INV-8\n\n" +
			"Subtotal      Tax       Total\n" +
			"100.00        8.25      108.25 USD\n" +
			"Paid by       check     on receipt\n", 10825},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := v2Of(t, c.text).TotalMinor
			v1 := Extract(c.text).Invoice.TotalMinor
			for _, g := range []*int64{got, v1} {
				s := "null"
				if g != nil {
					s = strconv.FormatInt(*g, 10)
				}
				if c.want < 0 && g != nil || c.want >= 0 && (g == nil || *g != c.want) {
					t.Errorf("total %s, want %d\n%s", s, c.want, c.text)
				}
			}
		})
	}
}
