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
		v1         int64 // v1's total when it differs (a reminder's fee), else 0
	}{
		{"gross column of an item table", "Drukarnia Wisla Sp. z o.o.\nFaktura FV/2024/11/0342\n\n" +
			"Lp. Nazwa                Ilosc  Netto     VAT   Brutto\n" +
			"1   Ulotki A5              1    640,00   23%   787,20\n" +
			"2   Menu A4               40    500,00   23%   615,00\n\n" +
			"Platnosc przelewem, 14 dni.\n", -1, 0},
		{"one summary row under its labels", "Acme Ltd\nInvoice INV-7\n\n" +
			"Net            VAT 20%        Total\n" +
			"100.00 GBP     20.00 GBP      120.00 GBP\n\n" +
			"Thank you for your business.\n", 12000, 0},
		{"summary row, then a line of words", "Acme Ltd\nInvoice INV-8\n\n" +
			"Subtotal      Tax       Total\n" +
			"100.00        8.25      108.25 USD\n" +
			"Paid by       check     on receipt\n", 10825, 0},
		{"a till's tax table, as many cells as its header", "Backhaus Lindemann GmbH\nKAFFEE TO GO   2,80 A\nSUMME    EUR   7,49\n\n" +
			"Steuer  %     Netto    Steuer   Brutto\n" +
			"A=   19,0%     2,35     0,45     2,80\n" +
			"B=    7,0%     4,38     0,31     4,69\n" +
			"Gesamt         6,73     0,76     7,49\n", 749, 0},
		{"a one-row table, then a blank line and its summary", "Bretonne SARL\nRELANCE\n\n" +
			"N° de facture      Date          Montant TTC\n" +
			"FC-2026-0188       15/02/2026    1 860,00 €\n\n" +
			"Montant TTC restant dû          1 860,00 €\n" +
			"Indemnité forfaitaire de recouvrement   40,00 €\n" +
			"Total à régler                  1 900,00 €\n", 186000, 190000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := v2Of(t, c.text).TotalMinor
			v1 := Extract(c.text).Invoice.TotalMinor
			wantV1 := c.want
			if c.v1 != 0 {
				wantV1 = c.v1
			}
			for k, g := range []*int64{got, v1} {
				want := []int64{c.want, wantV1}[k]
				s := "null"
				if g != nil {
					s = strconv.FormatInt(*g, 10)
				}
				if want < 0 && g != nil || want >= 0 && (g == nil || *g != want) {
					t.Errorf("%s total %s, want %d\n%s", []string{"v2", "v1"}[k], s, want, c.text)
				}
			}
		})
	}
}
