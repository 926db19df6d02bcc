package rules

import "strings"

// Some invoices, and the human-readable renderings of e-invoices, print
// each party as a section: a heading ("Seller", "Verkäufer", "Buyer") and
// then labelled fields, one of them the name ("Name: Lieferant GmbH").
// This file reads those name fields.

// reNameField is a name label that opens a field line.
var reNameField = lexPrefixRE("name", "company name", "legal name", "registered name", "trading name", "business name",
	"firma", "firmenname", "name der firma", "nom", "raison sociale", "dénomination", "nombre", "razón social",
	"razon social", "denominación", "naam", "bedrijfsnaam", "ragione sociale", "denominazione")

// maxPartySection bounds the lines of a party section searched for its
// name field.
const maxPartySection = 8

// partyHeading reports whether line i is a party heading alone on its line
// ("Verkäufer", "Seller:", "Käufer/Leistungsempfänger") and which party.
func (d *document) partyHeading(i int) region {
	ln := d.lines[i]
	if ln.blank || len(ln.cells) != 1 {
		return regNone
	}
	f := strings.TrimSpace(ln.foldCell(ln.cells[0]))
	if fieldsOver(f, 3) {
		return regNone
	}
	for _, c := range []struct {
		kind region
		lx   *lexicon
	}{{regSupplier, reSupplierBlock}, {regCustomer, reCustomerBlock}} {
		end := c.lx.prefixEnd(f)
		if end < 0 {
			continue
		}
		rest := strings.TrimSpace(f[end:])
		if rest == "" || rest == ":" || strings.HasPrefix(rest, "/") {
			return c.kind
		}
	}
	return regNone
}

// nameField returns the value of a name field on line i ("Name: X" in one
// cell, or "Name:" and X in the next cell), "" if the line is none.
func (d *document) nameField(i int) (string, int) {
	ln := d.lines[i]
	if ln.blank || len(ln.cells) == 0 {
		return "", 0
	}
	c := ln.cells[0]
	cf := ln.foldCell(c)
	m := reNameField.FindStringIndex(cf)
	if m == nil || m[0] != 0 {
		return "", 0
	}
	rest := strings.TrimLeft(cf[m[1]:], " ")
	if !strings.HasPrefix(rest, ":") {
		return "", 0 // "Name" without a colon is a table heading as often as a label
	}
	cellRaw := ln.raw[c.start:c.end]
	rs, _ := fold(cellRaw).rawSpan(len(cf)-len(rest)+1, len(cf)-len(rest)+1)
	if v := strings.TrimSpace(cellRaw[rs:]); v != "" {
		return v, c.start + strings.Index(cellRaw, v)
	}
	if len(ln.cells) < 2 {
		return "", 0
	}
	nc := ln.cells[1]
	return strings.TrimSpace(ln.raw[nc.start:nc.end]), nc.start
}

// scanPartySections adds the name field of a seller section as a strong
// candidate and counts the name field of a buyer section as the customer.
func (s *supplierScan) scanPartySections() {
	d := s.d
	for i := range d.lines {
		kind := d.partyHeading(i)
		if kind == regNone {
			continue
		}
		for j := i + 1; j < len(d.lines) && j <= i+maxPartySection; j++ {
			if d.lines[j].blank {
				break
			}
			v, _ := d.nameField(j)
			if v == "" || !strings.Contains(d.lines[j].raw, v) || len(v) > 120 || strings.ContainsAny(v, "@") {
				continue
			}
			if kind == regCustomer {
				s.customers[normName(v)]++
				break
			}
			s.line = j
			// Reason: a seller section's own name field is the issuer.
			s.add(v, partyFieldScore)
			break
		}
	}
}

// partyFieldScore outweighs a letterhead and legal names elsewhere: the
// document states outright which name is the seller's.
const partyFieldScore = 30
