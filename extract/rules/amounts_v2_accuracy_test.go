package rules

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// fixtureAmounts is what each fixture states, by a person's reading of its
// text (kept beside fixtures' v2 expectations as a second, independent reading; the nine fixtures added with them are read from them): net, tax, gross total, amount
// due in minor units and the number of item lines. "-" means the document
// does not state it, so any value read is wrong; "?" means a reader could
// argue either way (an exempt tax, a net equal to the total), so it is not
// scored.
var fixtureAmounts = map[string][5]string{
	"de_at_ocr_rauschen":                   {"890280", "178056", "1068336", "-", "4"},
	"de_bau_13b_bestellnummer":             {"1462030", "0", "1462030", "-", "4"},
	"de_ch_chf_qr_zahlteil":                {"485000", "39285", "524285", "?", "3"},
	"de_gutschrift":                        {"43640", "8292", "51932", "-", "2"},
	"de_kleinunternehmer_ohne_faelligkeit": {"?", "?", "185000", "-", "3"},
	"de_neue_bankverbindung_mehrseitig":    {"1058140", "201047", "1259187", "-", "14"},
	"de_rechnung_skonto":                   {"452550", "85985", "538535", "-", "5"},
	"de_zahlungserinnerung":                {"-", "-", "248640", "248640", "0"},
	"edge/de_crlf_bom_rechnung":            {"187240", "35576", "222816", "-", "3"},
	"edge/en_gb_long_four_pages":           {"2260590", "452118", "2712708", "2712708", "68"},
	"edge/fr_diacritiques_nnbsp":           {"1815000", "363000", "2178000", "-", "3"},
	"en_bh_bhd_three_decimals":             {"2163750", "216375", "2380125", "-", "3"},
	"en_dk_dkk":                            {"1475000", "368750", "1843750", "-", "3"},
	"en_gb_consulting_vat":                 {"308640", "61728", "370368", "370368", "2"},
	"en_gb_credit_note":                    {"20685", "4137", "24822", "-", "1"},
	"en_gb_multipage_remittance":           {"1531900", "306380", "1838280", "1338280", "10"},
	"en_gb_ocr_noise":                      {"161000", "32200", "193200", "193200", "3"},
	"en_gb_reverse_charge_eu":              {"480000", "0", "480000", "480000", "2"},
	"en_jp_jpy_consumption_tax":            {"486000", "48600", "534600", "534600", "3"},
	"en_kw_kwd_due_on_receipt":             {"?", "-", "3418500", "?", "4"},
	"en_pl_pln_split_payment":              {"842000", "193660", "1035660", "1035660", "3"},
	"en_se_sek_new_bank_details":           {"3802700", "950675", "4753375", "4753375", "4"},
	"en_us_deposit_balance":                {"-", "32744", "444644", "244644", "5"},
	"en_us_no_invoice_number":              {"?", "-", "236000", "-", "4"},
	"en_us_prompt_injection":               {"233000", "?", "233000", "233000", "5"},
	"en_us_saas_sales_tax":                 {"1116000", "80910", "1196910", "1196910", "3"},
	"en_us_tax_exempt_po":                  {"-", "0", "298840", "-", "5"},
	"es_disputa_reclamacion":               {"428260", "89935", "518195", "518195", "4"},
	"es_exento_formacion":                  {"324000", "?", "324000", "324000", "3"},
	"es_factura_standard":                  {"294500", "61845", "356345", "356345", "5"},
	"es_inversion_sujeto_pasivo_pedido":    {"1309700", "0", "1309700", "1309700", "3"},
	"es_inyeccion_instrucciones":           {"222000", "46620", "268620", "-", "3"},
	"es_multipagina_ocr":                   {"1412920", "296713", "1709633", "1709633", "7"},
	"es_pa_usd_anticipo":                   {"597500", "41825", "639325", "489325", "3"},
	"fr_autoliquidation_bon_de_commande":   {"1758000", "?", "1758000", "1758000", "3"},
	"fr_avoir_nnbsp":                       {"83800", "16760", "100560", "-", "2"},
	"fr_ca_quebec_cad_acompte":             {"1208000", "-", "1388898", "1088898", "3"},
	"fr_ch_chf_geneve":                     {"450000", "36450", "486450", "-", "3"},
	"fr_facture_standard_nbsp":             {"412870", "82574", "495444", "495444", "3"},
	"fr_franchise_293b_sans_echeance":      {"?", "?", "145000", "145000", "3"},
	"fr_nouvelles_coordonnees_bancaires":   {"619685", "123937", "743622", "-", "9"},
	"it_ch_chf_ticino":                     {"350000", "28350", "378350", "-", "3"},
	"it_contestazione":                     {"536800", "118096", "654896", "-", "3"},
	"it_esente_bollo":                      {"?", "?", "128200", "128200", "2"},
	"it_fattura_standard":                  {"134140", "29511", "163651", "163651", "3"},
	"it_inversione_contabile_ordine":       {"4297000", "?", "4297000", "4297000", "3"},
	"it_multipagina_60gg_dffm":             {"265260", "58357", "323617", "-", "7"},
	"it_nuove_coordinate_bancarie":         {"234500", "51590", "286090", "286090", "2"},
	"nl_aanbetaling_nog_te_betalen":        {"1309000", "274890", "1583890", "1083890", "4"},
	"nl_be_drukkerij_vervaldag":            {"340800", "71568", "412368", "-", "3"},
	"nl_btw_verlegd_inkooporder":           {"2530000", "0", "2530000", "2530000", "3"},
	"nl_factuur_standaard":                 {"331225", "69557", "400782", "400782", "5"},
	"nl_geen_totaal_pagina1":               {"-", "-", "-", "-", "?"},
	"nl_intracommunautaire_levering":       {"487500", "0", "487500", "487500", "3"},
	"de_ch_mwst_81_26":                     {"136560", "5689", "142249", "?", "5"},
	"de_mehrere_steuersaetze":              {"42852", "5097", "47949", "?", "6"},
	"de_seitenumbruch_uebertrag":           {"420765", "79945", "500710", "?", "12"},
	"en_gb_overdue_reminder_fee":           {"-", "-", "421200", "428200", "0"}, // the reminded invoice, then the compensation
	"en_gb_reminder_recovery_costs":        {"-", "-", "186000", "193000", "0"},
	"en_ie_carried_forward_formfeed":       {"860835", "197992", "1058827", "558827", "10"},
	"fr_avoir_geste_commercial":            {"56010", "11202", "67212", "-", "3"},
	"fr_relance_facture_impayee":           {"-", "-", "186000", "190000", "0"},
	"fr_tva_5_5_et_20":                     {"49975", "5115", "55090", "?", "5"},
	"it_nota_di_credito":                   {"86760", "3470", "90230", "-", "2"},
	"nl_nieuw_rekeningnummer_formfeed":     {"108100", "-", "120097", "120097", "6"},
}

// Floors of right answers per field; raise them as the readers improve.
var fixtureAmountFloors = [5]int{50, 48, 55, 53, 52}

// TestAmountsV2FixtureAccuracy scores readAmountsV2 on every fixture
// against fixtureAmounts: a value that differs from the reading is wrong
// (never allowed: right or silent), a null where the text states a value
// is a miss (counted, held above a floor). -v prints the table.
func TestAmountsV2FixtureAccuracy(t *testing.T) {
	t.Parallel()
	texts := fixtureTexts(t)
	if len(texts) != len(fixtureAmounts) {
		t.Errorf("%d fixtures but %d readings: add the new fixtures' readings", len(texts), len(fixtureAmounts))
	}
	names := make([]string, 0, len(fixtureAmounts))
	for n := range fixtureAmounts {
		names = append(names, n)
	}
	sort.Strings(names)
	fields := [5]string{"net", "tax", "total", "due", "lines"}
	var right, scored, stated, read [5]int
	t.Logf("%-40s %-21s %-21s %-21s %-21s %s", "fixture", "net", "tax", "total", "due", "lines")
	for _, n := range names {
		text, ok := texts[n]
		if !ok {
			t.Errorf("%s: reading for a fixture that does not exist", n)
			continue
		}
		a := newDocument(text).readAmountsV2()
		got := [5]string{factStr(a.Net), factStr(a.Tax), factStr(a.Total), factStr(a.Due), strconv.Itoa(len(a.Lines))}
		want := fixtureAmounts[n]
		var cells [5]string
		for k := range fields {
			mark := ""
			if want[k] != "?" && want[k] != "-" && want[k] != "0" || k < 4 && want[k] == "0" {
				stated[k]++
				if got[k] == want[k] {
					read[k]++
				}
			}
			switch {
			case want[k] == "?":
				mark = "~"
			case got[k] == want[k]:
				right[k]++
				scored[k]++
			case got[k] == "-" || k == 4 && got[k] == "0":
				scored[k]++
				mark = " MISS"
			case k == 4 && !a.LinesComplete:
				scored[k]++
				mark = " PART" // fewer or more lines, but not claimed complete
			default:
				scored[k]++
				mark = " WRONG"
				t.Errorf("%s: %s = %s, the text states %s", n, fields[k], got[k], want[k])
			}
			cells[k] = fmt.Sprintf("%s%s", got[k], mark)
		}
		t.Logf("%-40s %-21s %-21s %-21s %-21s %s", n, cells[0], cells[1], cells[2], cells[3], cells[4])
	}
	for k, f := range fields {
		t.Logf("%s: %d/%d right (null where not stated counts as right); %d/%d stated values read", f, right[k], scored[k], read[k], stated[k])
		if right[k] < fixtureAmountFloors[k] {
			t.Errorf("%s: %d right, below the floor of %d", f, right[k], fixtureAmountFloors[k])
		}
	}
}

// TestAmountsV2DevPayable holds the v2 readers to the development set's
// v1 expectations: the amount payable (amount due, else the gross total)
// is never different from the expected total_minor, and is read on at
// least the floor of documents. The rest are documents v2 cannot cite: a
// currency written only as "BD" or "KD", no currency at all, lakh grouping.
func TestAmountsV2DevPayable(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/dev/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("glob dev: %v (%d)", err, len(files))
	}
	agree := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		j, err := os.ReadFile(strings.TrimSuffix(f, ".txt") + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var want devExpect
		if err := json.Unmarshal(j, &want); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		a := newDocument(normalizeText(b)).readAmountsV2()
		pay := a.Due
		if pay == nil {
			pay = a.Total
		}
		wantPay := want.TotalMinor
		if want.AmountDueMinor != nil {
			wantPay = want.AmountDueMinor
		}
		switch {
		case pay == nil:
		case wantPay != nil && *wantPay == pay.V:
			agree++
		default:
			t.Errorf("%s: payable %d, expected %s", filepath.Base(f), pay.V, intp(wantPay))
		}
	}
	t.Logf("payable amount read on %d of %d development invoices", agree, len(files))
	if agree < 71 {
		t.Errorf("payable amount read on %d development invoices, below the floor of 71", agree)
	}
}
