package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/invx/invx/schema"
)

// lineStr renders a line item compactly: description|quantity|unit|amount|rate.
func lineStr(li schema.LineItem) string {
	s := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	i := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return strings.Join([]string{li.Description, s(li.Quantity), i(li.UnitPriceMinor), i(li.AmountMinor), i(li.TaxRateBP)}, "|")
}

func TestReadLineItemsV2(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		text     string
		lines    []string
		complete bool
	}{
		{
			name: "de decimal quantities and a discount row",
			text: `Pos.  Menge  Einheit  Bezeichnung              Einzelpreis    Gesamtpreis
1      1,25  Std      Beratung                    80,00 €       100,00 €
2       0,5  kg       Kaffee                      20,00 €        10,00 €
3                     Rabatt                                    -10,00 €

                                  Nettobetrag                   100,00 €
                                  MwSt. 19 %                     19,00 €
                                  Gesamtbetrag                  119,00 €
`,
			lines:    []string{"Beratung|1.25|8000|10000|-", "Kaffee|0.5|2000|1000|-", "Rabatt|-|-|-1000|-"},
			complete: true,
		},
		{
			name: "en carried forward across a page break",
			text: "Code   Description               Qty   Unit Price       Amount\n" +
				"A-1    Bearing                     2       £10.00       £20.00\n" +
				"A-2    Screw box                   1        £5.50        £5.50\n" +
				"                                 Carried forward        £25.50\n" +
				"\fACME LTD                                         Page 2 of 2\n" +
				"Code   Description               Qty   Unit Price       Amount\n" +
				"                                 Brought forward        £25.50\n" +
				"A-3    Washer                     10        £0.45        £4.50\n" +
				"                                 Net total              £30.00\n" +
				"                                 VAT @ 20%               £6.00\n" +
				"                                 Invoice total          £36.00\n",
			lines:    []string{"Bearing|2|1000|2000|-", "Screw box|1|550|550|-", "Washer|10|45|450|-"},
			complete: true,
		},
		{
			name: "an unlabelled line summing the rows is no item",
			text: `Description              Qty      Price      Amount
Bolt                       2       1.00        2.00
Nut                        4       0.50        2.00
Goods                                        €  4.00
                      Net total              €  4.00
                      VAT 20%                €  0.80
                      Total                  €  4.80
`,
			lines:    []string{"Bolt|2|100|200|-", "Nut|4|50|200|-"},
			complete: true,
		},
		{
			name: "brought forward resumes the table without a repeated header",
			text: "Description               Qty   Unit Price       Amount\n" +
				"Bearing                     2       €10.00       €20.00\n" +
				"                        Carried forward          €20.00\n" +
				"\fPage 2\n" +
				"                        Brought forward          €20.00\n" +
				"Screw box                   1        €5.50        €5.50\n" +
				"                      Total                      €25.50\n",
			lines:    []string{"Bearing|2|1000|2000|-", "Screw box|1|550|550|-"},
			complete: true,
		},
		{
			name: "a percentage outside the tax column is no line rate",
			text: `Description                   Qty      Price      Amount
Shirt, 100% organic cotton      2      10.00       20.00
                      Total                    €  20.00
`,
			lines:    []string{"Shirt, 100% organic cotton|2|1000|2000|-"},
			complete: true,
		},
		{
			name: "a page break the table does not say it continues across",
			text: "Description               Qty   Unit Price       Amount\n" +
				"Bearing                     2       €10.00       €20.00\n" +
				"\fPage 2\n" +
				"Screw box                   1        €5.50        €5.50\n" +
				"                      Total                     €25.50\n",
			lines:    []string{"Bearing|2|1000|2000|-"},
			complete: false,
		},
		{
			name: "fr per-line tax rate column",
			text: `Désignation                  Qté      PU HT     TVA     Montant HT
Livre                          2      10,00    5,5 %        20,00
Stylo                          4       2,50     20 %        10,00
                       Total HT                           30,00 €
                       TVA 5,5 %                           1,10 €
                       TVA 20 %                            2,00 €
                       Total TTC                          33,10 €
`,
			lines:    []string{"Livre|2|1000|2000|550", "Stylo|4|250|1000|2000"},
			complete: true,
		},
		{
			name: "a row that cannot be read makes the table incomplete",
			text: `Acme LLC, Austin, TX 78701

Description                     Qty      Price       Amount
Widget                            4     $25.00      $100.00
                                  1     $50.00       $50.00
                     Subtotal                     $150.00
                     Total                        $150.00
`,
			lines:    []string{"Widget|4|2500|10000|-"},
			complete: false,
		},
		{
			name: "lines that do not add up to the net are not complete",
			text: `Descrizione                        Q.tà     Prezzo     Importo
Carta                             2.000       0,18      360,00
Biglietti                             8      29,00      232,00
                          Totale merce             € 592,00
                          Spese di trasporto       €  10,00
                          Imponibile               € 602,00
                          IVA 22%                  € 132,44
                          Totale documento         € 734,44
`,
			lines:    []string{"Carta|2000|18|36000|-", "Biglietti|8|2900|23200|-"},
			complete: false,
		},
		{
			name: "a credit note's negative lines come as magnitudes",
			text: `Description               Qty      Price       Amount
Toner                       3     -68.95     -206.85
                       Net credit          -£206.85
                       VAT @ 20%            -£41.37
                       Total credit        -£248.22
`,
			lines:    []string{"Toner|3|6895|20685|-"},
			complete: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := readV2(t, tc.text)
			var got []string
			for _, li := range a.Lines {
				got = append(got, lineStr(li))
			}
			if strings.Join(got, "\n") != strings.Join(tc.lines, "\n") || a.LinesComplete != tc.complete {
				t.Errorf("got lines (complete %v)\n%s\nwant (complete %v)\n%s", a.LinesComplete, strings.Join(got, "\n"), tc.complete, strings.Join(tc.lines, "\n"))
			}
		})
	}
}
