package rules

import (
	"strings"
	"unicode"
)

var (
	// Customer-block labels that name where goods go, not who is billed:
	// used only when no billing label names the buyer.
	reShipLabel = lexPrefixRE("ship to", "shipped to", "deliver to", "delivered to", "delivery address", "shipping address",
		"lieferadresse", "lieferanschrift", "adresse de livraison", "livrer à", "livré à", "enviar a", "dirección de envío",
		"afleveradres", "leveradres", "geleverd aan", "consegna a", "destinazione merce")
	// Labels that name the billed party even next to bank details.
	reBillingLabel = lexPrefixRE("bill to", "billed to", "invoice to", "invoiced to", "sold to", "customer", "client",
		"buyer", "rechnungsempfänger", "rechnungsadresse", "rechnungsanschrift", "kunde", "käufer", "leistungsempfänger",
		"facturer à", "facturé à", "adresse de facturation", "acheteur", "cliente", "facturar a", "facturado a",
		"comprador", "klant", "factuur aan", "gefactureerd aan", "spett.le", "spettabile", "fatturare a", "cessionario", "nabywca")
	// Billing labels the shared block lexicon lacks.
	reBuyerLabelExtra = lexPrefixRE("vendu à", "vendu a", "vendido a", "verkocht aan", "venduto a", "verkauft an",
		"sold to", "customer name", "client name", "nom du client", "nombre del cliente", "naam klant", "ragione sociale cliente")
	// Labels that are customer-block phrases but name the payer of a
	// direct debit or an attention line, not the buyer.
	reNotBuyerLabel = lexPrefixRE("zahlbar durch", "payable by", "payable par", "pagadero por", "pagabile da",
		"betaalbaar door", "attn", "attention", "for")
	// A courtesy word before a name: "Herrn Max Muster", "Firma Beispiel AG".
	reNamePrefix = anchoredRegexp(`^(?:firma|fa\.|herrn|herr|frau|mr\.?|mrs\.?|ms\.?|messrs\.?|madame|monsieur|mme\.?|m\.|sr\.?|sra\.?|dhr\.?|mevr\.?|sig\.?|sig\.ra|spett\.?\s*le|spettabile|societe|sociedad|empresa|ditta)\s+`)
)

// buyerBlock is where the buyer's name was read: its line and display
// column. The lines just below hold the buyer's address, VAT id and so on.
type buyerBlock struct {
	line, col int
}

// maxBuyerBlock is how many lines below the name still belong to it.
const maxBuyerBlock = 6

// contains reports whether raw offset start of line i lies in the block:
// the name's line and maxBuyerBlock below it, as a party block.
func (b *buyerBlock) contains(d *document, i, start int) bool {
	return partyBlock{line: b.line, end: b.line + maxBuyerBlock, col: b.col}.contains(d, i, start)
}

// findBuyer returns the buyer's name as written: the first line of the
// billing block (Bill to, Rechnungsempfänger, Client, ...), else of the
// delivery block, else the line under the sender line of a letter's address
// window. Null when the line there does not read like a name.
func (d *document) findBuyer(regs [][]region, supplier *fact[string]) (*fact[string], *buyerBlock) {
	supKey := ""
	if supplier != nil {
		supKey = normName(supplier.V)
	}
	var ship *fact[string]
	var shipBlock *buyerBlock
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		for k, c := range ln.cells {
			cf := ln.foldCell(c)
			kind, end := ln.cellLabel(k)
			lf := trimLeftMarks(cf, " *->#") // TrimLeft(cf, " *-•>#")
			if kind != regCustomer {
				if m := reBuyerLabelExtra.FindStringIndex(lf); m != nil {
					kind, end = regCustomer, len(cf)-len(lf)+m[1]
				}
			}
			if kind != regCustomer || d.bankContext(i) && !reBillingLabel.MatchString(lf) {
				// "Empfänger: ..." beside an IBAN is the payee.
				continue
			}
			if reNotBuyerLabel.MatchString(lf) {
				continue
			}
			f, b := d.buyerAfterLabel(i, k, end, supKey)
			if f == nil {
				continue
			}
			if reShipLabel.MatchString(lf) {
				if ship == nil {
					ship, shipBlock = f, b
				}
				continue
			}
			return f, b
		}
	}
	if ship != nil {
		return ship, shipBlock
	}
	if f, b := d.buyerInWindow(supKey); f != nil {
		return f, b
	}
	return d.buyerAddressBlock(supKey)
}

// buyerAddressBlock reads an unlabelled address block: the paragraph right
// after the supplier's letterhead (the first paragraph, naming the
// supplier), whose first line is a name and whose next lines hold an
// address (a street number or postcode).
func (d *document) buyerAddressBlock(supKey string) (*fact[string], *buyerBlock) {
	if supKey == "" {
		return nil, nil
	}
	i := d.nextNonBlank(-1, 3)
	if i < 0 {
		return nil, nil
	}
	letterhead := false
	for ; i < len(d.lines) && !d.lines[i].blank; i++ {
		if strings.Contains(d.lines[i].norm(), supKey) {
			letterhead = true
		}
	}
	if !letterhead || i > 12 {
		return nil, nil
	}
	j := d.nextNonBlank(i, 2)
	if j < 0 || len(d.lines[j].cells) == 0 {
		return nil, nil
	}
	// The block is the left column of its lines: labels there ("Invoice
	// no.:") make it the document's header, not an address.
	address := false
	for k := j; k < len(d.lines) && k <= j+4 && !d.lines[k].blank; k++ {
		c := d.lines[k].cells[0]
		cf := d.lines[k].foldCell(c)
		if k > j && isAttentionLine(cf) {
			continue // "Att.: Mette Sørensen", "FAO Accounts Payable"
		}
		if strings.Contains(cf, ":") || startsWithLabel(cf) || reDocTitle.MatchString(cf) {
			return nil, nil
		}
		if k > j && strings.ContainsAny(cf, "0123456789") {
			address = true
			break
		}
	}
	if !address {
		return nil, nil
	}
	c := d.lines[j].cells[0]
	f, b := d.buyerName(j, c.start, c.end, supKey)
	if f != nil && fieldCount(f.V) < 2 {
		return nil, nil // one word under a letterhead is a heading as often as a name
	}
	return f, b
}

// buyerAfterLabel reads the name after the customer label of cell k of
// line i (folded label end end): in the cell itself, else in the cell
// under it on the next lines, skipping an attention line.
func (d *document) buyerAfterLabel(i, k, end int, supKey string) (*fact[string], *buyerBlock) {
	ln := d.lines[i]
	c := ln.cells[k]
	cellRaw := ln.raw[c.start:c.end]
	rs, _ := fold(cellRaw).rawSpan(end, end)
	if rest := strings.TrimLeft(cellRaw[rs:], " :-–\t"); rest != "" {
		s := c.start + rs + (len(cellRaw[rs:]) - len(rest))
		return d.buyerName(i, s, c.end, supKey)
	}
	// The next cell of the line, unless it is another label: "Cliente:
	// Ferretería Aragonesa S.A." printed as two columns.
	if k+1 < len(ln.cells) {
		nc := ln.cells[k+1]
		ncf := ln.foldCell(nc)
		if kind, _ := ln.cellLabel(k + 1); kind == regNone && !startsWithLabel(ncf) && nc.col-c.colEnd <= 24 {
			return d.buyerName(i, nc.start, nc.end, supKey)
		}
	}
	// The cell under the label, on one of the next three lines.
	j := i
	for range 3 {
		j = d.nextNonBlank(j, 1)
		if j < 0 {
			return nil, nil
		}
		vl := d.lines[j]
		var vc *cell
		for n := range vl.cells {
			cc := &vl.cells[n]
			if len(ln.cells) == 1 && n == 0 || cc.col >= c.col-4 && cc.col <= c.col+4 {
				vc = cc
				break
			}
		}
		if vc == nil {
			return nil, nil
		}
		// An attention line ("Attn: Accounts", "z. Hd. Frau Meier") opens
		// with its marker; "c/o" inside "Shipping Co." is none.
		if isAttentionLine(vl.foldCell(*vc)) {
			continue
		}
		return d.buyerName(j, vc.start, vc.end, supKey)
	}
	return nil, nil
}

// buyerName reads a name at raw [s, e) of line i: a company with its legal
// form, or a short capitalised name without digits; courtesy words
// ("Firma", "Herrn") are dropped. It is never the supplier.
func (d *document) buyerName(i, s, e int, supKey string) (*fact[string], *buyerBlock) {
	ln := d.lines[i]
	s, e = trimSpan(ln.raw, s, e)
	s += len(ln.raw[s:e]) - len(strings.TrimLeft(ln.raw[s:e], " :-–"))
	if s >= e {
		return nil, nil
	}
	if m := reNamePrefix.FindStringIndex(foldString(ln.raw[s:e])); m != nil {
		rs, _ := fold(ln.raw[s:e]).rawSpan(m[1], m[1])
		s += rs
	}
	name := ""
	forms := reLegalForm.FindAllStringIndex(ln.raw, -1)
	if ns := legalNamesIn(ln.raw, s, e, forms); len(ns) > 0 && strings.HasPrefix(ln.raw[s:e], ns[0]) {
		name = ns[0] // "Crestview Dental Partners, Inc.", comma and all
	} else if t := cutName(ln.raw[s:e]); strings.HasPrefix(ln.raw[s:e], t) && (looksLikeName(t) || looksLikePerson(t) || looksLikeName(unelide(t))) {
		name = t
	} else if k := strings.LastIndex(t, " ("); k > 0 && strings.HasSuffix(t, ")") && looksLikeName(t[:k]) {
		name = t // "Gulf Pearl Hospitality B.S.C. (c)"
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 || hasControl(name) || supKey != "" && normName(name) == supKey {
		return nil, nil
	}
	return &fact[string]{V: name, Ev: evidence(ln, s, s+len(name))}, &buyerBlock{line: i, col: colOf(ln.raw, s)}
}

// looksLikePerson accepts two to four capitalised words without digits:
// a private buyer's name after "Herrn" or "Mme".
func looksLikePerson(s string) bool {
	w := strings.Fields(s)
	if len(w) < 2 || len(w) > 4 {
		return false
	}
	for _, x := range w {
		r := []rune(x)
		if !unicode.IsUpper(r[0]) {
			return false
		}
		for _, c := range r {
			if !unicode.IsLetter(c) && c != '-' && c != '.' && c != '\'' {
				return false
			}
		}
	}
	return !reSalutation.MatchString(foldString(s))
}

// buyerInWindow reads the address window of a letter: the sender line
// (the supplier's name with its address on one line, "Acme GmbH · Str. 1 ·
// 12345 Stadt") and, right below, the buyer's name.
func (d *document) buyerInWindow(supKey string) (*fact[string], *buyerBlock) {
	if supKey == "" {
		return nil, nil
	}
	seen := 0
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		if seen++; seen > 15 {
			break
		}
		if !strings.Contains(ln.norm(), supKey) || !strings.ContainsAny(ln.raw, "0123456789") ||
			!strings.ContainsAny(ln.raw, "·•|,–-") {
			continue
		}
		j := d.nextNonBlank(i, 1)
		if j < 0 {
			return nil, nil
		}
		vl := d.lines[j]
		if len(vl.cells) == 0 {
			return nil, nil
		}
		c := vl.cells[0]
		cellText := strings.TrimSpace(vl.raw[c.start:c.end])
		if strings.ContainsAny(vl.raw, "0123456789") || cutName(cellText) != cellText {
			// "Lieu-dit « Les Vignes Hautes » – 21190 Meursault": more of
			// the letterhead, not a name alone on its line.
			return nil, nil
		}
		return d.buyerName(j, c.start, c.end, supKey)
	}
	return nil, nil
}

// reFAO marks attention lines reAttention lacks.
var reFAO = anchoredRegexp(`^\s*(?:fao\b|f\.a\.o\.|for the attention of|att\.?\s*:)`)

// isAttentionLine reports whether a folded cell opens with an attention
// marker ("Attn:", "z. Hd.", "FAO"): "c/o" inside "Shipping Co." is none.
func isAttentionLine(cf string) bool {
	if m := reAttention.FindStringIndex(cf); m != nil && m[0] == 0 {
		return true
	}
	return reFAO.MatchString(cf)
}

// unelide drops French and Italian elisions inside a name ("Cabinet
// d'Architectes Morin" reads as "Cabinet Architectes Morin"), so the
// lower-case "d'" does not look like a sentence.
func unelide(s string) string {
	return strings.NewReplacer(" d'", " ", " d’", " ", " l'", " ", " l’", " ", " dell'", " ", " all'", " ").Replace(s)
}
