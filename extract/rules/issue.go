package rules

import (
	"strings"

	"github.com/invx/invx/schema"
)

var (
	// Labels of the issue date, naming the document.
	reIssueStrong = lexRE("invoice date", "date of invoice", "invoice dated", "date of issue", "issue date", "issued on",
		"issued", "date issued", "document date", "bill date", "credit note date", "date of credit note", "receipt date",
		"rechnungsdatum", "rechnungs-datum", "datum der rechnung", "ausstellungsdatum", "belegdatum", "gutschriftsdatum",
		"gutschriftdatum", "dokumentdatum", "erstellungsdatum", "rechnungsdatum/leistungsdatum",
		"date de facture", "date facture", "date de la facture", "date d'émission", "date d'emission", "date de l'avoir",
		"émise le", "facture du", "fecha de factura", "fecha factura", "fecha de emisión", "fecha de expedición",
		"fecha emisión", "fecha de la factura", "factuurdatum", "datum factuur", "factuur datum", "datum van de factuur",
		"data fattura", "data della fattura", "data emissione", "data di emissione", "data documento", "data doc",
		"reminder date", "datum der mahnung", "date du rappel", "fecha del recordatorio",
		"data wystawienia", "data wystawienia faktury",
		"data de emissão", "data da fatura", "data fatura", "data emissão", "data do documento",
		"fakturadatum", "fakturadato", "laskun päivämäärä", "laskun pvm", "datum vystavení", "datum vyhotovení",
		"fatura tarihi", "düzenleme tarihi",
		"data emiterii", "data facturii", "data emitere", "kiállítás dátuma", "számla kelte", "kiállítás kelte",
		"kiállítás napja", "datum računa", "datum izdavanja", "datum izdaje", "arve kuupäev",
		"išrašymo data", "sąskaitos data", "rēķina datums", "izrakstīšanas datums")
	// Bare date labels: the document's date when nothing names it better.
	reIssueWeak = lexRE("date", "datum", "fecha", "data", "dated", "del", "vom", "du", "kuupäev", "datums")
	// A letter's place and date: "Zürich, 31.03.2026", "Genève, le 27.03.2026",
	// "Bioggio, 1° marzo 2026" (folded, up to the date).
	reLetterDate = anchoredRegexp(`^\s*[a-z][a-z .'\-()/]{1,40},\s*(?:(?:den|le|el|il|li|on|the)\s+)?$`)
	// An issue-date label that names the invoice: on a reminder or credit
	// note it dates the invoice referred to.
	reInvoiceWord = foldedRegexp(`(?:invoice|rechnung|factur|fattura|factuur)`)
	// Words before a bare label that make it another date: "Delivery
	// date", "Due date", "Order date", "Service date". otherDateBefore
	// answers it by hand; tests hold it to this expression.
	reOtherDate = foldedRegexp(`\b(?:delivery|ship|shipping|dispatch|due|order|service|supply|tax\s*point|performance|payment|value|start|end|period|expiry|expiration|print|printed|birth|liefer|leistungs|bestell|zahlungs|faiiigkeits|auftrags|versand|livraison|commande|echeance|expedition|paiement|prestation|entrega|pedido|vencimiento|pago|servicio|levering|lever|bestel|verval|betaal|consegna|ordine|scadenza|pagamento|spedizione|ddt|of\s+order|de\s+livraison|de\s+commande|de\s+entrega|de\s+pedido|di\s+consegna)\s*$`)
)

// issueDateFact returns the document's issue date: the date after an
// issue-date label (same line, the cell below or a stacked block), a bare
// "Date:" label when no stronger one has a date, never a delivery, order,
// due or referenced invoice's date.
//
// On a reminder or credit note, "vom/del/du" after an invoice number dates
// the invoice referred to, not the document: only labels count there.
func (d *document) issueDateFact(docType string) *fact[string] {
	refersBack := docType == schema.DocReminder || docType == schema.DocCreditNote
	bestScore := 0
	var best *fact[string]
	known := d.orderGate()
	consider := func(score int, ln *line, dh dateHit) {
		// "03/04/2026" on a document that does not say where it is from
		// could be either day: null rather than a guess.
		if score > bestScore && known(ln, dh) {
			s, e := ln.f.rawSpan(dh.start, dh.end)
			bestScore, best = score, &fact[string]{V: dh.date.String(), Ev: evidence(ln, s, e)}
		}
	}
	seen := 0
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		f := ln.f.s
		if seen++; seen <= docTypeHeadLines && len(ln.dateHits()) > 0 {
			// The place and date end the line, and open it or its last
			// column ("Rechnung Nr. 7      Metzingen, 25.03.2026").
			dh := ln.dateHits()[len(ln.dateHits())-1]
			from := 0
			if rs, _ := ln.f.rawSpan(dh.start, dh.end); len(ln.cells) > 1 {
				if k := ln.cellAt(rs); k > 0 {
					from = ln.f.foldPos(ln.cells[k].start)
				}
			}
			if strings.TrimSpace(f[dh.end:]) == "" && from <= dh.start && reLetterDate.MatchString(f[from:dh.start]) {
				consider(7, ln, dh)
			}
		}
		if len(ln.dateHits()) > 0 && !refersBack {
			// A dated headline dates the document whatever its preposition.
			if dh, ok := d.titleDate(ln); ok {
				consider(6, ln, dh)
			}
		}
		dues := ln.labels(reDueLabel)
		own := -1
		ownNumber := func() bool {
			if own < 0 {
				own = 0
				if _, title := parseTitleRef(f); title || reDocTitle.MatchString(f) || len(ln.labels(reInvNo)) > 0 {
					own = 1
				}
			}
			return own == 1
		}
		for _, lab := range []struct {
			re    *lexicon
			score int
		}{{reIssueStrong, 12}, {reIssueWeak, 8}} {
			for _, m := range ln.labels(lab.re) {
				score := lab.score
				word := f[m[0]:m[1]]
				if word == "dei" || word == "vom" || word == "du" {
					// "Rechnung Nr. 7 vom ...", "Fattura n. 7 del ...": only
					// after the document's own number, right before the date.
					if refersBack || !ownNumber() {
						continue
					}
					score = 6
				}
				// Only the words just before the label can make it another
				// date; the window keeps the work per label bounded.
				before := f[max(0, m[0]-80):m[0]]
				if otherDateBefore(before) || reRefContext.MatchString(before) || partOfDueLabel(dues, m) {
					continue
				}
				if refersBack && lab.score == 12 && reInvoiceWord().MatchString(word) {
					score = 5
				}
				found := false
				for _, dh := range ln.dateHits() {
					if dh.start < m[1] {
						continue
					}
					if dueGapOK(f[m[1]:dh.start]) && dh.start-m[1] <= 20 {
						consider(score, ln, dh)
						found = true
					}
					break
				}
				if found || score == 6 {
					continue
				}
				if lab.score == 8 && len(ln.cells) >= 3 && len(reTableHeader.FindAllStringIndex(f, -1)) >= 2 {
					// "Pos.  Datum  Leistung  Betrag": a column of the item
					// table dates the lines, not the document.
					continue
				}
				ls, le := ln.f.rawSpan(m[0], m[1])
				for _, sp := range d.valueSpans(i, ls, le)[1:] {
					vl := d.lines[sp.line]
					fs, fe := vl.f.foldPos(sp.start), vl.f.foldPos(sp.end)
					for _, dh := range vl.dateHits() {
						if dh.start >= fs && dh.end <= fe+1 && dueGapOK(vl.f.s[fs:dh.start]) {
							consider(score-1, vl, dh)
							found = true
							break
						}
					}
					if found {
						break
					}
				}
			}
		}
	}
	if best == nil {
		// No label names the date: a till slip's time stamp, or the one
		// date the document prints.
		if ln, dh, ok := d.stampDate(refersBack); ok {
			s, e := ln.f.rawSpan(dh.start, dh.end)
			best = &fact[string]{V: dh.date.String(), Ev: evidence(ln, s, e)}
		}
	}
	return best
}

// partOfDueLabel reports whether the label match m overlaps a due-date
// label of its line or directly follows one ("Due date", "payable le").
func partOfDueLabel(dues [][2]int, m [2]int) bool {
	for _, dm := range dues {
		if dm[0] < m[1] && dm[1] > m[0] || dm[1] <= m[0] && m[0]-dm[1] <= 2 {
			return true
		}
	}
	return false
}
