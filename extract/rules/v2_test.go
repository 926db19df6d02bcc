package rules

import (
	"strings"
	"testing"

	"github.com/invx/invx/schema"
)

// v2Of extracts text as invoice-v2 and checks that the answer validates.
func v2Of(t *testing.T, text string) schema.InvoiceV2 {
	t.Helper()
	got := ExtractV2(text)
	checkV2(t, "", text, got)
	return got
}

// factCase is one text and the value a finder must read from it; want ""
// means null.
type factCase struct {
	name string
	text string
	want string
}

// runFactCases runs the cases against one fact of the answer.
func runFactCases(t *testing.T, cases []factCase, fact func(schema.InvoiceV2) *string) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := orDash(fact(v2Of(t, c.text)))
			want := c.want
			if want == "" {
				want = "-"
			}
			if got != want {
				t.Errorf("got %q, want %q\ntext:\n%s", got, want, c.text)
			}
		})
	}
}

func TestDocumentType(t *testing.T) {
	t.Parallel()
	cases := []factCase{
		{"en invoice", "Acme Ltd\n\nINVOICE\nInvoice No. INV-1\nTotal 10.00 EUR\n", schema.DocInvoice},
		{"de rechnung", "Muster GmbH\n\nRechnung\nRechnungsnummer: RE-7\nGesamtbetrag 10,00 €\n", schema.DocInvoice},
		{"it fattura with number", "Rossi S.r.l.\n\nFATTURA N. 2026-1\nData: 01/03/2026\n", schema.DocInvoice},
		{"invoice number label only", "Acme Ltd\nInvoice number: 77\nTotal 5.00 EUR\n", schema.DocInvoice},
		{"de gutschrift citing rechnung", "Brandt GmbH\n\nGUTSCHRIFT\nGutschrift-Nr.: GS-1\nzu Rechnung Nr.: RE-5 vom 05.03.2026\nBetrag 10,00 €\n", schema.DocCreditNote},
		{"en credit note", "Acme Ltd\n\nCREDIT NOTE\nCredit note no. CN-1\nOriginal invoice: INV-9\n", schema.DocCreditNote},
		{"fr avoir", "Morel SAS\n\nAVOIR\nAvoir n° : AV-1\nFacture d'origine : FC-2\n", schema.DocCreditNote},
		{"es factura rectificativa", "Ebro S.L.\n\nFACTURA RECTIFICATIVA\nNº R-1\nFactura rectificada: A-7\n", schema.DocCreditNote},
		{"nl creditfactuur", "Smit B.V.\n\nCreditfactuur\nFactuurnummer: C-1\n", schema.DocCreditNote},
		{"it nota di credito", "Rossi S.r.l.\n\nNota di credito n. 4\nRif. fattura 2026/7\n", schema.DocCreditNote},
		{"invoice listing a credit note below its heading", "Acme Ltd\n\nINVOICE\nInvoice No. INV-1\n" + strings.Repeat("Item line\n", 30) + "Credit note no.: CN-5\n", schema.DocInvoice},
		{"de zahlungserinnerung citing rechnung", "Lindner GmbH\n\nZahlungserinnerung\n\nRechnung Nr. 2026-0219 vom 02.02.2026\nOffener Betrag: 100,00 €\n", schema.DocReminder},
		{"reminder below the invoice number it is about", "Lindner GmbH        Rechnung Nr.: 2026-0219\n\nZahlungserinnerung\nOffener Betrag: 100,00 €\n", schema.DocReminder},
		{"de 1. mahnung", "Lindner GmbH\n\n1. Mahnung\nRechnungsnummer: 2026-1\n", schema.DocReminder},
		{"en overdue reminder with a subtitle", "Fenwick Ltd\n\n31 March 2026\n\nOVERDUE PAYMENT REMINDER - THIS IS NOT A NEW INVOICE\n\nInvoice number: FS-1\n", schema.DocReminder},
		{"fr relance in the subject line", "Bretonne SARL\n\nObjet : RELANCE – facture impayée (2e rappel)\n\nFacture n° F-1\n", schema.DocReminder},
		{"en payment reminder", "Acme Ltd\n\nPAYMENT REMINDER\nInvoice INV-4 is overdue.\n", schema.DocReminder},
		{"fr relance", "Garnier SARL\n\nRelance\nFacture n° F-9 du 01/02/2026\n", schema.DocReminder},
		{"es recordatorio", "Ebro S.L.\n\nRecordatorio de pago\nFactura nº A-1\n", schema.DocReminder},
		{"nl aanmaning", "Smit B.V.\n\nAanmaning\nFactuurnummer: 12\n", schema.DocReminder},
		{"it sollecito", "Rossi S.r.l.\n\nSollecito di pagamento\nFattura n. 3\n", schema.DocReminder},
		{"invoice saying it is not a reminder", "Acme Ltd\n\nINVOICE\nInvoice No. 5\nThis is not a reminder; payment terms 30 days.\n", schema.DocInvoice},
		{"fr invoice with a rappel sentence", "Morel SAS\n\nFACTURE\nFacture n° F-1\nRappel : tout retard de paiement entraîne des pénalités.\n", schema.DocInvoice},
		{"statement of account listing invoices", "Lakeside Supply Co.\n\nSTATEMENT OF ACCOUNT\nStatement Date: 11/30/2026\n\n11/04/2026  INV-30117  Invoice  186.40\nAmount Due  186.40\n", schema.DocOther},
		{"de kontoauszug", "Brandt GmbH\n\nKontoauszug\nRechnung RE-5  100,00 €\n", schema.DocOther},
		{"invoice with a statement date", "Acme Ltd\n\nINVOICE\nInvoice No. INV-1\nStatement date: 01/03/2026\nTotal 10.00 EUR\n", schema.DocInvoice},
		{"invoice titled before a statement", "Acme Ltd\n\nINVOICE\nInvoice No. INV-1\n\nStatement\nTotal 10.00 EUR\n", schema.DocInvoice},
		{"receipt", "Corner Cafe\n\nRECEIPT\nReceipt no. 1182\nTotal 4.50 EUR\nPaid by card\n", schema.DocReceipt},
		{"kassenbon", "Bäckerei Kurz\nKassenbon\nSumme 3,20 EUR\nBar bezahlt\n", schema.DocReceipt},
		{"ticket paid cash", "Bar Central\nTicket 0042\nTotal 7,00 EUR\nCash\n", schema.DocReceipt},
		{"bilingual title, the first word unknown", "Sari Store\n\nRESIBO / RECEIPT\nTotal 120.00 PHP\n", schema.DocReceipt},
		{"bilingual title with a bar", "Toko Maju\n\nNOTA PEMBELIAN | INVOICE\nTotal 50.000 IDR\n", schema.DocInvoice},
		{"slash after a word that is no title", "Acme Ltd\nTel / Fax 555-0100\nTotal 5.00 USD\n", schema.DocOther},
		{"slash after a number", "Acme Ltd\nPage 1 / Receipt\nTotal 5.00 USD\n", schema.DocOther},
		{"my resit", "Kedai Murni\n\nRESIT\nJumlah RM 12.00\n", schema.DocReceipt},
		{"my cash sales", "Soon Huat Enterprise\n\nCASH SALES\nDOC NO. : CS00004040\nTotal 327.00\n", schema.DocReceipt},
		{"official receipt", "City Council\n\nOFFICIAL RECEIPT\nAmount 40.00\n", schema.DocReceipt},
		{"simplified tax invoice", "Gin Kee Trading\n\nSIMPLIFIED TAX INVOICE\nDOC NO : CS00012507\nTotal 93.07\n", schema.DocInvoice},
		{"id faktur", "PT Sinar Abadi\n\nFAKTUR\nNo. 2019/0045\nTotal Rp 1.500.000\n", schema.DocInvoice},
		{"untitled till slip giving change", "Pustaka Ilmu\n15/08/18 11:07  SLIP NO.: 0030418862\nBOOK  7.20\nTOTAL RM 7.20\nCASH RM 10.00\nCHANGE RM 2.80\n", schema.DocReceipt},
		{"untitled slip, change more than the cash", "Pustaka Ilmu\nBOOK  7.20\nTOTAL RM 7.20\nCASH RM 1.00\nCHANGE RM 2.80\n", schema.DocOther},
		{"untitled slip paid, no change line", "Pustaka Ilmu\nBOOK  7.20\nTOTAL RM 7.20\nCASH RM 7.20\n", schema.DocOther},
		{"pt fatura with its series code", "Papelaria Lusitana, Lda.\n\nFATURA FT 2026/1187\nData: 2026-06-09\n", schema.DocInvoice},
		{"pt fatura simplificada", "Café Central\n\nFatura Simplificada n.º FS 1/88\nTotal 4,50 EUR\n", schema.DocInvoice},
		{"pt fatura-recibo", "Café Central\n\nFATURA-RECIBO FR 2026/12\nTotal 4,50 EUR\n", schema.DocReceipt},
		{"br nota fiscal", "Comercial Paulista Ltda.\n\nNOTA FISCAL Nº 000.123.456\nValor total R$ 1.200,00\n", schema.DocInvoice},
		{"untitled slip paid by visa", "SHELL\n1520 W COLFAX AVE\nFUEL TOTAL  $ 42.95\nTOTAL       $ 42.95\nVISA         $ 42.95\nAUTH# 004512\n", schema.DocReceipt},
		{"untitled kassenbon paid by ec-cash", "REWE Markt GmbH\nBROETCHEN 6ER   1,99 B\nSUMME     EUR   9,87\nGeg. EC-Cash    EUR   9,87\n", schema.DocReceipt},
		{"slip with a number label paid by card", "REWE Markt GmbH\nSUMME     EUR   9,87\nGeg. EC-Cash    EUR   9,87\nBeleg-Nr. 4821\n", schema.DocReceipt},
		{"untitled ticket paid by cb", "CARREFOUR MARKET\n69002 LYON\n TOTAL A PAYER   7,33 €\n CB EMV          7,33 €\n", schema.DocReceipt},
		{"it documento commerciale", "BAR ROMA\n\nDOCUMENTO COMMERCIALE\ndi vendita o prestazione\nTOTALE COMPLESSIVO 6,30\n", schema.DocReceipt},
		{"untitled slip paid by pin", "Bakkerij Smit\nKrentenbollen   3,20\nTotaal    € 3,20\nPIN       € 3,20\n", schema.DocReceipt},
		{"untitled, the card pays another amount", "SHELL\nTOTAL       $ 42.95\nVISA         $ 20.00\n", schema.DocOther},
		{"untitled, a card line and no total", "SHELL\nFUEL   $ 42.95\nVISA   $ 42.95\n", schema.DocOther},
		{"untitled, a card number", "Acme Ltd\nTotal 42.95 USD\nCard: 4242\n", schema.DocOther},
		{"tax receipt", "Hope Foundation\n\nOFFICIAL TAX RECEIPT\nAmount 100.00 CAD\n", schema.DocReceipt},
		{"tax cash sales", "Ah Seng Trading\n\nTAX CASH SALES\nTotal 12.00\n", schema.DocReceipt},
		{"my invois", "Syarikat Jaya\n\nINVOIS\nNo. 88\nJumlah RM 10.00\n", schema.DocInvoice},
		{"proforma", "Acme Ltd\n\nPRO FORMA INVOICE\nNo. PF-2\n", schema.DocProforma},
		{"de proforma-rechnung", "Muster GmbH\n\nProforma-Rechnung Nr. 12\n", schema.DocProforma},
		{"debit note", "Acme Ltd\n\nDEBIT NOTE\nDebit note no. DN-3\n", schema.DocDebitNote},
		{"belastungsanzeige", "Muster GmbH\n\nBelastungsanzeige Nr. 3\n", schema.DocDebitNote},
		{"fr note de débit", "Morel SAS\n\nNote de débit n° 8\n", schema.DocDebitNote},
		{"de handelsrechnung with its code", "Muster GmbH\n\nHandelsrechnung (380) Nr. 47 vom 15.11.2024\n", schema.DocInvoice},
		{"de title, qualifier and type code", "Musterbetrieb AG\n\nTeilrechnung Bau (875) Nr. 210111 vom 30.05.2025\n", schema.DocInvoice},
		{"de credit note title with its type code", "Musterbetrieb AG\n\nGutschrift Material (381) Nr. 5 vom 30.05.2025\n", schema.DocCreditNote},
		{"de schlussrechnung", "Holzbau GmbH\n\nSchlussrechnung Nr. SR-1\nZahlbetrag 10,00 €\n", schema.DocInvoice},
		{"de abschlagsrechnung", "Holzbau GmbH\n\n3. Abschlagsrechnung\nBauvorhaben Kita\n", schema.DocInvoice},
		{"de proformarechnung in one word", "Muster GmbH\n\nProformarechnung Nr. 12\n", schema.DocProforma},
		{"nl eindfactuur", "Smit B.V.\n\nEindfactuur\nProject 7\n", schema.DocInvoice},
		{"en interim invoice", "Acme Ltd\n\nINTERIM INVOICE\nProject 7\n", schema.DocInvoice},
		{"a word merely ending in rechnung in a sentence", "Muster GmbH\n\nAbrechnung der Kosten folgt getrennt, sobald alle Belege vorliegen.\n", schema.DocOther},
		{"other", "Dear customer,\nplease find our catalogue attached.\nKind regards\n", schema.DocOther},
		{"statement is other", "Acme Ltd\n\nSTATEMENT OF ACCOUNT\nBalance 100.00 EUR\n", schema.DocOther},
	}
	runFactCases(t, cases, func(d schema.InvoiceV2) *string { return &d.DocumentType })
}

func TestSupplierVATID(t *testing.T) {
	t.Parallel()
	cases := []factCase{
		{"de spaced", "Brandt GmbH\nTel. 0421 555 300 · USt-IdNr.: DE 812 445 903\n\nRechnung Nr. 1\n", "DE812445903"},
		{"de glued in footer", "Rechnung Nr. 1\n\nMuster GmbH · HRB 1234 · DE812445903\n", "DE812445903"},
		{"gb grouped", "Acme Ltd\nVAT Reg. No.: GB 284 5519 07\nInvoice No. 1\n", "GB284551907"},
		{"ch uid with suffix", "Alpenglas AG\nMWST-Nr. CHE-109.447.218 MWST\nRechnung Nr. 1\n", "CHE109447218MWST"},
		{"at uid", "Pichler GmbH\nUID: ATU64417708\nRechnung 1\n", "ATU64417708"},
		{"nl dotted", "Smit B.V.\nKvK 18044712 | BTW NL8144.71.205.B01\nFactuur 1\n", "NL814471205B01"},
		{"fr tva", "Morel SAS\nRCS Créteil 438 221 907 – TVA FR 09 438221907\nFacture n° 1\n", "FR09438221907"},
		{"it partita iva with prefix", "Rossi S.r.l.\nPartita IVA IT 01234567890\nFattura n. 1\n", "IT01234567890"},
		{"es nif with prefix", "Ebro S.L.\nNIF: ESB50884712\nFactura nº 1\n", "ESB50884712"},
		{"reverse charge: supplier and buyer", "Calderbrook Software Ltd\nVAT No. GB 311 4482 90\n\nInvoice # 1\n\nCustomer:\nVogt Logistik GmbH\nHamburg\nVAT ID: DE 287 441 903\n\nReverse charge applies.\n", "GB311448290"},
		{"buyer id labelled as the customer's", "Acme Ltd\nInvoice No. 1\nCustomer VAT ID: DE287441903\n", ""},
		{"buyer id only, in the customer block", "Acme Ltd\nInvoice No. 1\n\nBill to:\nVogt Logistik GmbH\nVAT ID: DE 287 441 903\n", ""},
		{"two ids nobody places", "Invoice No. 1\nVAT DE287441903\nVAT DE812445903\n", ""},
		{"es cif without country prefix", "Ebro S.L.\nCIF: B50884712\nFactura nº 1\n", "ESB50884712"},
		{"it partita iva without prefix, buyer's below", "Fontana S.p.A.\nP.IVA 00994470962 – Tel. 0362 555 190\n\nSpett.le\nOleodinamica Brianza S.r.l.\nVia Milano 141\nP.IVA 04417120965\n\nFATTURA N. 1\n", "IT00994470962"},
		{"it buyer's partita iva only", "Fontana S.p.A.\n\nSpett.le\nOleodinamica Brianza S.r.l.\nVia Milano 141\nP.IVA 04417120965\n\nFATTURA N. 1\n", ""},
		{"it codice fiscale is no vat id", "Rossi S.r.l.\nC.F. RSSMRA80A01H501U\nFattura n. 1\n", ""},
		{"bad syntax", "Acme GmbH\nUSt-IdNr. DE 12345\n", ""},
		{"an iban is no vat id", "Acme BV\nIBAN BE01 5390 0754 7034\nFactuur 1\n", ""},
		{"spaced without a label", "Invoice No. 1\nNO 123456789 units shipped\n", ""},
	}
	runFactCases(t, cases, func(d schema.InvoiceV2) *string { return d.SupplierVATID })
}

func TestSupplierIBAN(t *testing.T) {
	t.Parallel()
	// DE89370400440532013000 and GB29NWBK60161331926819 are the registry's
	// example IBANs; NL91ABNA0417164300 and BE68539007547034 are valid too.
	cases := []factCase{
		{"grouped", "Invoice No. 1\nBank: Commerzbank, IBAN DE89 3704 0044 0532 0130 00\n", "DE89370400440532013000"},
		{"glued", "Factuur 1\nIBAN: NL91ABNA0417164300 t.n.v. Smit B.V.\n", "NL91ABNA0417164300"},
		{"bad checksum", "Rechnung 1\nIBAN DE12 6709 2300 0033 4471 00\n", ""},
		{"two without a hint", "Invoice 1\nIBAN DE89 3704 0044 0532 0130 00\nIBAN GB29 NWBK 6016 1331 9268 19\n", ""},
		{"new bank details", "Invoice 1\nOld account: IBAN DE89 3704 0044 0532 0130 00\n\nPlease note our new bank details:\nIBAN GB29 NWBK 6016 1331 9268 19\n", "GB29NWBK60161331926819"},
		{"de neue bankverbindung", "Rechnung 1\nBitte beachten Sie unsere neue Bankverbindung:\nIBAN DE89 3704 0044 0532 0130 00\n\nUnsere alte Bankverbindung IBAN NL91 ABNA 0417 1643 00 ist nicht mehr gültig.\n", "DE89370400440532013000"},
		{"the only one is the old one", "Factuur 1\nBetalingen naar ons oude rekeningnummer (NL91 ABNA 0417 1643 00) worden niet meer verwerkt.\n", ""},
		{"direct debit from the buyer", "Rechnung 1\nDer Betrag wird per SEPA-Lastschrift von Ihrem Konto abgebucht:\nIBAN DE89 3704 0044 0532 0130 00\n", ""},
		{"direct debit and the supplier's", "Invoice 1\nWe will debit your account IBAN DE89 3704 0044 0532 0130 00\n\n\n\nOur bank: IBAN GB29 NWBK 6016 1331 9268 19\n", "GB29NWBK60161331926819"},
		{"in the buyer's address block", "Acme Ltd\nInvoice No. 1\n\nBill to:\nVogt Logistik GmbH\nIBAN DE89 3704 0044 0532 0130 00\n", ""},
		{"be", "Factuur 1\nTe betalen op rekening BE68 5390 0754 7034 (BIC: BBRUBEBB)\n", "BE68539007547034"},
	}
	runFactCases(t, cases, func(d schema.InvoiceV2) *string { return d.SupplierIBAN })
}

func TestBuyerName(t *testing.T) {
	t.Parallel()
	cases := []factCase{
		{"bill to same line", "Bluewater IT Services LLC\n\nInvoice Number: 1\n\nBill To:  Crestview Dental Partners, Inc.\n          1200 Lafayette Road\n", "Crestview Dental Partners, Inc."},
		{"customer on the next line", "Acme Ltd\n\nInvoice No. 1\n\nCustomer:\nKingsmere Dental Practice Ltd\n12 High Street\n", "Kingsmere Dental Practice Ltd"},
		{"attention line skipped", "Acme Ltd\nInvoice No. 1\n\nBill to:\nAttn: Accounts Payable\nFailaka Shipping Co. K.S.C.C.\n", "Failaka Shipping Co. K.S.C.C."},
		{"rechnungsempfänger", "Muster GmbH\n\nRechnungsempfänger: Bäckerei Hofmann GmbH & Co. KG\nRechnung Nr. 1\n", "Bäckerei Hofmann GmbH & Co. KG"},
		{"fr client", "Morel SAS\n\nClient :\nBâtiments Rhône-Alpes SA\n12 rue X\n\nFacture n° 1\n", "Bâtiments Rhône-Alpes SA"},
		{"es cliente two columns", "Cierzo S.L.\n\nCliente:  Ferretería Aragonesa S.A.\n          Calle Miguel Servet, 112\n", "Ferretería Aragonesa S.A."},
		{"nl aan", "Hendriks B.V.\n\nAan:\nAannemersbedrijf Rijnmond B.V.\nHavenweg 1\n", "Aannemersbedrijf Rijnmond B.V."},
		{"it spett.le", "Fontana S.p.A.\n\nSpett.le\nOleodinamica Brianza S.r.l.\nVia Milano 141\n", "Oleodinamica Brianza S.r.l."},
		{"bill to beside ship to", "Ridgeline Analytics, Inc.\n\nBILL TO                      SHIP TO\nHarbor Point Medical LLC     Harbor Point Warehouse LLC\n", "Harbor Point Medical LLC"},
		{"ship to before bill to", "Acme Ltd\nInvoice No. 1\n\nShip to: Harbor Warehouse LLC\n\nBill to: Harbor Point Medical LLC\n", "Harbor Point Medical LLC"},
		{"address window under the sender line", "Krämer Bau GmbH\nIndustriestraße 7\n\nKrämer Bau GmbH · Industriestraße 7 · 68219 Mannheim\nRheintal Immobilien AG\nRheinuferstraße 2\n\nRechnung\n", "Rheintal Immobilien AG"},
		{"address block under the letterhead", "Brandt Elektrogroßhandel GmbH\nAm Hafen 22 · 28217 Bremen\n\nElektro Schuster e.K.\nLindenweg 3\n27749 Delmenhorst\n\nRECHNUNG\n", "Elektro Schuster e.K."},
		{"address block with an attention line", "Hvidsand Design ApS                                  INVOICE\nStrandvejen 112                                      Invoice no.     2026-0093\n\nFjordlys Hotel A/S\nAtt.: Mette Sørensen, Administration\nHavnegade 9\n6700 Esbjerg\n", "Fjordlys Hotel A/S"},
		{"fr elision in the name", "Papeteries SAS\n\nClient :\nCabinet d'Architectes Morin & Roux\n12, quai Perrière\n", "Cabinet d'Architectes Morin & Roux"},
		{"heading under the letterhead is no buyer", "Hierros del Norte S.A.\nBarrio Ugarte\n\nFACTVRA\nNúmero de factura: 1\nFecha: 01/03/2026\n", ""},
		{"label with only an address", "Acme Ltd\nInvoice No. 1\n\nBill to:\n12 High Street\nLondon\n", ""},
		{"payee is not the buyer", "Acme Ltd\nInvoice No. 1\nBankverbindung: Sparkasse, Empfänger: Acme Ltd, IBAN DE89 3704 0044 0532 0130 00\n", ""},
	}
	runFactCases(t, cases, func(d schema.InvoiceV2) *string { return d.BuyerName })
}

func TestIssueDate(t *testing.T) {
	t.Parallel()
	cases := []factCase{
		{"en invoice date", "Invoice No. 1\nInvoice Date: 3 March 2026\nDue Date: 2 April 2026\n", "2026-03-03"},
		{"de rechnungsdatum not lieferdatum", "Rechnungsnummer: 1\nLieferdatum: 23.03.2026\nRechnungsdatum: 24.03.2026\n", "2026-03-24"},
		{"fr date de facture", "N° de facture : F-1\nDate de facture : 12/03/2026\n", "2026-03-12"},
		{"es fecha de emisión", "Número de factura: 1\nFecha de emisión: 31 de marzo de 2026\n", "2026-03-31"},
		{"nl factuurdatum", "Factuurnummer: 1\nFactuurdatum: 16 maart 2026\n", "2026-03-16"},
		{"it data fattura", "Numero fattura: 1\nData fattura: 31/03/2026\n", "2026-03-31"},
		{"bare date label", "Invoice No. 1\nDate: 22/03/2026\n", "2026-03-22"},
		{"value under the label", "Invoice No.    Invoice Date\nINV-7           05.03.2026\n", "2026-03-05"},
		{"letter place and date", "Alpenglas AG\n\nZürich, 31.03.2026\n\nRechnung Nr. AG-1\nObjekt: Ihre Anfrage vom 12.02.2026\n", "2026-03-31"},
		{"place and date in the last column", "Rechnung Nr. 2026-0456                        Metzingen, 25.03.2026\nIhre Bestellung Nr. 45001877 vom 02.03.2026\n", "2026-03-25"},
		{"fr le", "Horlogerie SA\n\nGenève, le 27.03.2026\n\nFacture n° 1\n", "2026-03-27"},
		{"not a date of the item table", "Rechnung\n\nPos.  Datum       Leistung                 Betrag\n1     02.03.2026  Transport Hamburg        640,00 €\n", ""},
		{"not the delivery date", "Invoice No. 1\nDelivery date: 01.03.2026\n", ""},
		{"not the due date", "Invoice No. 1\nDue date: 01.04.2026\n", ""},
		{"not the referenced invoice's date", "GUTSCHRIFT\nGutschrift-Nr.: GS-1\nzu Rechnung Nr.: RE-5 vom 05.03.2026\n", ""},
		{"reminder: the letter's date, not the invoice's", "Lindner GmbH\n\nZahlungserinnerung\n                    Göppingen, 18.03.2026\n\nRechnungsnummer   Rechnungsdatum\n2026-0219         02.02.2026\n", "2026-03-18"},
		{"number then vom", "Rechnung Nr. 2026-7 vom 04.03.2026\nBetrag 10,00 €\n", "2026-03-04"},
	}
	runFactCases(t, cases, func(d schema.InvoiceV2) *string { return d.IssueDate })
}

func TestDueDateV2(t *testing.T) {
	t.Parallel()
	cases := []factCase{
		{"due date", "Invoice No. 1\nInvoice date: 01/03/2026\nDue date: 31/03/2026\n", "2026-03-31"},
		{"reminder quoting the overdue invoice's due date", "Lindner GmbH\n\nZahlungserinnerung\n                    Göppingen, 18.03.2026\n\nRechnung    Rechnungsdatum   Fällig am\n2026-0219   02.02.2026       04.03.2026\n", ""},
	}
	runFactCases(t, cases, func(d schema.InvoiceV2) *string { return d.DueDate })
}

func TestPONumber(t *testing.T) {
	t.Parallel()
	cases := []factCase{
		{"en po number", "Invoice No. 1\nPO Number: 4500012345\n", "4500012345"},
		{"en purchase order", "Invoice No. 1\nPurchase Order:   OMH-7731        Skipton\n", "OMH-7731"},
		{"en your p.o. no", "Invoice No. 1\nYour P.O. No.:      FSC/PO/2026/118\n", "FSC/PO/2026/118"},
		{"de bestellnummer", "Rechnung Nr. 1\nIhre Bestellnummer: 4711-22\n", "4711-22"},
		{"fr bon de commande", "Facture n° 1\nBon de commande n° :   BC-2026-0457\n", "BC-2026-0457"},
		{"es pedido", "Factura nº 1\nPedido nº: PED-2026-0815\n", "PED-2026-0815"},
		{"nl inkoopordernummer", "Factuur 1\nInkoopordernummer: IO-88213\n", "IO-88213"},
		{"it ordine", "Fattura n. 1\nOrdine n.: 2026/ORD/0451\n", "2026/ORD/0451"},
		{"label then value below", "Invoice No. 7\nPO Number\n  4500012345\n", "4500012345"},
		{"our order no is the supplier's", "Invoice No. 1\nOur order no.: SO-4471\n", ""},
		{"order confirmation", "Rechnung Nr. 1\nAuftragsbestätigung Nr. AB-2026-7\n", ""},
		{"fr confirmation de commande", "Facture n° 1\nConfirmation de commande n° CC-12\n", ""},
		{"po box", "Acme Ltd, P.O. Box 24410\nInvoice No. 1\n", ""},
		{"no value", "Invoice No. 1\nPlease quote your PO number with payment.\n", ""},
	}
	runFactCases(t, cases, func(d schema.InvoiceV2) *string { return d.PONumber })
}

func TestApplySign(t *testing.T) {
	t.Parallel()
	i64 := func(v int64) *int64 { return &v }
	f := func(v int64) *fact[int64] { return &fact[int64]{V: v, Ev: "x"} }
	printed := func() amountsV2 {
		return amountsV2{
			Total: f(11900), Net: f(10000), Tax: f(1900), Due: f(11900),
			TaxLines: []schema.TaxLine{{RateBP: 1900, BaseMinor: i64(10000), TaxMinor: 1900}},
			Lines: []schema.LineItem{
				{Description: "a", UnitPriceMinor: i64(6000), AmountMinor: i64(12000)},
				{Description: "discount", AmountMinor: i64(-2000)},
			},
		}
	}
	type want struct {
		total, net, tax, due, base, taxLine int64
		lines                               []int64
		unit0                               int64
	}
	cases := []struct {
		name    string
		docType string
		in      func() amountsV2
		want    want
	}{
		{"credit note printed positive", schema.DocCreditNote, printed,
			want{-11900, -10000, -1900, -11900, -10000, -1900, []int64{-12000, 2000}, -6000}},
		{"credit note printed negative", schema.DocCreditNote, func() amountsV2 {
			a := printed()
			a.Total.V, a.Net.V = -11900, -10000
			a.Lines[0].AmountMinor, a.Lines[1].AmountMinor = i64(-12000), i64(2000)
			a.Lines[0].UnitPriceMinor = i64(-6000)
			return a
		}, want{-11900, -10000, -1900, -11900, -10000, -1900, []int64{-12000, 2000}, -6000}},
		{"invoice keeps its discount line", schema.DocInvoice, printed,
			want{11900, 10000, 1900, 11900, 10000, 1900, []int64{12000, -2000}, 6000}},
		{"invoice printed with a minus", schema.DocInvoice, func() amountsV2 {
			a := printed()
			a.Total.V = -11900
			return a
		}, want{11900, 10000, 1900, 11900, 10000, 1900, []int64{12000, -2000}, 6000}},
		{"reminder as printed", schema.DocReminder, func() amountsV2 {
			a := printed()
			a.Due.V = -5
			return a
		}, want{11900, 10000, 1900, -5, 10000, 1900, []int64{12000, -2000}, 6000}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := c.in()
			applySign(c.docType, &a)
			got := want{a.Total.V, a.Net.V, a.Tax.V, a.Due.V, *a.TaxLines[0].BaseMinor, a.TaxLines[0].TaxMinor,
				[]int64{*a.Lines[0].AmountMinor, *a.Lines[1].AmountMinor}, *a.Lines[0].UnitPriceMinor}
			if got.total != c.want.total || got.net != c.want.net || got.tax != c.want.tax || got.due != c.want.due ||
				got.base != c.want.base || got.taxLine != c.want.taxLine || got.lines[0] != c.want.lines[0] ||
				got.lines[1] != c.want.lines[1] || got.unit0 != c.want.unit0 {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
