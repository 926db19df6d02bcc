package rules

import (
	"slices"
	"strings"
)

// Label lexicons of the invoice-v2 amount readers (amounts_v2.go). v1's
// lexicons in lexicon.go sort labels into "payable or not"; v2 needs to know
// which amount a label names (net, tax, gross, due) and which lines change
// the sum between them (discounts, shipping, deposits), so it keeps its own
// lists here and leaves v1's untouched.

// amtKind is what a summary label says its amount is.
type amtKind int8

const (
	akNone   amtKind = iota
	akGross          // the invoice total including tax
	akDue            // what is left to pay
	akNet            // the total before tax
	akSub            // a subtotal: the net only if nothing follows it
	akTax            // a tax amount, possibly with its rate and base
	akTaxSum         // the total of several tax amounts
	akAdjust         // discount, shipping, fee: changes the sum after a subtotal
	akPaid           // deposit or prepayment already paid
	akFee            // a reminder's fee or interest
	akIgnore         // carried forward, page totals, quantities: never a fact
	akPrior          // a balance carried from earlier bills: in the amount due, not the total
)

var (
	v2GrossPhrases = append([]string{
		"total", "totaal", "totale", "gesamt", "totals", "total amount", "total eur",
		"total incl.", "total inkl.", "gesamtbetrag inkl.", "summe inkl.", "endbetrag", "total ttc",
		"totaal incl.", "totale ivato", "total con iva", "total factura", "totale fattura",
		"rechnungsbetrag", "gesamtsumme", "bruttobetrag", "summe brutto", "brutto",
		"total (incl.", "total general", "importe total", "total importe",
		// "AMOUNT INCL. GST 3.00": an amount stated with its tax is the gross.
		"amount incl. gst", "amount incl. vat", "amount incl. tax", "amount including gst",
		"amount including vat", "amount including tax", "amount inclusive of gst", "amount inclusive of vat",
		"total includes gst", "total include gst", "total incl gst", "total incl. gst", "total inc gst",
		"total including gst", "total inclusive gst", "total includes tax", "total includes vat",
	}, totalGrandPhrases...)

	v2DuePhrases = append([]string{
		"balance due", "amount due", "total due", "zahlbetrag", "noch zu zahlen", "restbetrag",
		// A reminder's unpaid invoice: due, not the invoice's gross, though
		// "invoice amount" opens it.
		"invoice amount outstanding", "invoice amount due", "invoice amount unpaid",
		"net à payer", "reste à payer", "importe a pagar", "te betalen", "totale da pagare",
		"verbleibender betrag", "offener betrag", "offener saldo", "offene summe", "zu zahlender betrag",
		"gesamt zu zahlen", "summe zu zahlen", "zu zahlen", "forderungsbetrag", "gesamtforderung",
		"total à régler", "montant à régler", "montant restant dû", "restant dû", "reste dû",
		"pendiente de pago", "importe pendiente", "saldo pendiente", "nog te betalen", "openstaand",
		"importo da pagare", "saldo da pagare", "residuo", "amount payable", "balance payable",
		"saldo a pagar", "saldo a favor", "resto a pagar", "solde à payer", "solde dû",
	}, totalDuePhrases...)

	v2NetPhrases = []string{
		"net", "net amount", "net total", "total net", "nett", "nett total", "total nett",
		"total excl.", "total excl. vat", "total excl. vat", "total excluding vat", "total excluding tax",
		"total ex vat", "total ex. vat", "total before tax", "total before vat", "amount excl. vat",
		"total exclusive of vat", "net value", "taxable amount", "taxable value", "amount before tax",
		"netto", "nettobetrag", "nettosumme", "summe netto", "gesamt netto", "netto gesamt",
		"gesamtbetrag netto", "rechnungsbetrag netto", "betrag netto", "nettowert", "total netto",
		"total exkl.", "total exkl. mwst", "summe exkl.", "summe exkl. mwst", "betrag exkl. mwst",
		"gesamt exkl. mwst", "total exkl. mwst", "netto exkl. mwst", "summe ohne mwst", "betrag ohne mwst",
		"total ht", "montant ht", "total hors taxes", "montant hors taxes", "base ht", "total net ht",
		"net ht", "montant net ht", "total hors tva", "prix total ht",
		"base imponible", "total base imponible", "importe neto", "total neto", "neto",
		"subtotal sin iva", "total sin iva", "importe sin iva",
		"totaal excl.", "totaal excl. btw", "totaal exclusief btw", "totaal netto", "netto bedrag",
		"bedrag excl. btw", "totaal exclusief", "subtotaal excl. btw", "excl. btw",
		"imponibile", "totale imponibile", "imponibile iva", "totale netto", "importo netto",
		"netto imponibile", "totale imponibile iva",
		"total sem iva", "valor sem iva", "base tributável",
		"summa exkl. moms", "exkl. moms", "totalt exkl. moms", "belopp exkl. moms", "netto exkl. moms",
		"i alt ekskl. moms", "ekskl. moms", "sum ekskl. mva", "totalt ekskl. mva", "veroton hinta",
		"yhteensä ilman alv", "celkem bez dph", "základ dph", "mal hizmet toplam tutarı", "kdv hariç toplam",
		"wartość netto", "razem netto", "suma netto",
		"total fără tva", "valoare fără tva", "total fara tva", "bază impozabilă",
		"nettó összesen", "nettó végösszeg", "nettó érték összesen", "összesen nettó",
		"valor dos serviços", "valor total dos serviços",
		"ukupno bez pdv-a", "osnovica", "skupaj brez ddv", "osnova za ddv", "summa km-ta", "summa käibemaksuta",
		"suma be pvm", "summa bez pvn",
	}

	v2SubPhrases = []string{
		"subtotal", "sub total", "sub-total", "zwischensumme", "summe positionen", "warenwert",
		"sous-total", "sous total", "sous-total ht", "subtotaal", "subtotale", "totale parziale",
		"summe", "goods total", "total goods", "items total", "merchandise total", "suma",
		// Reason: Portugal's "Total Ilíquido" is the sum before discounts and tax.
		"total ilíquido", "total iliquido",
		"delsumma", "mellemsum", "mezisoučet", "ara toplam",
	}

	v2TaxPhrases = []string{
		"vat", "tax", "sales tax", "gst", "hst", "pst", "qst", "mwst", "ust", "umsatzsteuer",
		"mehrwertsteuer", "tva", "iva", "btw", "igic", "consumption tax", "vat amount",
		"tax amount", "montant tva", "montant de la tva", "cuota iva", "cuota", "importo iva",
		"btw bedrag", "mwst betrag", "ust betrag", "steuerbetrag", "taxe", "taxes", "state tax",
		"county tax", "city tax", "local tax", "vat @", "plus vat", "zzgl mwst", "zzgl ust",
		"zuzüglich mwst", "zuzüglich ust", "plus mwst", "mwst.", "moms", "mva", "tps", "tvq", "tvh",
		"impuesto", "iva repercutida", "vat charged", "itbms", "itbis", "igv",
		// Reason: India's GST prints its central, state and integrated parts by name.
		"cgst", "sgst", "igst", "utgst",
		"alv", "arvonlisävero", "dph", "kdv", "hesaplanan kdv", "kwota vat", "podatek vat",
		"áfa", "áfa összeg", "pdv", "ddv", "käibemaks", "pvm", "pvn",
	}

	v2TaxSumPhrases = []string{
		"total vat", "total tax", "vat total", "tax total", "total taxes", "total sales tax",
		"summe mwst", "summe ust", "summe umsatzsteuer", "gesamt mwst", "mwst gesamt", "mwst. gesamt",
		"steuer gesamt", "total tva", "total de la tva", "montant total tva", "total iva", "total cuota",
		"totale iva", "totaal btw", "btw totaal", "totale imposta", "total gst",
		"summa moms", "moms totalt", "total moms", "moms i alt", "mva totalt", "dph celkem", "toplam kdv",
		"topkdv", "razem vat",
		"total tva", "áfa összesen", "összes áfa", "ukupno pdv", "pdv ukupno", "skupaj ddv", "käibemaks kokku",
		"pvm suma", "pvn summa",
	}

	v2AdjustPhrases = []string{
		"discount", "rabatt", "nachlass", "skonto", "remise", "escompte", "descuento", "korting", "sconto",
		"shipping", "freight", "delivery", "postage", "handling", "shipping & handling", "versand",
		"versandkosten", "fracht", "porto", "verpackung", "frais de port", "port", "livraison", "envío",
		"portes", "gastos de envío", "verzendkosten", "verzending", "spedizione", "trasporto",
		"surcharge", "zuschlag", "rounding", "rundung", "arrondi", "redondeo", "afronding",
		"arrotondamento", "tip", "gratuity", "service charge", "environmental fee", "deposit fee",
		"pfand", "less", "abzüglich", "abzgl", "withholding", "withholding tax", "irpf", "retención",
		"ritenuta", "ritenuta d'acconto", "einbehalt", "sicherheitseinbehalt",
		"öresavrundning", "avrundning", "afrunding", "øreavrunding", "pyöristys", "zaokrouhlení",
		"yuvarlama", "rabat", "sleva", "iskonto",
	}

	v2PaidPhrases = []string{
		"paid", "amount paid", "total paid", "payment received", "payments", "less payment",
		"deposit", "less deposit", "deposit paid", "prepayment", "prepaid", "advance", "advance payment",
		"credit applied", "credits", "payments/credits", "amount received", "received",
		"bezahlt", "bereits bezahlt", "anzahlung", "abschlag", "abschlagszahlung", "vorauszahlung",
		"erhaltene anzahlung", "geleistete anzahlung", "gezahlt", "abschlagsrechnung",
		// Plurals: a final invoice lists every payment on account received.
		"anzahlungen", "erhaltene anzahlungen", "geleistete anzahlungen", "abschlagszahlungen",
		"vorauszahlungen", "abschlagsrechnungen", "payments received", "deposits", "deposits paid",
		"advance payments", "prepayments", "acomptes", "acomptes versés", "anticipos", "aanbetalingen",
		"voorschotten", "acconti", "acconti versati",
		"acompte", "déjà payé", "payé", "déjà réglé", "avance", "acompte versé",
		"anticipo", "pagado", "entrega a cuenta", "ya pagado",
		"betaald", "reeds betaald", "aanbetaling", "voorschot", "al betaald",
		"pagato", "acconto", "già pagato", "anticipo versato",
	}

	v2FeePhrases = []string{
		"mahngebühr", "mahngebühren", "mahnkosten", "mahnspesen", "verzugszinsen", "verzugszins",
		"late fee", "late payment fee", "late charge", "interest", "reminder fee", "collection fee",
		// The UK Late Payment of Commercial Debts Act's fixed sum.
		"late payment compensation", "late payment compensation (fixed sum)", "fixed sum compensation",
		"compensation for late payment", "debt recovery costs",
		"frais de relance", "indemnité forfaitaire", "intérêts de retard", "pénalités de retard",
		"recargo", "intereses de demora", "gastos de reclamación", "aanmaningskosten",
		"incassokosten", "rente", "wettelijke rente", "interessi di mora", "spese di sollecito",
	}

	v2IgnorePhrases = []string{
		"übertrag", "seitenübertrag", "vortrag", "carried forward", "brought forward", "carry forward",
		"c/f", "b/f", "carried fwd", "brought fwd", "total this page", "report", "à reporter",
		"a reporter", "reporté", "riportare", "suma anterior", "suma y sigue", "a la vuelta", "da riportare", "a reportar", "suma y sigue", "riporto",
		"transport", "balance brought forward",
		"page total", "total page", "seitensumme", "zwischensumme seite", "total de la page",
		"totale pagina", "subtotal this page", "page subtotal",
		"qty", "quantity", "menge", "anzahl", "quantité", "cantidad", "aantal", "quantità",
		"hours", "stunden", "heures", "horas", "uren", "ore", "pieces", "stück",
		"weight", "gewicht", "poids", "peso", "total qty", "total quantity", "total hours", "total items",
		"total weight", "total pieces", "total units", "gesamtmenge", "gesamtgewicht", "summe stunden",
		"unit price", "einzelpreis", "prix unitaire", "precio unitario", "prezzo unitario",
		"exchange rate", "wechselkurs", "taux de change", "tipo de cambio", "wisselkoers",
		"tax id", "tax no", "tax number", "vat no", "vat number", "vat id", "vat reg", "vat registration",
		"ust-idnr", "ust-id", "ust idnr", "ust.-id", "mwst-nr", "mwst nr", "steuernummer", "steuer-nr",
		"n° tva", "tva intracom", "tva intracommunautaire", "numéro tva", "btw-nr", "btw nummer",
		"btw-nummer", "btw nr", "btw id", "partita iva", "p.iva", "p. iva", "nif iva", "cif",
		"vat reg no", "gst no", "gst number", "gst reg", "abn", "tax point", "tax date", "tax invoice",
		"tax exempt", "vat exempt", "tax-exempt",
		"skonto betrag", "bei zahlung", "if paid", "en cas de paiement", "bei zahlung innerhalb",
		"total savings", "you saved", "ersparnis",
	}

	// Reason: a bill's "Total amount due" adds what earlier bills left
	// unpaid, so beside a balance carried forward it is no invoice total.
	v2PriorPhrases = []string{
		"previous balance", "opening balance", "balance forward", "prior balance", "previous bill", "amount of last bill", "balance from last bill",
		"balance from previous bill", "unpaid balance", "arrears", "saldovortrag", "vorsaldo",
		"solde précédent", "solde antérieur", "saldo anterior", "saldo precedente", "vorig saldo",
	}
)

// v2Lexicons is tried on every line of the summary block; resolveHits keeps
// the leftmost and then the longest label, so "net à payer" (due) beats
// "net" and "total ht" (net) beats "total".
var v2Lexicons = []struct {
	kind amtKind
	re   *lexicon
}{
	// Receipt wording first: on equal spans the earlier lexicon wins.
	{akDue, lexRE(v2ReceiptDuePhrases...)},
	{akIgnore, lexRE(v2ReceiptIgnorePhrases...)},
	{akNet, lexRE(v2ReceiptNetPhrases...)},
	{akDue, lexRE(v2DuePhrases...)},
	{akGross, lexRE(v2GrossPhrases...)},
	{akNet, lexRE(v2NetPhrases...)},
	{akSub, lexRE(v2SubPhrases...)},
	{akTaxSum, lexRE(v2TaxSumPhrases...)},
	{akTax, lexRE(v2TaxPhrases...)},
	{akAdjust, lexRE(v2AdjustPhrases...)},
	{akPaid, lexRE(v2PaidPhrases...)},
	{akFee, lexRE(v2FeePhrases...)},
	{akPrior, lexRE(v2PriorPhrases...)},
	{akIgnore, lexRE(v2IgnorePhrases...)},
}

// reV2Included finds "incl. VAT", "inkl. 19 % MwSt.", "TTC", "(VAT
// included)": qualifiers of a gross total, not tax labels of their own.
// Unlike v1's absorber it leaves "zzgl." and "plus" alone, which announce a
// tax amount.
var reV2Included = openerFoldedScan(`\(?\b(?:`+strings.Join(v2InclWords, "|")+`)\b\.?[^()\n]{0,30}?\b(?:vat|tax|taxes|mwst|ust|umsatzsteuer|mehrwertsteuer|btw|iva|tva|gst|steuer|igic)\b\.?\)?|\(\s*(?:vat|tax|mwst|ust|btw|iva|tva|gst)\s*(?:incl|inkl|inc|inclusive|included|inclusa|incluida|incluido|incluse|compris)\b\.?\s*\)?|\b(?:`+strings.Join(v2ExclWords, "|")+`)\b\.?\s*(?:vat|tax|mwst|ust|btw|iva|tva|gst|steuer)\b\.?`,
	append(slices.Clone(v2InclWords), v2ExclWords...), absorbParenTax,
	// Beyond a tax word (on most summary lines), the first alternative
	// needs one of v2InclWords as a word, the second a "(" and the third
	// one of v2ExclWords: the regexp backtracked through every tax line.
	func(f string) bool { return strings.Contains(f, "(") || reV2InclExcl.MatchString(f) },
	absorberScan(v2InclWords, nil, v2ExclWords))

// v2InclWords and v2ExclWords open reV2Included's first and third
// alternatives; reV2InclExcl finds either as a word.
var (
	v2InclWords = []string{"incl", "inkl", "inc", "including", "inclusive", "included", "incluido", "incluida", "inclus",
		"incluse", "compris", "comprise", "inclusa", "incluso", "inclusief", "inbegrepen", "con", "with", "y"}
	v2ExclWords  = []string{"excl", "exkl", "excluding", "exclusive", "exclude", "excluded", "ohne", "hors", "sin", "senza", "ex"}
	reV2InclExcl = lexRE(append(slices.Clone(v2InclWords), v2ExclWords...)...)
)

// reV2GapWord lists the words that may stand between a summary label and its
// amount besides v1's (reAllowedGapWord): "VAT 19 % on 1.000,00",
// "MwSt. 19 % auf", "TVA 20 % sur"; a till's "TOTAL INCL. GST@6%" (the label
// took "incl.", leaving the tax word) and "ROUNDING ADJ.".
var reV2GapWord = lexRE("amt", "gst", "sst", "adj", "adjustment", "rmb", "yuan", "euro", "euros", "dollars", "kd", "bd", "on", "over", "verlegd", "exempt", "exento", "esente", "van", "of", "auf", "von", "sur", "de", "sobre", "op", "su", "at", "rate", "satz", "taux", "tipo",
	"tarief", "aliquota", "mwst", "ust", "vat", "tax", "excl.", "exkl.", "ohne", "hors", "ht", "sin", "senza", "vom",
	"aus", "x", "items", "positions", "credit", "avoir", "l'avoir", "gutschrift", "abono", "creditnota",
	"nota di credito", "nota de credito", "this credit", "this credit note", "credit note", "chf", "sek", "nok", "dkk", "pln", "czk", "huf", "jpy", "aud", "cad", "nzd", "kwd", "bhd")

// Words of an item-table header, by column role.
var (
	reColQty    = lexRE("qty", "qté", "qte", "quantity", "quantité", "menge", "anzahl", "cant", "cant.", "cantidad", "uds", "aantal", "quantità", "qtà", "q.tà", "stk", "pcs", "units", "hours", "hrs", "std", "stunden", "heures", "horas", "uren", "ore")
	reColUnit   = lexRE("unit price", "price", "rate", "unit cost", "each", "einzelpreis", "preis", "e-preis", "ep", "stückpreis", "prix unitaire", "prix", "p.u.", "pu", "pu ht", "p.u. ht", "precio", "precio ud", "precio unitario", "precio ud.", "prijs", "stukprijs", "eenheidsprijs", "prezzo", "prezzo unitario", "prezzo unit", "tarif", "ansatz", "stundensatz")
	reColAmount = lexRE("amount", "total", "line total", "net amount", "amount net", "gesamtpreis", "gp", "g-preis", "ges.-preis", "gesamt", "betrag", "summe", "gesamtbetrag", "netto", "montant", "montant ht", "total ht", "importe", "total", "bedrag", "totaal", "importo", "totale", "net", "value", "wert", "subtotal")
	reColDesc   = lexRE("description", "item", "items", "product", "service", "services", "details", "particulars", "beschreibung", "bezeichnung", "artikel", "leistung", "artikelbezeichnung", "leistungsbeschreibung", "désignation", "designation", "libellé", "article", "prestation", "descripción", "descripcion", "concepto", "artículo", "producto", "omschrijving", "artikel", "product", "descrizione", "articolo", "prodotto", "servizio")
	reColTax    = lexRE("vat", "vat %", "tax", "tax %", "mwst", "mwst %", "ust", "ust %", "tva", "tva %", "iva", "iva %", "btw", "btw %", "steuer", "st", "mwst.-satz", "steuersatz", "tax rate", "vat rate", "taux tva", "tipo iva", "btw-tarief", "aliquota")
	reColPos    = lexRE("pos", "pos.", "s/n", "sn", "sr", "sl", "lp", "no.", "position", "no", "nr", "#", "line", "ln", "item no", "art.-nr", "art nr", "code", "sku", "ref", "réf", "référence", "código", "codigo", "artikelnr", "artikelnummer", "codice", "cod")
	reColUnitOf = lexRE("unit", "einheit", "me", "unité", "unidad", "eenheid", "unità", "um", "u.m.")
)

// reTaxTableHeader finds the header of a tax summary table ("Steuersatz |
// Netto | Steuer", "VAT rate  Net  VAT", "Taux  Base HT  TVA").
var reTaxTableHeader = lexRE("steuersatz", "mwst-satz", "mwst satz", "ust-satz", "vat rate", "tax rate", "rate", "vat %",
	"taux", "taux tva", "taux de tva", "tipo", "tipo iva", "% iva", "iva %", "btw %", "btw-tarief", "tarief", "aliquota",
	"aliquota iva", "code tva", "mwst %", "satz")

// Receipt wording (till receipts): the rounded total is what is paid; what
// the customer handed over and got back, and item counts, are never facts.
var (
	v2ReceiptDuePhrases = []string{
		"total rounded", "rounded total", "net total rounded", "total after rounding",
		"grand total rounded", "total amt payable", "total amount payable", "total payable",
		"due", // a till's "DUE 19.30"
		// Reason: "Total After Adj Incl GST 13.60" is the rounded amount paid, below the gross 13.58.
		"total after adj", "total after adjustment", "total after rounding adj", "total after rounding adjustment",
	}
	// "TOTAL SALES (EXCLUDING GST)": the net, though it starts with "total".
	v2ReceiptNetPhrases = []string{
		"total sales excluding gst", "total sales (excluding gst)", "total excluding gst", "total (excluding gst)",
		"total sales excluding", "total sales exclusive of gst", "total exclusive of gst", "excluded gst sub total",
		"(excluded gst) sub total", "total excl gst", "total excl. gst",
	}
	v2ReceiptIgnorePhrases = []string{
		"cash", "cash tendered", "tendered", "cash received", "paid amount", "amount tendered",
		"change", "change due", "change amt", "balance change", "customer change", "change/balance", "change / balance",
		"accepted total", "total accepted", "amount accepted", // a ticket machine's coins and notes taken
		"total qty", "total quantity", "total item", "total items", "item(s)", "qty(s)", "no. of items",
		"total discount", "total savings",
		"balance before", "balance after", "card balance", "previous card balance", // a stored-value card's
		// Reason: a loyalty balance counts points, not money, however it is printed.
		"points balance", "point balance", "balance points", "member points", "loyalty points", "reward points",
	}
)
