package rules

import "testing"

func TestParseNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		cur      string
		want     int64
		wantFrac bool
		wantOK   bool
	}{
		{"us grouping", "1,234.56", "USD", 123456, true, true},
		{"eu grouping", "1.234,56", "EUR", 123456, true, true},
		{"space grouping", "1 234,56", "EUR", 123456, true, true},
		{"nbsp grouping", "1\u00a0234,56", "EUR", 123456, true, true},
		{"narrow nbsp grouping", "1\u202f234,56", "EUR", 123456, true, true},
		{"swiss apostrophe", "1'234.50", "CHF", 123450, true, true},
		{"swiss typographic apostrophe", "3’783.50", "CHF", 378350, true, true},
		{"millions eu", "1.234.567,89", "EUR", 123456789, true, true},
		{"millions us", "1,234,567.89", "USD", 123456789, true, true},
		{"no decimals", "1500", "EUR", 150000, false, true},
		{"one decimal", "12,5", "EUR", 1250, true, true},
		{"grouped thousands without decimals", "1.250", "EUR", 125000, false, true},
		{"comma thousands without decimals", "1,250", "USD", 125000, false, true},
		{"jpy grouping", "120,000", "JPY", 120000, false, true},
		{"jpy dot grouping", "534.600", "JPY", 534600, false, true},
		{"bhd three decimals", "1.250", "BHD", 1250, true, true},
		{"bhd grouped three decimals", "2,380.125", "BHD", 2380125, true, true},
		{"kwd eu style", "965,500", "KWD", 965500, true, true},
		{"leading zero is a fraction", "0,250", "EUR", 25, true, true},
		{"rounding half up", "0,005", "EUR", 1, true, true},
		{"rounding down", "1,2344", "EUR", 123, true, true},
		{"indian lakh", "1,23,456.00", "INR", 12345600, true, true},
		{"unknown currency uses two decimals", "99.90", "", 9990, true, true},
		{"bad grouping", "12,34,5", "EUR", 0, false, false},
		{"mixed grouping", "1.234 567", "EUR", 0, false, false},
		{"too many digits", "12345678901234567", "EUR", 0, false, false},
		{"empty", "", "EUR", 0, false, false},
		{"letters", "12a", "EUR", 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			exp, known := currencyExponent(tc.cur)
			if !known {
				exp = 2
			}
			got, frac, ok := parseNumber(tc.in, exp, known)
			if ok != tc.wantOK || ok && (got != tc.want || frac != tc.wantFrac) {
				t.Errorf("parseNumber(%q, %s) = %d, %v, %v; want %d, %v, %v", tc.in, tc.cur, got, frac, ok, tc.want, tc.wantFrac, tc.wantOK)
			}
		})
	}
}

func TestFindNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line    string
		want    []string
		neg     []bool
		percent []bool
	}{
		{"Total  -€12.00", []string{"12.00"}, []bool{true}, []bool{false}},
		{"Balance (1,234.00)", []string{"1,234.00"}, []bool{true}, []bool{false}},
		{"Gesamtbetrag 490,28- EUR", []string{"490,28"}, []bool{true}, []bool{false}},
		{"VAT 19 % 19.00", []string{"19", "19.00"}, []bool{false, false}, []bool{true, false}},
		{"Date 31.03.2026", nil, nil, nil},
		{"Invoice INV-2026 / 2026-03-31 10:30", nil, nil, nil},
		{"EUR1.234,56 and 100EUR", []string{"1.234,56", "100"}, []bool{false, false}, []bool{false, false}},
		{"IBAN BE68 5390 0754 7034", nil, nil, nil},
		{"Total 1 234,56 €", []string{"1 234,56"}, []bool{false}, []bool{false}},
		{"Item 30days", nil, nil, nil},
	}
	for _, tc := range tests {
		curs := scanCurrencies(tc.line)
		got := findNumbers(tc.line, curs)
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %d numbers, want %d", tc.line, len(got), len(tc.want))
			continue
		}
		for k, g := range got {
			if g.text(tc.line) != tc.want[k] || g.neg != tc.neg[k] || g.percent != tc.percent[k] {
				t.Errorf("%q: number %d = %q neg=%v pct=%v; want %q neg=%v pct=%v", tc.line, k, g.text(tc.line), g.neg, g.percent, tc.want[k], tc.neg[k], tc.percent[k])
			}
		}
	}
}

func TestExtractTotals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		text  string
		cur   string
		total int64
	}{
		{"yen without decimals", "Invoice No. 5\nTotal ¥120,000\n", "JPY", 120000},
		{"bahraini dinar", "Invoice No. 5\nTotal BD 1.250\n", "BHD", 1250},
		{"credit note negative", "Credit note no. 7\nTotal -250.00 EUR\n", "EUR", 25000},
		{"gross not net", "Summe netto 100,00 €\nMwSt. 19 % 19,00 €\nGesamtbetrag 119,00 €\n", "EUR", 11900},
		{"net a payer", "Total HT 100,00 €\nTVA 20 % 20,00 €\nTotal TTC 120,00 €\nNet à payer 120,00 €\n", "EUR", 12000},
		{"label then value on next line", "Amount due\n£42.10\n", "GBP", 4210},
		{"swiss", "Total CHF 1'234.50\n", "CHF", 123450},
		{"canadian dollar", "Total (CAD) $1,130.00\n", "CAD", 113000},
		{"yuan", "Total amount (RMB) ¥ 17,500.00\n", "CNY", 1750000},
		{"swedish krona", "Org.nr 556123-4567, Sverige\nAtt betala\nAmount due 12 500,00 kr\n", "SEK", 1250000},
		{"polish zloty", "Total due 1 000,00 zł\n", "PLN", 100000},
		{"incl vat qualifier", "Gesamtbetrag inkl. 19 % MwSt.: 1.190,00 €\n", "EUR", 119000},
		{"due by a date", "Invoice No. 5\nTotal amount due by December 2, 2026      EUR 412.58\n", "EUR", 41258},
		{"total for this invoice", "Invoice No. 5\nTotal for this invoice     EUR 412.58\n", "EUR", 41258},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Extract(tc.text)
			if got.Invoice.TotalMinor == nil || *got.Invoice.TotalMinor != tc.total {
				t.Errorf("total = %s, want %d", intp(got.Invoice.TotalMinor), tc.total)
			}
			if c := orDash(got.Invoice.Currency); c != orDashS(tc.cur) {
				t.Errorf("currency = %s, want %s", c, orDashS(tc.cur))
			}
		})
	}
}

func TestNoTotalNoGuess(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"",
		"Hello, see you tomorrow.",
		"Total hours 480\n",
		"Payment terms: net 30\n",
		// A date inside a sentence: no label stands right before the amount.
		"Te betalen vóór 15/04/2026 op rekening 123 456 789 t.n.v. ABC: 500,00 EUR\n",
	} {
		got := Extract(text)
		if got.Invoice.TotalMinor != nil {
			t.Errorf("%q: total %d, want null", text, *got.Invoice.TotalMinor)
		}
	}
}
