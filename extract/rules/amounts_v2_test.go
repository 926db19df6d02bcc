package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/invx/invx/schema"
)

// amountsWant is readAmountsV2's answer in a compact, comparable form:
// amounts as minor units or "-" for null, tax lines as [rate base tax].
type amountsWant struct {
	cur, net, tax, total, due string
	taxLines                  string
	lines                     int
	complete                  bool
}

func tlStr(a amountsV2) string {
	var b strings.Builder
	for _, tl := range a.TaxLines {
		base := "-"
		if tl.BaseMinor != nil {
			base = fmt.Sprint(*tl.BaseMinor)
		}
		fmt.Fprintf(&b, "[%d %s %d]", tl.RateBP, base, tl.TaxMinor)
	}
	return b.String()
}

func gotWant(a amountsV2) amountsWant {
	cur := "-"
	if a.Currency != nil {
		cur = a.Currency.V
	}
	return amountsWant{cur, factStr(a.Net), factStr(a.Tax), factStr(a.Total), factStr(a.Due), tlStr(a), len(a.Lines), a.LinesComplete}
}

// readV2 runs readAmountsV2 on text and checks, for every case, that the
// answer passes invoice-v2 validation on that text (evidence and
// arithmetic), so no case can pass with evidence the validator refuses.
func readV2(t *testing.T, text string) amountsV2 {
	t.Helper()
	a := newDocument(text).readAmountsV2()
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Validate(wrapV2(t, a), text); err != nil {
		t.Fatalf("answer does not validate: %v", err)
	}
	return a
}

func TestReadAmountsV2(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want amountsWant
	}{
		{
			name: "de net after discount, not the subtotal before it",
			text: `Pos.  Menge  Bezeichnung                 Einzelpreis    Gesamtpreis
1         2  Therme                         1.000,00 €     2.000,00 €
2       1,5  Monteurstunden                    68,00 €       102,00 €

                         Summe netto                       2.102,00 €
                         Rabatt 5 % auf Pos. 1              -100,00 €
                         Nettobetrag                       2.002,00 €
                         zzgl. 19 % MwSt.                    380,38 €
                         Gesamtbetrag                      2.382,38 €
`,
			want: amountsWant{"EUR", "200200", "38038", "238238", "-", "[1900 - 38038]", 2, false},
		},
		{
			// Two total words: only the qualifier tells them apart. The
			// tax is a whole amount in a column headed by its currency.
			name: "de total word qualified ohne USt. is the net, not a second gross",
			text: `Rechnungssumme ohne USt.                    16.000,00 EUR
Steuerbetrag in EUR                             3.040
Bruttosumme                                 19.040,00 EUR
Erhaltene Anzahlungen                        8.000,00 EUR
Zahlbetrag                                  11.040,00 EUR
`,
			want: amountsWant{"EUR", "1600000", "304000", "1904000", "1104000", "", 0, false},
		},
		{
			name: "en subtotal followed by a discount is no net",
			text: `Acme LLC, Austin, TX 78701

Description                     Qty      Price       Amount
Widget                            4     $25.00      $100.00

                     Subtotal                     $100.00
                     Discount                     -$10.00
                     Sales tax                      $7.20
                     Total                         $97.20
`,
			want: amountsWant{"USD", "-", "720", "9720", "-", "", 1, false},
		},
		{
			// India's GST: a central and a state half at one rate and
			// of one amount are two taxes, not one printed twice.
			name: "in cgst and sgst halves are two tax lines, the net adds both",
			text: `Sharma Electricals Pvt. Ltd., Delhi 110006

Sl  Description            HSN     Qty    Rate       Amount
1   LED Panel 18W          9405     20    450.00    9,000.00
2   MCB 32A                8536     10    210.00    2,100.00

                                   Taxable Value     11,100.00
                                   CGST @ 9%            999.00
                                   SGST @ 9%            999.00
                                   Grand Total       ₹13,098.00
`,
			want: amountsWant{"INR", "1110000", "-", "1309800", "-", "[900 - 99900][900 - 99900]", 2, true},
		},
		{
			name: "in split halves with a printed total gst",
			text: `Description          Qty    Rate      Amount
Cotton saree           4   1,200.00   4,800.00

Taxable Amount                         4,800.00
Add: CGST 2.5%                           120.00
Add: SGST 2.5%                           120.00
Total GST                                240.00
Invoice Total                       Rs. 5,040.00
`,
			want: amountsWant{"INR", "480000", "24000", "504000", "-", "[250 - 12000][250 - 12000]", 1, true},
		},
		{
			// The same tax printed in the summary and on the slip below
			// is still one tax.
			name: "a tax printed twice under one name is one tax line",
			text: `INVOICE
Net 1,000.00 GBP
VAT 20% 200.00
Total 1,200.00
Remittance: VAT 20% 200.00  Total 1,200.00
`,
			want: amountsWant{"GBP", "100000", "20000", "120000", "-", "[2000 - 20000]", 0, false},
		},
		{
			// The amount due carries an earlier bill's balance: it is
			// what to pay, but not this bill's total.
			name: "en bill with a previous balance: the amount due is no total",
			text: `Cascade Wireless, PO Box 4410, Seattle, WA 98104
ACCOUNT SUMMARY
Previous Balance                          $84.20
Payment Received Sep 20 - Thank you      -$40.00
Balance Forward                           $44.20
Current Charges                           $62.35
Total Amount Due                         $106.55
`,
			want: amountsWant{"USD", "-", "-", "-", "10655", "", 0, false},
		},
		{
			name: "en bill with no previous balance: the amount due is the total",
			text: `Cascade Wireless, PO Box 4410, Seattle, WA 98104
ACCOUNT SUMMARY
Previous Balance                           $0.00
Current Charges                           $62.35
Total Amount Due                          $62.35
`,
			want: amountsWant{"USD", "-", "-", "6235", "6235", "", 0, false},
		},
		{
			// Folding reads the OCR "l" of EXCL as "i": the qualifier
			// must still be known, or the net is taken for the gross.
			name: "my total qualified (excl gst), then a deposit",
			text: `KEDAI PAPAN YEW CHUAN, 43800 DENGKIL, SELANGOR
  TOTAL AMOUNT (EXCL GST)             461.00
  GST @ 6%                             27.66
  TOTAL AMOUNT PAYABLE     RM         488.66
  DEPOSIT PAID                        200.00
  BALANCE DUE                         288.66
`,
			want: amountsWant{"MYR", "46100", "2766", "48866", "28866", "[600 - 2766]", 0, false},
		},
		{
			name: "my sub total (exclude gst): the gst in it is no tax line",
			text: `RESTORAN WAN SHENG, 43200 CHERAS, SELANGOR
Sub Total (Exclude GST) :        6.42
GST 6% :                         0.38
Rounding Adj :                   0.00
Total :                       RM 6.80
`,
			want: amountsWant{"MYR", "642", "38", "680", "-", "[600 - 38]", 0, false},
		},
		{
			name: "my total after adjustment is the amount paid",
			text: `99 SPEED MART S/B, 41150 KLANG, SELANGOR
  Total Sales (Including GST)  RM 13.58
  Total After Adj Incl GST     RM 13.60
  CASH                         RM 20.00
  CHANGE                       RM 6.40
`,
			want: amountsWant{"MYR", "-", "-", "1358", "1360", "", 0, false},
		},
		{
			// Prices include the consumption tax, stated only in a remark:
			// the subtotal equal to the total is no net.
			name: "jp tax stated in a remark: no net",
			text: `CAFE KOMOREBI, Shibuya-ku, Tokyo 150-0002
Matcha Latte              ¥650
Cheesecake                ¥520

Subtotal                ¥1,170
(Consumption tax 10% incl. ¥106)
Total                   ¥1,170
`,
			want: amountsWant{"JPY", "-", "-", "1170", "-", "", 0, false},
		},
		{
			name: "no tax anywhere: the subtotal equal to the total is the net",
			text: `CAFE KOMOREBI, Shibuya-ku, Tokyo 150-0002
Matcha Latte              ¥650
Cheesecake                ¥520

Subtotal                ¥1,170
Total                   ¥1,170
`,
			want: amountsWant{"JPY", "1170", "-", "1170", "-", "", 0, false},
		},
		{
			name: "two totals that disagree give no total",
			text: `INVOICE
Total: 1,200.00 GBP
Services rendered in March
Total 1,250.00
`,
			want: amountsWant{"GBP", "-", "-", "-", "-", "", 0, false},
		},
		{
			name: "of two totals the one net plus tax makes",
			text: `INVOICE
Total: 1,200.00 GBP
Net 1,000.00
VAT 20% 200.00
Total 1,250.00
`,
			want: amountsWant{"GBP", "100000", "20000", "120000", "-", "[2000 - 20000]", 0, false},
		},
		{
			name: "fr two rates with bases and a printed tax total",
			text: `Désignation                       Qté       PU HT      Montant HT
Livres                              10       20,00        200,00
Papeterie                            5       60,00        300,00

                      Total HT                         500,00 €
                      TVA 5,5 % sur 200,00             11,00 €
                      TVA 20 % sur 300,00              60,00 €
                      Total TVA                        71,00 €
                      Total TTC                       571,00 €
                      Net à payer                     571,00 €
`,
			want: amountsWant{"EUR", "50000", "7100", "57100", "57100", "[550 20000 1100][2000 30000 6000]", 2, true},
		},
		{
			name: "ch tax table 8.1 and 2.6 with its totals row",
			text: `Rechnung Nr. 7                                  Beträge in CHF
Satz        Netto        MWST        Brutto
8.1 %     1'000.00       81.00     1'081.00
2.6 %       500.00       13.00       513.00
Total     1'500.00       94.00     1'594.00
`,
			want: amountsWant{"CHF", "150000", "9400", "159400", "-", "[810 100000 8100][260 50000 1300]", 0, false},
		},
		{
			// The date stands between label and amount with only label
			// words around it: the amount payable, not a sentence.
			name: "amount due by a date",
			text: `Charges                                   EUR 346.71
VAT                                        EUR 65.87
Total amount due by December 2, 2026      EUR 412.58
`,
			want: amountsWant{"EUR", "-", "6587", "41258", "41258", "", 0, false},
		},
		{
			name: "pl one-rate tax table without a totals row makes the total",
			text: `Do zapłaty: 922,50 PLN

Stawka VAT    Wartość netto    Kwota VAT    Wartość brutto
23%                 750,00       172,50            922,50
`,
			want: amountsWant{"PLN", "75000", "17250", "92250", "92250", "[2300 75000 17250]", 0, false},
		},
		{
			// An exempt part outside the one rate: base and tax are not
			// the document's net and tax.
			name: "one-rate tax table short of the total",
			text: `Do zapłaty: 1 022,50 PLN

Stawka VAT    Wartość netto    Kwota VAT    Wartość brutto
23%                 750,00       172,50            922,50
`,
			want: amountsWant{"PLN", "-", "-", "102250", "102250", "[2300 75000 17250]", 0, false},
		},
		{
			name: "nl two rates without a printed tax total",
			text: `Omschrijving                     Aantal    Prijs     Bedrag
Brood                                10     2,00      20,00
Servetten                             2    50,00     100,00
                      Subtotaal excl. BTW        € 120,00
                      BTW 9% over € 20,00        €   1,80
                      BTW 21% over € 100,00      €  21,00
                      Totaal te betalen          € 142,80
`,
			want: amountsWant{"EUR", "12000", "-", "14280", "14280", "[900 2000 180][2100 10000 2100]", 2, true},
		},
		{
			name: "es reverse charge at 0 %",
			text: `Descripción                         Cant.    Precio     Importe
Montaje                                 1    500,00      500,00
                       Base imponible              500,00 €
                       IVA 0 %                       0,00 €
                       Total factura               500,00 €
Inversión del sujeto pasivo.
`,
			want: amountsWant{"EUR", "50000", "0", "50000", "-", "[0 - 0]", 1, true},
		},
		{
			name: "it deposit: gross total and the amount still due",
			text: `Descrizione                        Q.tà     Prezzo     Importo
Cucina                                1   1.000,00    1.000,00
                          Imponibile               € 1.000,00
                          IVA 22%                  €   220,00
                          Totale documento         € 1.220,00
                          Acconto versato          €  -200,00
                          Totale da pagare         € 1.020,00
`,
			want: amountsWant{"EUR", "100000", "22000", "122000", "102000", "[2200 - 22000]", 1, true},
		},
		{
			name: "only an amount payable is the total too",
			text: `Rechnung 12
Leistung   Beratung
Zahlbetrag: 595,00 EUR
`,
			want: amountsWant{"EUR", "-", "-", "59500", "59500", "", 0, false},
		},
		{
			name: "a rate finer than a basis point gives no tax lines",
			text: `                 Sous-total              1 000,00 $ CAD
                 TPS (5 %)                  50,00 $
                 TVQ (9,975 %)              99,75 $
                 Total                   1 149,75 $
`,
			want: amountsWant{"CAD", "100000", "-", "114975", "-", "", 0, false},
		},
		{
			name: "reminder: the amount due includes the fees",
			text: `Zahlungserinnerung
Offener Rechnungsbetrag        1.000,00 €
Mahngebühr                         5,00 €
Gesamt zu zahlen               1.005,00 €
`,
			want: amountsWant{"EUR", "-", "-", "100000", "100500", "", 0, false},
		},
		{
			name: "a rate that does not make its tax is no tax line",
			text: `Nettobetrag       1.000,00 EUR
MwSt. 19 %          200,00 EUR
Gesamtbetrag      1.200,00 EUR
`,
			want: amountsWant{"EUR", "100000", "20000", "120000", "-", "", 0, false},
		},
		{
			name: "lakh grouping is read and cited",
			text: `Software development services            ₹ 4,50,000.00
Total                                    ₹ 4,50,000.00
`,
			want: amountsWant{"INR", "-", "-", "45000000", "-", "", 0, false},
		},
		{
			name: "a label far from its amount cites the amount alone",
			text: "Gesamtbetrag" + strings.Repeat(" ", 520) + "1.000,00 EUR\n",
			want: amountsWant{"EUR", "-", "-", "100000", "-", "", 0, false},
		},
		{
			name: "a bidi mark between label and amount cites the amount alone",
			text: "Gesamtbetrag \u200f   1.000,00 EUR\n",
			want: amountsWant{"EUR", "-", "-", "100000", "-", "", 0, false},
		},
		{
			name: "no currency anywhere: no amounts",
			text: `Total 1.000,00
`,
			want: amountsWant{"-", "-", "-", "-", "-", "", 0, false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := gotWant(readV2(t, tc.text)); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
