package rules

import "testing"

// FuzzExtract checks the properties every result has, whatever the text,
// for invoice-summary-v1 and invoice-v2 (checkV2Invariants):
// no panic, evidence verbatim from the text, a non-negative total, a real
// due date or none, a title and 1-5 bullets within their byte caps.
// The seed corpus is testdata/fuzz/FuzzExtract plus the cases below.
func FuzzExtract(f *testing.F) {
	f.Add("Invoice No. INV-1\nTotal EUR 1.234,56\nDue date: 31.03.2026\n")
	f.Add("Rechnung Nr. RE-7\nGesamtbetrag 1.190,00 €\nFällig am 31. März 2026\nIhre Bestellung: 4711\n")
	f.Add("AVOIR N° AV-1\nNet à payer -150,00 €\nAutoliquidation\n")
	f.Fuzz(func(t *testing.T, text string) {
		checkInvariants(t, text, Extract(text))
		checkV2Invariants(t, text)
	})
}
