package rules

import (
	"os"
	"testing"
)

// TestLocaleCurrency: a document that prints no currency, or only "$",
// takes the currency of the one country its issuer's signs name (v1), and
// "$" alone is no USD. invoice-v2 states a currency only with something to
// cite that validation accepts (schema/evidence.go): "$" for a dollar
// country, or a place of the country (schema/place.go); a ringgit decided
// by "Sdn Bhd" and GST alone, with no place printed, stays null there.
func TestLocaleCurrency(t *testing.T) {
	t.Parallel()
	const tail = "RECEIPT NO: R-1\nITEM A        1     $4.50\nTOTAL               $4.50\n"
	const plain = "RECEIPT NO: R-1\nITEM A        1      4.50\nTOTAL                4.50\n"
	cases := []struct {
		name   string
		text   string
		v1, v2 string // "" is null
	}{
		{"dollar alone: null", "CORNER CAFE\n" + tail, "", ""},
		{"usd printed stays", "CORNER CAFE\nAll amounts in USD\n" + tail, "USD", "USD"},
		{"us$ printed stays", "CORNER CAFE\nRECEIPT NO: R-1\nITEM A        1     $4.50\nTOTAL             US$4.50\n", "USD", "USD"},
		{"sdn bhd with gst and a state: ringgit, its \"$\" cited", "KEDAI MAJU SDN BHD\nGST REG NO: 000123456789\n40000 SHAH ALAM, SELANGOR\n" + tail, "MYR", "MYR"},
		{"no currency, sdn bhd with gst: ringgit", "KEDAI MAJU SDN BHD\nGST REG NO: 000123456789\n" + plain, "MYR", ""},
		{"no currency, gst and a malaysian state: ringgit, the state cited", "KEDAI MAJU\nGST ID: 000123456789\nJOHOR BAHRU, JOHOR\n" + plain, "MYR", "MYR"},
		{"no currency, sdn bhd and a malaysian city: ringgit", "KEDAI MAJU SDN BHD\nNO 3, JALAN SS21/39, 47400 PETALING JAYA\n" + plain, "MYR", "MYR"},
		{"a street named after a state is no place", "KEDAI MAJU SDN BHD\n68 PENANG ROAD\n" + plain, "", ""},
		{"a street named after a city is no place", "KEDAI MAJU SDN BHD\nNO 54, JALAN IPOH\n" + plain, "", ""},
		{"places of two countries: null", "KEDAI MAJU SDN BHD\nGST REG NO: 000123456789\nJOHOR BAHRU, JOHOR\nSINGAPORE BRANCH: 5 TAMPINES ST\n" + plain, "", ""},
		{"the issuer's place cited from its own column, the buyer's beside it", "KEDAI MAJU SDN BHD                 Bill To:\nJOHOR BAHRU, JOHOR                 Lion Trading, Singapore\n\n" + plain, "MYR", "MYR"},
		{"a buyer's place is not the issuer's", "KEDAI MAJU SDN BHD\nGST REG NO: 000123456789\nBill To:\nLion Trading, Singapore\n\nJOHOR BAHRU, JOHOR\n" + plain, "MYR", "MYR"},
		{"sdn bhd alone (brunei writes it too): null", "KEDAI MAJU SDN BHD\n" + tail, "", ""},
		{"sdn bhd, gst and brunei: null", "KEDAI MAJU SDN BHD\nBANDAR SERI BEGAWAN, BRUNEI\nGST 0.00\n" + tail, "", ""},
		{"gst alone: null", "CORNER CAFE\nGST 0.26\n" + tail, "", ""},
		{"pte ltd in singapore: singapore dollars", "MERLION CAFE PTE LTD\nSINGAPORE 058357\n" + tail, "SGD", "SGD"},
		{"pte ltd and sdn bhd both issuers' signs: null", "MERLION CAFE PTE LTD\nSINGAPORE 058357\nKEDAI MAJU SDN BHD, 40000 SHAH ALAM, SELANGOR\n" + tail, "", ""},
		{"a us state with zip: usd", "Corner Cafe\n12 Main St, Austin, TX 78701\n" + tail, "USD", "USD"},
		{"a german postcode with its country prefix is no us state", "Corner Cafe\nHauptstrasse, DE 37079 Göttingen\n" + tail, "", ""},
		{"a us state with zip before a column gap: usd", "Corner Cafe                 INVOICE\nAustin, TX 78701            Invoice #: 7\n" + tail, "USD", "USD"},
		{"canadian postal code: cad", "Maple Cafe\n40 King St W, Toronto, ON M5H 3Y2\n" + tail, "CAD", "CAD"},
		{"abn and pty ltd: aud", "Wattle Cafe Pty Ltd\nABN 51 824 753 556\n" + tail, "AUD", "AUD"},
		{"abn alone: null", "Wattle Cafe\nABN 51 824 753 556\n" + tail, "", ""},
		{"gstin and pvt ltd, no currency: rupees", "Lotus Traders Pvt Ltd\nGSTIN 27AAPFU0939F1ZV\n" + plain, "INR", ""},
		{"gstin and pvt ltd with $: a rupee is no dollar, null", "Lotus Traders Pvt Ltd\nGSTIN 27AAPFU0939F1ZV\n" + tail, "", ""},
		{"a buyer named on its label's line ends at the blank line", "Customer: Kedai Maju\n\nCorner Cafe\n12 Main St, Austin, TX 78701\n" + tail, "USD", "USD"},
		{"the buyer's address is not the issuer's", "Corner Cafe\nBill To:\nKedai Maju Sdn Bhd\nGST Reg 000123456789\nShah Alam, Selangor\n\n" + tail, "", ""},
		{"no amount: no currency", "KEDAI MAJU SDN BHD\nGST REG NO: 000123456789\nSELANGOR\nTHANK YOU\n", "", ""},
		{"rfc and s.a. de c.v.: pesos, their \"$\" cited", "FERRETERIA EL TORNILLO S.A. DE C.V.\nRFC: FTO980512AB3\n" + tail, "MXN", "MXN"},
		{"rfc and a mexican state: pesos", "Ferretería El Tornillo\nRFC: FTO980512AB3\nZapopan, Jalisco\n" + tail, "MXN", "MXN"},
		{"rfc alone: null", "Ferretería El Tornillo\nRFC: FTO980512AB3\n" + tail, "", ""},
		{"new mexico is no mexico", "Corner Cafe\nSanta Fe, New Mexico\n" + tail, "", ""},
		{"a mexican buyer's rfc is not the issuer's", "Corner Cafe\nBill To:\nGrupo Norte S.A. de C.V.\nRFC: GNO010101AA1\nMonterrey, Nuevo León\n\n" + tail, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkCurrencies(t, c.text, c.v1, c.v2)
		})
	}
}

// TestLocaleCurrencyFixtures pins the receipts whose currency rests on
// where the issuer is.
func TestLocaleCurrencyFixtures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, v1, v2 string }{
		{"my_no_currency_printed", "MYR", "MYR"}, // "KAJANG, SELANGOR" is evidence of MYR
		{"my_dollar_sign_sdn_bhd", "MYR", "MYR"}, // "$" is evidence of MYR
		{"my_item_word_code", "MYR", "MYR"},      // "IPOH, PERAK" is evidence of MYR
		{"my_no_currency_city_only", "MYR", "MYR"},
		{"my_sdn_bhd_gst_no_place", "MYR", ""}, // Brunei levies no GST, but no place to cite
		{"my_sg_places_two_countries", "", ""},
		{"bn_dollar_sdn_bhd", "", ""},
		{"en_dollar_no_locale", "", ""},
		{"sg_dollar_pte_ltd", "SGD", "SGD"},
		{"mx_dollar_sign_rfc_sa_de_cv", "MXN", "MXN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile("../../fixtures/receipts/" + c.name + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			checkCurrencies(t, string(b), c.v1, c.v2)
		})
	}
}

func checkCurrencies(t *testing.T, text, v1, v2 string) {
	t.Helper()
	if got := orDash(Extract(text).Invoice.Currency); got != orDashS(v1) {
		t.Errorf("v1 currency %s, want %s\ntext:\n%s", got, orDashS(v1), text)
	}
	if got := orDash(v2Of(t, text).Currency); got != orDashS(v2) {
		t.Errorf("v2 currency %s, want %s\ntext:\n%s", got, orDashS(v2), text)
	}
}

func orDashS(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
