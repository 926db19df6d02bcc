package schema

import (
	"strings"
	"testing"
)

// testSourceV2 is a normalised German invoice stating every invoice-v2 fact.
const testSourceV2 = `ACME Bürobedarf GmbH
USt-IdNr.: DE 123 456 789
Rechnung Nr. RE-2026-0042
Rechnungsdatum: 01.03.2026
Fällig am: 31. März 2026
Ihre Bestellung: PO 4500012345
Kunde: Muster AG

Pos Beschreibung Menge Einzelpreis Betrag
1 Bürostuhl "Comfort" 2 400,00 800,00
2 Schreibtischlampe 1 200,00 200,00

Nettobetrag: EUR 1.000,00
MwSt 19% auf 1.000,00: EUR 190,00
Gesamtbetrag: EUR 1.190,00
Zahlbetrag: EUR 1.190,00

Bankverbindung: IBAN DE89 3704 0044 0532 0130 00
Bitte beachten Sie unsere neue Bankverbindung.
`

// validDocV2 is a compact, valid invoice-v2 answer for testSourceV2. Invalid
// variants are made from it with withV2, so each case shows only what it
// breaks.
const validDocV2 = `{"schema_version":"invoice-v2","document_type":"invoice",` +
	`"title":"ACME Bürobedarf invoice RE-2026-0042",` +
	`"bullets":["EUR 1,190.00 due 2026-03-31.","New bank details announced."],` +
	`"supplier_name":"ACME Bürobedarf GmbH","supplier_vat_id":"DE123456789","supplier_iban":"DE89370400440532013000",` +
	`"buyer_name":"Muster AG","invoice_number":"RE-2026-0042","issue_date":"2026-03-01","due_date":"2026-03-31",` +
	`"po_number":"4500012345","currency":"EUR",` +
	`"net_minor":100000,"tax_minor":19000,"total_minor":119000,"amount_due_minor":119000,` +
	`"tax_lines":[{"rate_bp":1900,"base_minor":100000,"tax_minor":19000}],` +
	`"line_items":[{"description":"Bürostuhl \"Comfort\"","quantity":"2","unit_price_minor":40000,"amount_minor":80000,"tax_rate_bp":1900},` +
	`{"description":"Schreibtischlampe","quantity":"1","unit_price_minor":20000,"amount_minor":20000,"tax_rate_bp":1900}],` +
	`"lines_complete":true,` +
	`"action_items":[{"id":"a1","kind":"verify_purchase_order","evidence":"Ihre Bestellung: PO 4500012345"},` +
	`{"id":"a2","kind":"contact_supplier","evidence":"Bitte beachten Sie unsere neue Bankverbindung."}],` +
	`"evidence":{"supplier_name":"ACME Bürobedarf GmbH","supplier_vat_id":"USt-IdNr.: DE 123 456 789",` +
	`"supplier_iban":"IBAN DE89 3704 0044 0532 0130 00","buyer_name":"Kunde: Muster AG",` +
	`"invoice_number":"Rechnung Nr. RE-2026-0042","issue_date":"Rechnungsdatum: 01.03.2026",` +
	`"due_date":"Fällig am: 31. März 2026","po_number":"Ihre Bestellung: PO 4500012345",` +
	`"currency":"Gesamtbetrag: EUR 1.190,00","net_minor":"Nettobetrag: EUR 1.000,00",` +
	`"tax_minor":"MwSt 19% auf 1.000,00: EUR 190,00","total_minor":"Gesamtbetrag: EUR 1.190,00",` +
	`"amount_due_minor":"Zahlbetrag: EUR 1.190,00"}}`

// nullDocV2 states nothing: every fact and its evidence null.
const nullDocV2 = `{"schema_version":"invoice-v2","document_type":"other","title":"Unreadable document","bullets":["No facts could be read."],` +
	`"supplier_name":null,"supplier_vat_id":null,"supplier_iban":null,"buyer_name":null,"invoice_number":null,` +
	`"issue_date":null,"due_date":null,"po_number":null,"currency":null,` +
	`"net_minor":null,"tax_minor":null,"total_minor":null,"amount_due_minor":null,` +
	`"tax_lines":[],"line_items":[],"lines_complete":false,"action_items":[],` +
	`"evidence":{"supplier_name":null,"supplier_vat_id":null,"supplier_iban":null,"buyer_name":null,"invoice_number":null,` +
	`"issue_date":null,"due_date":null,"po_number":null,"currency":null,` +
	`"net_minor":null,"tax_minor":null,"total_minor":null,"amount_due_minor":null}}`

// withV2 returns validDocV2 with each old string, which must occur exactly
// once, replaced by the new one that follows it.
func withV2(t *testing.T, oldNew ...string) string {
	t.Helper()
	return replaceOnce(t, validDocV2, oldNew...)
}

func replaceOnce(t *testing.T, doc string, oldNew ...string) string {
	t.Helper()
	if len(oldNew)%2 != 0 {
		t.Fatalf("replaceOnce: odd number of strings")
	}
	for i := 0; i+1 < len(oldNew); i += 2 {
		old, new := oldNew[i], oldNew[i+1]
		if n := strings.Count(doc, old); n != 1 {
			t.Fatalf("replaceOnce(%q): found %d times, want once", old, n)
		}
		doc = strings.Replace(doc, old, new, 1)
	}
	return doc
}

func v2Version(t *testing.T) *Version {
	t.Helper()
	v, err := Lookup(V2)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
