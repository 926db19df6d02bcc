package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// v2Source is a German invoice stating every invoice-v2 fact, already in
// normalised form (LF line ends, NFC), so the text a provider receives is
// exactly this.
const v2Source = `ACME Bürobedarf GmbH
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

// v2Answer is a valid invoice-v2 answer for v2Source.
const v2Answer = `{"schema_version":"invoice-v2","document_type":"invoice",` +
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

// v2BadSums is v2Answer with the mistake a model makes on this layout: the
// tax read as the base it is charged on. The evidence still holds the value
// (the line reads "auf 1.000,00"), so the only fault is arithmetic: net +
// tax != total.
var v2BadSums = strings.Replace(v2Answer, `"tax_minor":19000,"total_minor"`, `"tax_minor":100000,"total_minor"`, 1)

// v2Input writes v2Source as the only document of a fresh input folder.
func v2Input(t *testing.T) (tmp, in string) {
	t.Helper()
	if v2BadSums == v2Answer {
		t.Fatal("v2BadSums: replacement did not apply")
	}
	tmp = t.TempDir()
	in = filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "acme.txt"), []byte(v2Source), 0o644); err != nil {
		t.Fatal(err)
	}
	return tmp, in
}
