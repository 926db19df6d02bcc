package schema

import (
	"fmt"
	"strings"
	"testing"
)

func TestIBANCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		iban string
		ok   bool
	}{
		{"DE89370400440532013000", true},
		{"GB82WEST12345698765432", true},
		{"FR1420041010050500013M02606", true},
		{"NL91ABNA0417164300", true},
		{"CH9300762011623852957", true},
		{"NO9386011117947", true},
		{"BE68539007547034", true},
		{"AT611904300234573201", true},
		{"IT60X0542811101000000123456", true},
		{"ES9121000418450200051332", true},
		{"MT84MALT011000012345MTLCAST001S", true},
		{"DE88370400440532013000", false},       // check digits off by one
		{"DE89370400440532013001", false},       // last digit changed
		{"DE89370400440532031000", false},       // two adjacent digits swapped
		{"DE8937040044053201300", false},        // one digit short for DE
		{"DE893704004405320130000", false},      // one digit long for DE
		{"US89370400440532013000", false},       // no IBANs in the US
		{"de89370400440532013000", false},       // lower case
		{"DE89 3704 0044 0532 0130 00", false},  // print form
		{"DEAB370400440532013000", false},       // letters as check digits
		{"DE89", false},                         // too short
		{"DE89370400440532013000DE8937", false}, // too long for DE
		// Right checksum, wrong length or country: only those rules refuse.
		{withCheckDigits("DE", "370400440532013000"), true},
		{withCheckDigits("DE", "3704004405320130001"), false},
		{withCheckDigits("DE", "37040044053201300"), false},
		{withCheckDigits("US", "370400440532013000"), false},
		{withCheckDigits("GR", "370400440532013000"), false}, // GR IBANs have 27 characters
	}
	for _, tt := range tests {
		t.Run(tt.iban, func(t *testing.T) {
			t.Parallel()
			e := ibanProblem("supplier_iban", tt.iban)
			if (e == nil) != tt.ok {
				t.Fatalf("ibanProblem(%q) = %v, want ok %v", tt.iban, e, tt.ok)
			}
			if e != nil && (e.Category != CategoryIBAN || strings.Contains(e.Msg, tt.iban)) {
				t.Errorf("error %v: want category iban and not the number in the message", e)
			}
		})
	}
}

// withCheckDigits builds an IBAN with a correct ISO 13616 checksum, so a
// test can show that another rule refuses it.
func withCheckDigits(country, bban string) string {
	check := 98 - ibanMod97(country+"00"+bban)
	return fmt.Sprintf("%s%02d%s", country, check, bban)
}

func TestVATIDCheck(t *testing.T) {
	t.Parallel()
	valid := []string{
		"ATU12345678", "BE0123456789", "BE1234567890", "BG123456789", "BG1234567890", "CY12345678L", "CZ12345678",
		"CZ1234567890", "DE123456789", "DK12345678", "EE123456789", "EL123456789", "ESX1234567X", "ESA12345678",
		"ES12345678Z", "FI12345678", "FRXX123456789", "FR12345678901", "HR12345678901", "HU12345678",
		"IE1234567WA", "IE1S23456B", "IE1234567T", "IT12345678901", "LT123456789", "LT123456789012", "LU12345678",
		"LV12345678901", "MT12345678", "NL123456789B01", "PL1234567890", "PT123456789", "RO12", "RO1234567890",
		"SE123456789001", "SI12345678", "SK1234567890", "XI123456789", "XIGD001", "GB123456789", "GB123456789012",
		"GBGD001", "GBHA500", "CHE123456789", "CHE123456789MWST", "CHE123456789TVA", "CHE123456789IVA",
		"NO123456789", "NO123456789MVA",
		// Prefixes outside the table are judged on their form alone.
		"US123456789", "12345678901", "TR1234567890",
	}
	invalid := []string{
		"ATU1234567", "AT12345678", "BE2123456789", "BE012345678", "BG12345678", "CY123456789", "CZ1234567",
		"DE12345678", "DE1234567890", "DEX23456789", "DK1234567", "EE12345678", "EL12345678", "ES123456789",
		"FI123456789", "FRIO123456789", "FR1234567890", "HR1234567890", "HU123456789", "IE1234567", "IE12345678Z",
		"IT1234567890", "LT1234567890", "LU123456789", "LV1234567890", "MT123456789", "NL123456789B1",
		"NL123456789A01", "PL123456789", "PT12345678", "RO0123", "RO12345678901", "SE123456789012", "SI1234567",
		"SK123456789", "XI12345678", "GBGD500", "GBHA499", "GB12345678", "CHE12345678", "CHE123456789VAT",
		"CH123456789", "NO12345678", "NO123456789VAT",
		"GR123456789",                                 // Greece uses EL
		"de123456789", "DE 123456789", "DE-123456789", // not compact
		"DE1", "US12345678901234567890", // length
	}
	for _, tt := range []struct {
		ids []string
		ok  bool
	}{{valid, true}, {invalid, false}} {
		for _, id := range tt.ids {
			t.Run(id, func(t *testing.T) {
				t.Parallel()
				raw := withV2(t, `"DE123456789"`, `"`+id+`"`)
				_, err := v2Version(t).Validate([]byte(raw), testSourceV2+"\n"+id+"\n")
				if tt.ok {
					// A valid id gets past vat_id; its evidence no longer
					// holds it, so evidence is the expected error.
					if err != nil && categoryOf(err) == CategoryVATID {
						t.Fatalf("Validate(%q): %v", id, err)
					}
					return
				}
				if categoryOf(err) != CategoryVATID {
					t.Fatalf("Validate(%q) = %v, want category vat_id", id, err)
				}
			})
		}
	}
}

func categoryOf(err error) Category {
	if ve, ok := err.(*ValidationError); ok {
		return ve.Category
	}
	return ""
}

func TestAmountIn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text  string
		minor int64
		exp   int
		ok    bool
	}{
		// The examples for 1234.56 EUR.
		{"1234,56", 123456, 2, true},
		{"1.234,56", 123456, 2, true},
		{"1234.56", 123456, 2, true},
		{"1 234,56", 123456, 2, true},
		{"Total: 1,234.56 EUR", 123456, 2, true},
		{"CHF 1'234.56", 123456, 2, true},
		{"1\u00a0234,56 €", 123456, 2, true},
		{"1\u202f234,56", 123456, 2, true},
		{"€1.234,56", 123456, 2, true},
		// Credit notes: the sign is not required in the text, nor the
		// text's sign in the value.
		{"-1.234,56", -123456, 2, true},
		{"1.234,56-", -123456, 2, true},
		{"(1,234.56)", -123456, 2, true},
		{"-1.234,56", 123456, 2, true},
		// Whole amounts.
		{"1.000,-", 100000, 2, true},
		{"EUR 1000", 100000, 2, true},
		{"EUR 1.000", 100000, 2, true},
		{"1.000,00", 100000, 2, true},
		{"0,05", 5, 2, true},
		{"0,00", 0, 2, true},
		// Exponents 0 and 3.
		{"¥120,000", 120000, 0, true},
		{"120.000 JPY", 120000, 0, true},
		{"BHD 1.250", 1250, 3, true},
		// Indian lakh grouping, from six integer digits on.
		{"Taxable Value 1,19,600.00", 11960000, 2, true},
		{"₹1,41,128.00", 14112800, 2, true},
		{"Rs. 12,34,56,789.50", 123456789_50, 2, true},
		{"1,19,600", 11960000, 2, true},
		{"1,19,600.00", 1196000, 2, false},   // 11,960.00 is not in it
		{"11,9600.00", 11960000, 2, false},   // no grouping at all
		{"1,19,600,00", 11960000, 2, false},  // lakh groups take a decimal point
		{"21,19,600.00", 11960000, 2, false}, // part of a longer number
		// Refused: minor units as written by a model, another amount, a
		// part of a longer number, the wrong exponent.
		{"123456", 123456, 2, false},
		{"1.234,5", 123456, 2, false},
		{"11.234,56", 123456, 2, false},
		{"1.234,567", 123456, 2, false},
		{"1.234,56", 23456, 2, false},
		{"1.234,56", 1234, 2, false},
		{"1.234.56", 123456, 2, false},
		{"12,34,56", 123456, 2, false},
		{"EUR 5", 5, 2, false},
		{"10.000", 100000, 2, false},
		{"1,200.00", 120000, 0, false},
		{"BHD 1.25", 1250, 3, false},
		{"Total", 123456, 2, false},
		{"EUR 1.234", 123456, 2, false}, // decimals dropped from a non-whole amount
		{"¥1,234", 1, 0, false},         // 1 is the start of 1,234
		{"1.234,56.7", 123456, 2, false},
	}
	for _, tt := range tests {
		if got := amountIn(tt.text, tt.minor, tt.exp); got != tt.ok {
			t.Errorf("amountIn(%q, %d, %d) = %v, want %v", tt.text, tt.minor, tt.exp, got, tt.ok)
		}
	}
}

func TestDateIn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		iso  string
		ok   bool
	}{
		{"2026-03-01", "2026-03-01", true},
		{"Rechnungsdatum: 01.03.2026", "2026-03-01", true},
		{"1.3.26", "2026-03-01", true},
		{"03/01/2026", "2026-03-01", true},
		{"01/03/2026", "2026-03-01", true}, // day and month not told apart
		{"1 March 2026", "2026-03-01", true},
		{"March 1st, 2026", "2026-03-01", true},
		{"1. März 2026", "2026-03-01", true},
		{"le 1er mars 2026", "2026-03-01", true},
		{"1 de marzo de 2026", "2026-03-01", true},
		{"01-Mar-2026", "2026-03-01", true},
		{"Mar 1, 2026", "2026-03-01", true},
		{"1 maart 2026", "2026-03-01", true},
		{"20260301", "2026-03-01", true},
		{"Datum 1.3.2026 10:00", "2026-03-01", true},
		{"31. Dezember 2025", "2025-12-31", true},
		{"2026-03-02", "2026-03-01", false},
		{"01.03.2025", "2026-03-01", false},
		{"01.04.2026", "2026-03-01", false},
		{"March 2026", "2026-03-01", false},
		{"2026", "2026-03-01", false},
		{"30 days net", "2026-03-01", false},
		{"26-03-01", "2026-03-01", false}, // two-digit year only last
		{"1 Mart 2026", "2026-03-01", false},
		{"Rechnung 1, 3 Seiten, 2026", "2026-03-01", false},
		{"001.03.2026", "2026-03-01", false},
	}
	for _, tt := range tests {
		if got := dateIn(tt.text, tt.iso); got != tt.ok {
			t.Errorf("dateIn(%q, %s) = %v, want %v", tt.text, tt.iso, got, tt.ok)
		}
	}
}

func TestTextAndIDEvidence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, value string
		id, ok      bool
	}{
		{"ACME Bürobedarf GmbH", "ACME Bürobedarf GmbH", false, true},
		{"acme  bürobedarf\ngmbh, Berlin", "ACME Bürobedarf GmbH", false, true},
		{"ACME Büro", "ACME Bürobedarf GmbH", false, false},
		{"Rechnung Nr. re-2026-0042", "RE-2026-0042", false, true},
		{"Rechnung Nr. RE 2026 0042", "RE-2026-0042", false, false},
		{"USt-IdNr.: DE 123 456 789", "DE123456789", true, true},
		{"UID: CHE-123.456.789 MWST", "CHE123456789MWST", true, true},
		{"USt-IdNr.: DE 123 456 78", "DE123456789", true, false},
		{"IBAN DE89 3704 0044 0532 0130 00", "DE89370400440532013000", true, true},
		{"P.IVA 01234567890", "IT01234567890", true, true},
		{"NIF: B12345678", "ESB12345678", true, true},
		{"P.IVA 0123456", "IT0123456", true, false},
		{"P.IVA 01234567890", "DE01234567890", true, true}, // prefix not checked; VAT syntax is
		{"Tel. 01234567", "IT01234567890", true, false},
		{"IBAN DE89 3704 0044 0532 0130", "DE89370400440532013000", true, false},
	}
	for _, tt := range tests {
		var got bool
		if tt.id {
			got = vatIDIn(tt.text, tt.value)
		} else {
			got = strings.Contains(foldText(tt.text), foldText(tt.value))
		}
		if got != tt.ok {
			t.Errorf("evidence %q for %q = %v, want %v", tt.text, tt.value, got, tt.ok)
		}
	}
}

func TestCurrencyIn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, code string
		ok         bool
	}{
		{"EUR 5,00", "EUR", true},
		{"5,00 eur", "EUR", true},
		{"€5", "EUR", true},
		{"Betrag in Euro", "EUR", true},
		{"$5.00", "USD", true},
		{"Fr. 5.00", "CHF", true},
		{"£12", "GBP", true},
		{"Betrag 5,00", "EUR", false},
		{"EURIBOR", "EUR", false},
		{"Total 5,00", "TRY", false},
		{"Frankfurt", "CHF", false},
		{"USD 5", "EUR", false},
		{"TOTAL RM 33.90", "MYR", true},
		{"33.90 RM", "MYR", true},
		{"S$ 12.00", "SGD", true},
		{"120,00 kr", "SEK", true},
		{"120,00 kr", "DKK", true},
		{"12,50 zł", "PLN", true},
		{"Rp 15.000", "IDR", true},
		{"FORM 12.00", "MYR", false},   // "rm" inside a word is no ringgit
		{"TOTAL $ 33.90", "MYR", true}, // a Malaysian till's "$"
		{"M$ 33.90", "MYR", true},
		{"TOTAL $ 33.90", "GBP", false},
		{"RM 12.00", "BHD", false},
	}
	for _, tt := range tests {
		if got := currencyIn(tt.text, tt.code); got != tt.ok {
			t.Errorf("currencyIn(%q, %s) = %v, want %v", tt.text, tt.code, got, tt.ok)
		}
	}
}
