package rules

import (
	"strings"
	"unicode"

	"github.com/invx/invx/schema"
)

// Document titles per invoice-v2 document type, matched at the start of a
// folded cell (after an ordinal such as "1." or "Erste"). A type is decided
// by the document's own heading, never by a mention in a sentence: "zu
// Rechnung Nr. 7" in a credit note or "this is not a reminder" start no cell
// with a title.
var (
	reTitleOrdinal  = anchoredRegexp(`^[\s*#>\-•]*(?:\d{1,2}\s*\.?\s*(?:st|nd|rd|th|e|er|re|o|a)?\s+|(?:erste|zweite|dritte|letzte|first|second|third|final|last|premier|premiere|deuxieme|dernier|primer|segundo|ultimo|eerste|tweede|laatste|primo|secondo|terzo)\s+)?`)
	reTitleProforma = anchoredRegexp(`^(?:pro\s*-?\s*forma|proforma)(?:-?rechnung)?\b`)
	reTitleDebit    = anchoredRegexp(`^(?:debit\s*note|debit\s*memo|belastungsanzeige|belastungsnota|note\s*de\s*debit|avis\s*de\s*debit|nota\s*de\s*debito|debetnota|nota\s*di\s*debito|nota\s*debito)\b`)
	reTitleReminder = anchoredRegexp(`^(?:(?:overdue|final|friendly|urgent|second|third)\s+(?:payment\s+)?(?:reminder|notice)|zahlungserinnerung|erinnerung|mahnung|payment\s*reminder|reminder|overdue\s*notice|past\s*due\s*notice|overdue\s*invoice\s*notice|rappel(?:\s*de\s*paiement)?|relance|lettre\s*de\s*relance|recordatorio(?:\s*de\s*pago)?|aviso\s*de\s*pago\s*pendiente|requerimiento\s*de\s*pago|betalingsherinnering|herinnering|aanmaning|sollecito(?:\s*di\s*pagamento)?)\b`)
	// Malaysian and Indonesian tills title their slips "RESIT", "CASH
	// SALES", "TAX CASH SALES", "CASH BILL", "KWITANSI"; councils and firms
	// "OFFICIAL RECEIPT", "TAX RECEIPT".
	reTitleReceipt = anchoredRegexp(`^(?:sales\s*receipt|payment\s*receipt|cash\s*receipt|official\s*(?:tax\s*)?receipt|tax\s*receipt|receipt|(?:tax\s*)?cash\s*sales?|cash\s*bill|till\s*receipt|resit(?:\s*rasmi)?|kwitansi|kassenbon|kassenbeleg|kassenzettel|quittung|zahlungsbestatigung|recu|ticket\s*de\s*caisse|bon\s*de\s*caisse|recibo|ticket\s*de\s*compra|kassabon|kwitantie|ontvangstbewijs|scontrino|ricevuta(?:\s*fiscale)?|documento\s*commerciale|fatura\s*-?\s*recibo)\b`)
	// Reason: a statement of account lists invoices already sent and its
	// balance; paid as an invoice it pays them twice.
	reTitleStatement = anchoredRegexp(`^(?:(?:customer\s*|monthly\s*)?statement(?:\s*of\s*account)?|account\s*statement|kontoauszug|kontoubersicht|saldenbestatigung|releve\s*de\s*compte|estado\s*de\s*cuenta|extracto\s*de\s*cuenta|rekeningoverzicht|rekeninguittreksel|estratto\s*conto)\b`)
	reTitleTicket    = anchoredRegexp(`^(?:ticket|bon|kassa)\b`)
	// Reason: "SIMPLIFIED TAX INVOICE" (the legal name of a till's tax
	// invoice in Malaysia, Singapore, Australia, the UK) read as no title.
	// German, Dutch and Nordic titles compound the kind of invoice into
	// one word: "Handelsrechnung", "Schlussrechnung", "Abschlagsrechnung",
	// "eindfactuur", "slutfaktura" (credit notes such as "Stornorechnung"
	// and pro formas are tried first).
	reTitleInvoice = anchoredRegexp(`^(?:(?:simplified|abbreviated|full)\s*(?:(?:tax|vat|gst)\s*)?invoice|(?:tax|vat|gst|commercial|final|sales|service|customs|interim|partial|progress|corrected|consolidated|collective|summary|advance|prepayment|deposit|export|self\s*-?\s*bill(?:ing|ed))\s*invoice|invoice|invois|faktur|[a-z]{0,24}rechnung|facture|factura|[a-z]{0,20}factuur|fattura|[a-z]{0,20}faktura|fatura(?:\s*simplificada)?|nota\s*fiscal|szamla|racun|arve|(?:pvm\s*)?saskaita(?:\s*-?\s*faktura)?|rekins)\b`)
	// What may follow a title in its cell: nothing, a number label, a
	// reference, a date or "for/to invoice ...".
	reTitleRest = anchoredRegexp(`^(?:$|[:#/(\-–|]|n\.?\s*[oº°]|no\b|nr\b|nº|number|nummer|numero|num\b|nro\b|\d|` +
		`(?:zu|zur|zum|fur|for|to|of|on|re|pour|de|du|sur|concernant|per|voor|bij|op|del|al|a|relativ[oa]|betreffend|betreft)\b|` +
		`(?:invoice|rechnung|facture|factura|factuur|fattura|copy|kopie|copie|copia|original|duplicate|duplikat)\b|` +
		// "FAKTURA VAT nr FV/2024/11/0342", "Fattura IVA": the tax the invoice charges.
		`(?:vat|iva|tva|btw|mwst|gst)\b|` +
		// "FACTURĂ FISCALĂ", "Nota Fiscal": the invoice of tax law.
		`fiscal(?:a|e)?\b|` +
		// "FATURA FT 2026/1187": a Portuguese document's series code.
		`(?:ft|fr|fs|nc|nd)\s+(?:[a-z]\s*/|\d))`)
	// A letter's subject label, before the title it carries.
	reSubjectLabel = anchoredRegexp(`^\s*(?:objet|betreff|subject|re|asunto|oggetto|onderwerp|betreft)\s*:\s*`)
	// A status that makes a till document or an invoice a receipt.
	rePaidStatus = foldedRegexp(`(?:^|\s)(?:paid|paid in full|bezahlt|betaalt|betaald|paye|payee|acquittee|pagado|pagada|pagato|pagata|bar bezahlt|cash|card|especes|efectivo|contanti|contant|kartenzahlung|ec-karte|visa|mastercard|ruckgeld|wechselgeld)(?:\s|$|[:.!])`)
)

// docTypeHeadLines bounds the heading: a title printed below this many
// non-blank lines is in the body.
const docTypeHeadLines = 25

// titleKinds are the titles titleKind tries, in order. A table of
// method values built per call allocated six closures for every heading
// cell.
var titleKinds = []struct {
	kind string
	re   *startRE
}{
	{schema.DocProforma, reTitleProforma},
	{schema.DocCreditNote, reCreditTitle},
	{schema.DocDebitNote, reTitleDebit},
	{schema.DocReminder, reTitleReminder},
	{schema.DocReceipt, reTitleReceipt},
	{kindStatement, reTitleStatement},
	{schema.DocInvoice, reTitleInvoice},
}

// kindStatement is titleKind's answer for a statement of account, which
// invoice-v2 types as "other".
const kindStatement = "statement"

// titleKind returns the document type a cell's folded text opens with as a
// title, or "" when it is not a title.
func titleKind(cf string) string {
	if len(cf) > 70 || !mayHoldTitle(cf) {
		return ""
	}
	if k := titleKindOnce(cf); k != "" {
		return k
	}
	// "RESIT / RECEIPT", "FAKTUR | INVOICE": a title printed in two
	// languages, the first one's word not known here.
	if rest, ok := secondLanguageTitle(cf); ok && mayHoldTitle(rest) {
		return titleKindOnce(rest)
	}
	return ""
}

// secondLanguageTitle returns what follows the first slash or bar of a
// cell that opens with one or two words of letters and nothing else
// before it: the same title in a second language.
func secondLanguageTitle(cf string) (string, bool) {
	i := strings.IndexByte(cf, '/')
	if b := strings.IndexByte(cf, '|'); b >= 0 && (i < 0 || b < i) {
		i = b
	}
	if i <= 0 || i > 30 {
		return "", false
	}
	words := 0
	for _, w := range strings.Fields(cf[:i]) {
		for j := 0; j < len(w); j++ {
			if w[j] < 'a' || w[j] > 'z' {
				return "", false
			}
		}
		words++
	}
	if words == 0 || words > 2 {
		return "", false
	}
	return cf[i+1:], true
}

// titleKindOnce is titleKind for a cell's first title, once the cell is
// known to hold a title word (mayHoldTitle).
func titleKindOnce(cf string) string {
	// "Objet : RELANCE – facture impayée": the subject line carries the title.
	if _, e, ok := reSubjectLabel.find(cf); ok {
		cf = cf[e:]
	}
	// reTitleOrdinal skips these, then needs a digit or a letter; a title
	// needs a letter.
	if t := trimLeftMarks(cf, " \t\n\f\r*#>-"); t == "" || !(t[0] >= 'a' && t[0] <= 'z' || t[0] >= '0' && t[0] <= '9') {
		return ""
	}
	f := cf
	if _, e, ok := reTitleOrdinal.find(cf); ok {
		f = cf[e:]
	}
	// Every title below opens (after white space) with a lower-case ASCII
	// letter: most cells, amounts and item lines, stop here.
	if t := strings.TrimLeft(f, " \t\n\f\r"); t == "" || t[0] < 'a' || t[0] > 'z' {
		return ""
	}
	// A kind's match opens f with one of its words (mayHoldTitle): the
	// others are not tried, and a cell whose title word is not its first
	// ("Numero fattura:") tries none.
	open := openingKinds(f)
	for i, k := range titleKinds {
		if open&(1<<i) == 0 {
			continue
		}
		ms, me, ok := k.re.find(f)
		if !ok || ms != 0 {
			continue
		}
		rest := strings.TrimSpace(f[me:])
		if k.kind == schema.DocProforma {
			// "Proforma-Rechnung", "Pro forma invoice": the rest names
			// the invoice it is not.
			return k.kind
		}
		// "Rappel : en cas de retard de paiement, ...": a sentence opening
		// with the word, not a title. A dash sets off a subtitle instead
		// ("OVERDUE PAYMENT REMINDER - THIS IS NOT A NEW INVOICE").
		dash := strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "|")
		if codedTitleRest(rest) {
			// "Teilrechnung Bau (875) Nr. 210111": e-invoice viewers print
			// the title, a qualifier and the UNTDID 1001 type code.
			return k.kind
		}
		if !titleRestOK(rest) || !dash && sentenceWords(rest) > 4 {
			return ""
		}
		return k.kind
	}
	return ""
}

// titleRestOK is reTitleRest.MatchString. Most titles stand alone in
// their cell or are followed by a number ("Invoice", "Rechnung 2024-17"):
// those match reTitleRest's first alternatives, "$", a mark or a digit, and
// are answered without running the regexp.
func titleRestOK(rest string) bool {
	if rest == "" || strings.HasPrefix(rest, "–") {
		return true
	}
	switch c := rest[0]; {
	case c >= '0' && c <= '9', c == ':', c == '#', c == '/', c == '(', c == '-', c == '|':
		return true
	case c == 'n':
		// "Rechnung Nr. 7", "Invoice number": "n\s*[o°]" takes any
		// "no", and "number", "nummer", "numero" need no word's end.
		if strings.HasPrefix(rest, "no") || strings.HasPrefix(rest, "number") ||
			strings.HasPrefix(rest, "nummer") || strings.HasPrefix(rest, "numero") {
			return true
		}
	}
	return reTitleRest.MatchString(rest)
}

// codedTitleRest reports whether the rest of a title cell is at most two
// words and then a three-digit document type code in parentheses.
func codedTitleRest(rest string) bool {
	for words := 0; words <= 2; words++ {
		if len(rest) >= 5 && rest[0] == '(' && rest[4] == ')' && isASCIIDigitsRules(rest[1:4]) {
			return true
		}
		i := 0
		for i < len(rest) && rest[i] >= 'a' && rest[i] <= 'z' {
			i++
		}
		if i == 0 {
			return false
		}
		rest = strings.TrimLeft(rest[i:], " ")
	}
	return false
}

// documentType decides invoice-v2's document_type from the document's
// heading: a specific type (credit note, debit note, reminder, pro forma,
// receipt) printed as a title wins over the invoice title it refers to; an
// invoice title or invoice-number label makes an invoice; otherwise other.
// credit is creditLine's answer, which v1 already uses.
func (d *document) documentType(credit int) string {
	first := map[string]int{}
	seen := 0
	headEnd := len(d.lines) // the first line below the heading
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		seen++
		if seen > docTypeHeadLines {
			headEnd = i
			break
		}
		money := lineHasMoney(ln)
		for _, c := range ln.cells {
			k := titleKind(ln.foldCell(c))
			if k == "" || money && k != schema.DocInvoice {
				// "Gutschrift Anzahlung -500,00": a line of the table.
				continue
			}
			if _, ok := first[k]; !ok {
				first[k] = i
			}
		}
		if m := ln.index(reDocType); m != nil {
			if k := titleKind(strings.TrimLeft(ln.f.s[m[1]:], " :")); k != "" {
				if _, ok := first[k]; !ok {
					first[k] = i
				}
			}
		}
	}
	if _, inv := first[schema.DocInvoice]; credit >= 0 && (credit < headEnd || !inv) {
		// A credit-note label below an invoice's heading ("Credit note no.
		// CN-5" in a list of credits applied) does not make the invoice a
		// credit note.
		if i, ok := first[schema.DocCreditNote]; !ok || credit < i {
			first[schema.DocCreditNote] = credit
		}
	}
	if i, ok := first[kindStatement]; ok {
		if inv, ok := first[schema.DocInvoice]; !ok || i < inv {
			return schema.DocOther
		}
	}
	best, bestLine := "", -1
	for _, k := range []string{schema.DocCreditNote, schema.DocDebitNote, schema.DocReminder, schema.DocProforma, schema.DocReceipt} {
		if i, ok := first[k]; ok && (bestLine < 0 || i < bestLine) {
			best, bestLine = k, i
		}
	}
	if best == schema.DocReceipt {
		if inv, ok := first[schema.DocInvoice]; ok && inv < bestLine && !d.saysPaid() {
			// "Invoice ... Receipt of goods": an invoice unless it is paid.
			best = schema.DocInvoice
		}
	}
	if best != "" {
		return best
	}
	if _, ok := first[schema.DocInvoice]; ok {
		return schema.DocInvoice
	}
	// Reason: an untitled slip whose total is tendered by card on it
	// ("TOTAL 42.95 / VISA 42.95", "SUMME 9,87 / Geg. EC-Cash 9,87") is a
	// receipt, whatever number label it has ("Beleg-Nr.", "Bill No."): the
	// card line pays that sale at the counter.
	if d.cardPaysTotal() {
		return schema.DocReceipt
	}
	for _, ln := range d.lines {
		if !ln.blank && len(ln.labels(reInvNo)) > 0 {
			return schema.DocInvoice
		}
	}
	// A till slip titled "Ticket" or "Bon" is a receipt when it shows how
	// it was paid.
	seen = 0
	for _, ln := range d.lines {
		if ln.blank {
			continue
		}
		if seen++; seen > docTypeHeadLines {
			break
		}
		if len(ln.cells) > 0 && reTitleTicket.MatchString(ln.foldCell(ln.cells[0])) && d.saysPaid() {
			return schema.DocReceipt
		}
	}
	// Reason: an untitled till slip ("SLIP NO.", the shop and its items)
	// that gives change from the cash tendered is a receipt: only a sale
	// paid at the counter prints what the customer got back.
	if _, ok := d.cashLessChange(2, false); ok {
		return schema.DocReceipt
	}
	return schema.DocOther
}

// saysPaid reports whether a line states that the document is paid, or how
// (cash, card): a receipt's mark.
func (d *document) saysPaid() bool {
	for _, ln := range d.lines {
		if !ln.blank && rePaidStatus().MatchString(ln.f.s) {
			return true
		}
	}
	return false
}

// sentenceWords counts the words of letters in s: a title is followed by a
// number, a date and a few words at most.
func sentenceWords(s string) int {
	n := 0
	for w := range strings.FieldsSeq(s) {
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 && strings.IndexFunc(w, unicode.IsDigit) < 0 && len(w) > 1 {
			n++
		}
	}
	return n
}
