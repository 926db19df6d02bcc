package rules

import (
	"testing"

	"github.com/invx/invx/schema"
)

// TestTitleRef covers the headline "<noun> [qualifiers] [(code)] Nr. <ref>
// [vom <date>]" of e-invoice renderings and letters.
func TestTitleRef(t *testing.T) {
	t.Parallel()
	num := func(v schema.InvoiceV2) *string { return v.InvoiceNumber }
	issue := func(v schema.InvoiceV2) *string { return v.IssueDate }
	runFactCases(t, []factCase{
		{"compound noun with type code", "Muster AG\n Handelsrechnung (380) Nr. 4711 vom 15.11.2024\nSumme 10,00 €\n", "4711"},
		{"qualifier word", "Muster AG\n Teilrechnung Bau (875) Nr. 2101 vom 30.05.2025\nSumme 10,00 €\n", "2101"},
		{"english two-word title", "Acme Ltd\nCommercial invoice (380) No. 4711 of 15.11.2024\nTotal 10.00 EUR\n", "4711"},
		{"words between reference and date: silent", "Muster AG\n Teilrechnung Bau (875) Nr. 2101 mit LV vom 30.05.2025\nSumme 10,00 €\n", ""},
		{"dated headline beats a quoted number", "Muster AG\n Handelsrechnung (380) Nr. 4711 vom 15.11.2024\n   Zahlungsreferenz:     Kundennr.: 88 Rechnungsnummer: 4700\nSumme 10,00 €\n", "4711"},
		{"not a headline: a sentence", "Muster AG\nRechnungen bitte an Nr. 12 senden\nRechnungsnummer: R-5\n", "R-5"},
	}, num)
	runFactCases(t, []factCase{
		{"headline date", "Muster AG\n Handelsrechnung (380) Nr. 4711 vom 15.11.2024\n   Liefer- und Leistungsdatum:    14.11.2024\nSumme 10,00 €\n", "2024-11-15"},
		{"english headline date", "Acme Ltd\nCommercial invoice (380) No. 4711 of 15.11.2024\nTotal 10.00 EUR\n", "2024-11-15"},
	}, issue)
}

// TestTitleNounFilter holds parseTitleRef's cheap test to titleNouns: every
// noun is long enough and ends in a byte the test lets through.
func TestTitleNounFilter(t *testing.T) {
	t.Parallel()
	for _, n := range titleNouns {
		if len(n) < minTitleNoun || !titleNounEnd(n[len(n)-1]) {
			t.Errorf("title noun %q is turned away by the filter", n)
		}
	}
}
