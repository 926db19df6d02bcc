package rules

import "testing"

func TestLegalNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want string // "" for none
	}{
		{"Müller Haustechnik GmbH · Industriestraße 12 · 70565 Stuttgart", "Müller Haustechnik GmbH"},
		{"Acme Widgets, Inc.", "Acme Widgets, Inc."},
		{"Thank you for choosing Acme Ltd", "Acme Ltd"},
		{"Weber & Söhne GmbH & Co. KG", "Weber & Söhne GmbH & Co. KG"},
		{"LEFÈVRE ÉLECTRICITÉ SAS", "LEFÈVRE ÉLECTRICITÉ SAS"},
		{"Kowalski Logistyka Sp. z o.o.", "Kowalski Logistyka Sp. z o.o."},
		{"de Vries Bouw B.V.", "de Vries Bouw B.V."},
		{"Studio di Architettura Rossi S.r.l.", "Studio di Architettura Rossi S.r.l."},
		{"Please make payment to Cloudnest Hosting Limited", "Cloudnest Hosting Limited"},
		{"MAKE CHECKS PAYABLE TO ACME WIDGETS INC.", "ACME WIDGETS INC."},
		{"Registered office: Bright Sparks Electrical Ltd, 4 High Street", "Bright Sparks Electrical Ltd"},
		{"Vogel Mediendesign UG (haftungsbeschränkt)", "Vogel Mediendesign UG (haftungsbeschränkt)"},
		{"This is a limited offer", ""},
		{"Bitte zahlen Sie ab 01.03. an die Bank AG", ""},
		{"AG", ""},
		{"FERRETERIA EL TORNILLO S.A. DE C.V.", "FERRETERIA EL TORNILLO S.A. DE C.V."},
		{"Grupo Norte, S. de R.L. de C.V.  RFC: GNO010101AA1", "Grupo Norte, S. de R.L. de C.V."},
	}
	for _, tc := range tests {
		got := legalNamesIn(tc.line, 0, len(tc.line), reLegalForm.FindAllStringIndex(tc.line, -1))
		g := ""
		if len(got) > 0 {
			g = got[0]
		}
		if g != tc.want {
			t.Errorf("legalNamesIn(%q) = %q, want %q", tc.line, g, tc.want)
		}
	}
}

func TestSupplier(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want string // "" for null
	}{
		{"header company", "Acme Tools Ltd\n1 High St\n\nBill to:\nGlobex Corp\n\nInvoice No. 1\n", "Acme Tools Ltd"},
		{"customer first, labelled", "Bill to:\nGlobex Corp\n1 Main St\n\nFrom:\nAcme Tools Ltd\n", "Acme Tools Ltd"},
		{"two columns", "Acme Tools Ltd                    Invoice to:\n1 High St                         Globex Corp\n", "Acme Tools Ltd"},
		{"footer registration", "INVOICE 7\nTo: Globex Corp\nTotal £5.00\n\nAcme Tools Ltd, registered in England No. 123\n", "Acme Tools Ltd"},
		{"bank is not the supplier", "Invoice No. 7\nBank: Deutsche Bank AG, IBAN DE12 3456\n", ""},
		{"no name at all", "Invoice No. 7\nTotal 5,00 EUR\n", ""},
		{"salutation is not a name", "Dear team,\nplease find the invoice attached.\n", ""},
		{"brand then legal name", "BRIGHTLINE\n14 Fenchurch Avenue, London\n\nInvoice to: Northwind Traders Limited\nInvoice No. 7\n\nBrightline Consulting Ltd\n", "Brightline Consulting Ltd"},
		{"remittance slip", "Acme Tools Ltd\nInvoice to: Globex Corp\n\nREMITTANCE ADVICE\nTo: Acme Tools Ltd\nFrom: Globex Corp\n", "Acme Tools Ltd"},
		// The legal name sits too far down to outscore the brand on its own:
		// only folding the brand into it makes it win.
		{"brand merged into a distant legal name", "BRIGHTLINE\n14 Fenchurch Avenue, London\n\nInvoice to: Northwind Traders Limited\nInvoice No. 7\n" +
			"Date: 01.02.2026\nConsulting, January\nConsulting, February\nConsulting, March\nWorkshop\nTravel\nNet 30 days\n\n" +
			"Brightline Consulting Ltd\n", "Brightline Consulting Ltd"},
		// The customer appears only on the slip, whose "From" is the
		// customer: read the other way round, it would win as a supplier block.
		{"remittance slip reverses from", "Acme Tools Ltd\nInvoice No. 7\n\nREMITTANCE ADVICE\nTo: Acme Tools Ltd\nFrom: Globex Corp\n", "Acme Tools Ltd"},
		// A title in another script is no name; nor is the addressee an
		// honorific marks: null for review beats the title or the buyer.
		{"greek title", "ΤΙΜΟΛΟΓΙΟ ΠΑΡΟΧΗΣ ΥΠΗΡΕΣΙΩΝ\nΑριθμός: ΤΠΥ-0457\nΗμερομηνία: 23/11/2026\n", ""},
		{"russian title", "СЧЁТ-ФАКТУРА № 118 от 20.11.2026\nПродавец: ООО \"Вектор\"\n", ""},
		{"japanese title and addressee", "請求書\n\n株式会社さくらデザイン 御中\n\n請求番号: INV-2026-1142\n", ""},
		{"korean addressee", "주식회사 한빛상사 귀하\n\nInvoice No. 7\n", ""},
		{"latin name after a greek title", "ΤΙΜΟΛΟΓΙΟ\nAegean Consulting S.A.\nInvoice No. 7\n", "Aegean Consulting S.A."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Extract(tc.text).Invoice.SupplierName
			g := ""
			if got != nil {
				g = *got
			}
			if g != tc.want {
				t.Errorf("supplier = %q, want %q", g, tc.want)
			}
		})
	}
}

func TestInvoiceNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want string // "" for null
	}{
		{"same line", "Invoice No.: INV-2026-001\n", "INV-2026-001"},
		{"german", "Rechnungsnummer: RE-2026-00417\n", "RE-2026-00417"},
		{"french", "Facture n° F-2026-0042\n", "F-2026-0042"},
		{"glued sign", "FACTURE N°FA2026-001\n", "FA2026-001"},
		{"glued label", "Invoice No.INV-001\n", "INV-001"},
		{"spaced parts", "Invoice No.: 2026 0042      Date: 01.03.2026\n", "2026 0042"},
		{"series letter", "Nº factura: A 1234\n", "A 1234"},
		{"number then date", "Invoice No. 4711 12.03.2026\n", "4711"},
		{"number then words", "Rechnung Nr. 12345 vom 01.03.2026\n", "12345"},
		{"spanish", "Nº factura: 2026/0173\n", "2026/0173"},
		{"dutch", "Factuurnummer 2026-0456\n", "2026-0456"},
		{"italian", "Fattura n. 123/2026 del 10/03/2026\n", "123/2026"},
		{"next line", "Invoice Number\nINV-77\n", "INV-77"},
		{"table header", "Invoice No.   Date         Customer No.\nA-1009        01.03.2026   K-55\n", "A-1009"},
		{"ocr", "lnvoice N0: BJ-1142\n", "BJ-1142"},
		{"title", "RECHNUNG 2026-118\n", "2026-118"},
		{"credit note beats cited invoice", "CREDIT NOTE\nCredit note no. CN-7\nRe: invoice no. INV-5\n", "CN-7"},
		{"nr. under the title", "Rechnung\nNr. 2026-0456                Kassel, 12.11.2026\n", "2026-0456"},
		{"an address under the title", "TAX INVOICE\nNO. 12, JALAN SS2/64\n", ""},
		{"never a date", "Invoice No.: 01.03.2026\n", ""},
		{"never the customer number", "Customer No.: 10233\nOrder No.: 4711\n", ""},
		{"absent", "Total 5,00 EUR\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Extract(tc.text).Invoice.InvoiceNumber
			g := ""
			if got != nil {
				g = *got
			}
			if g != tc.want {
				t.Errorf("invoice_number = %q, want %q", g, tc.want)
			}
		})
	}
}
