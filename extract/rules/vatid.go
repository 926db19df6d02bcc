package rules

import (
	"regexp"
	"strings"
)

// vatPrefixes are the country prefixes whose VAT id syntax the schema
// checks (EU, XI, GB, CH, NO). An id with another prefix passes the schema
// on its form alone, which any "AB1234" would: such ids are not read.
var vatPrefixes = map[string]bool{
	"AT": true, "BE": true, "BG": true, "CY": true, "CZ": true, "DE": true, "DK": true, "EE": true, "EL": true,
	"ES": true, "FI": true, "FR": true, "HR": true, "HU": true, "IE": true, "IT": true, "LT": true, "LU": true,
	"LV": true, "MT": true, "NL": true, "PL": true, "PT": true, "RO": true, "SE": true, "SI": true, "SK": true,
	"XI": true, "GB": true, "CH": true, "NO": true,
}

var (
	// Labels of a VAT id in six languages (and the Swiss UID).
	reVATLabel = lexRE("ust-idnr", "ust-id-nr", "ust-id", "ust.-id", "ust id", "ustid", "ust-ident-nr", "ust-identnr",
		"umsatzsteuer-id", "umsatzsteuer-identifikationsnummer", "umsatzsteueridentifikationsnummer", "uid", "uid-nr",
		"mwst-nr", "mwst nr", "mwst", "vat reg no", "vat reg", "vat registration", "vat registration number", "vat no",
		"vat number", "vat id", "vat", "tva intracommunautaire", "n° tva intracommunautaire", "n° tva", "no tva",
		"numéro de tva", "numéro tva", "tva", "id tva", "nif", "cif", "nif/cif", "n.i.f", "c.i.f", "nif-iva", "nº iva",
		"número de iva", "nif intracomunitario", "btw-nummer", "btw nummer", "btw-nr", "btw nr", "btw-id", "btw id", "btw",
		"omzetbelastingnummer", "iva", "idi", "ide", "p.iva", "p. iva", "partita iva", "p.i.", "n. iva", "codice iva", "vat-id", "tax id", "moms")
	// Words that put a VAT id on the buyer's side.
	reBuyerVAT = lexRE("your vat", "customer vat", "client vat", "buyer vat", "vat of the customer", "vat of customer",
		"recipient vat", "customer", "client", "buyer", "bill to", "invoice to", "sold to", "ihre ust", "ihre ust-idnr",
		"kunden-ust", "kunden ust", "des kunden", "des leistungsempfängers", "leistungsempfänger", "empfänger", "kunde",
		"votre tva", "votre n° tva", "tva client", "du client", "client", "acheteur", "destinataire", "cliente", "del cliente",
		"comprador", "destinatario", "uw btw", "btw klant", "klant", "afnemer", "vostra p.iva", "cessionario", "committente",
		"acquirente", "customer vat id", "your vat id", "your vat number")
	// Words that put it on the supplier's side.
	reSupplierVAT = lexRE("our vat", "unsere ust", "unsere ust-idnr", "notre tva", "notre n° tva", "nuestro nif", "nuestro cif",
		"onze btw", "nostra p.iva", "nostra partita iva", "supplier vat", "seller vat", "vendor vat")
)

// National VAT numbers printed without their country prefix under a label
// that names the country: the Italian partita IVA (11 digits) and the
// Spanish NIF/CIF (a letter and 8 characters, or 8 digits and a letter).
// The schema accepts the national part as evidence of the prefixed id.
var (
	reITVATNational = mustRE(`(?i)\b(?:P\.?\s?IVA|Partita\s+IVA|P\.\s?I\.)(?:\s*(?:e|/)\s*C\.?\s?F\.?)?\s*[:.]?\s*(?:n\.?\s*)?([0-9]{11})\b`)
	reESVATNational = mustRE(`(?i)\b(?:C\.?I\.?F\.?|N\.?I\.?F\.?(?:[-/\s]?IVA)?|NIF/CIF)\s*[:.]?\s*([A-Z]-?[0-9]{7}-?[0-9A-Z]|[0-9]{8}-?[A-Z])\b`)
)

// nationalVATIDs lists the prefix-less VAT numbers of a raw line as compact
// ids with their raw spans (label start, value end).
func nationalVATIDs(raw string) (ids []string, spans [][2]int) {
	// Each pattern needs a run of ASCII digits (eleven for Italy, seven for
	// Spain); most lines have none that long, and skip the regexps. Most
	// lines do not even hold four digits at a four-aligned offset, which
	// any seven in a row do: they skip the count of runs too.
	if !mayHoldDigitRun7(raw) {
		return nil, nil
	}
	run := longestDigitRun(raw)
	for _, x := range []struct {
		re     func() *regexp.Regexp
		prefix string
		digits int
		label  func(string) bool
	}{{reITVATNational, "IT", 11, mayITVATLabel}, {reESVATNational, "ES", 7, mayESVATLabel}} {
		if run < x.digits || !x.label(raw) {
			continue
		}
		for _, m := range x.re().FindAllStringSubmatchIndex(raw, -1) {
			ids = append(ids, x.prefix+alnumUpperASCII(raw[m[2]:m[3]]))
			spans = append(spans, [2]int{m[0], m[3]})
		}
	}
	return ids, spans
}

// mayITVATLabel reports whether raw could hold reITVATNational's label:
// each alternative holds "IVA" or "P." and "I" (one \s between at most),
// in any case. Long digit runs (phone numbers, IBANs) are common; the
// label is not, and the regexp is not run without it.
func mayITVATLabel(raw string) bool {
	for i := 0; i+2 < len(raw); i++ {
		switch raw[i] | 0x20 {
		case 'i':
			if raw[i+1]|0x20 == 'v' && raw[i+2]|0x20 == 'a' {
				return true
			}
		case 'p':
			j := i + 2
			if raw[i+1] != '.' {
				continue
			}
			if isRESpace(raw[j]) {
				j++
			}
			if j < len(raw) && raw[j]|0x20 == 'i' {
				return true
			}
		}
	}
	return false
}

// mayESVATLabel reports whether raw could hold reESVATNational's label:
// each alternative holds "C" or "N", an optional ".", then "I", in any
// case.
func mayESVATLabel(raw string) bool {
	for i := 0; i+1 < len(raw); i++ {
		if c := raw[i] | 0x20; c != 'c' && c != 'n' {
			continue
		}
		j := i + 1
		if raw[j] == '.' {
			j++
		}
		if j < len(raw) && raw[j]|0x20 == 'i' {
			return true
		}
	}
	return false
}

// mayHoldDigitRun7 reports whether s may hold seven ASCII digits in a row:
// false when no four-aligned block of four bytes (s[4k:4k+4]) is all
// digits, as any seven in a row would contain one. Eight bytes are tested
// at once; nationalVATIDs asks it of every line.
func mayHoldDigitRun7(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		m := digitLanes(load8(s, i))
		if m&0x80808080 == 0x80808080 || m>>32 == 0x80808080 {
			return true
		}
	}
	// Past the last full word, one block of four at most fits.
	return i+4 <= len(s) && isDigit(s[i]) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3])
}

// longestDigitRun is the length of the longest run of ASCII digits in s.
// The bytes between runs are passed over eight at a time: it is asked of
// every line of the document.
func longestDigitRun(s string) int {
	best := 0
	for i := 0; i < len(s); {
		i = nextDigit(s, i)
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		best = max(best, j-i)
		i = j
	}
	return best
}

// vatCand is one VAT id found in the text.
type vatCand struct {
	id       string
	line     int
	ev       string
	labelled bool
	side     region // regCustomer, regSupplier or regNone
}

// supplierVATID returns the supplier's VAT id in compact form. Every id the
// schema accepts is read, each placed on the buyer's or the supplier's side
// by its block, its label and its neighbours; the supplier's id is the only
// id not on the buyer's side, or the only one on the supplier's side. An id
// that cannot be placed is not guessed: null.
func (d *document) supplierVATID(regs [][]region, buyer *buyerBlock, ids *idChecker) *fact[string] {
	var cands []vatCand
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		labels := ln.labels(reVATLabel)
		// A label alone on the line above labels the ids of this one.
		stacked := false
		if p := d.prevNonBlank(i); p >= 0 && len(d.lines[p].labels(reVATLabel)) > 0 && labelOnly(d.lines[p].f.s) {
			stacked = true
		}
		for _, r := range d.idRunsOf(i) {
			if !vatPrefixes[r.compact[0][:2]] {
				continue
			}
			fs := ln.f.foldPos(r.start)
			labelled := false
			labelStart := r.start
			for _, m := range labels {
				// The label ends at most 40 folded bytes before the id.
				if m[1] <= fs && fs-m[1] <= 40 {
					labelled = true
					labelStart, _ = ln.f.rawSpan(m[0], m[1])
				}
			}
			labelled = labelled || stacked
			// "DE812445903" or the Swiss "CHE-", not "DE 812 445 903" or
			// "NO 123456789", which need a label.
			glued := r.ends[0]-r.start >= 8 || r.compact[0] == "CHE"
			if !labelled && (!glued || reIBANLabel().MatchString(ln.f.s[:fs])) {
				continue
			}
			if ids.iban(r.compact[len(r.compact)-1]) {
				continue // an IBAN whose first groups happen to read as an id
			}
			id, end := r.longestValid(ids.vatID)
			if id == "" {
				continue
			}
			c := vatCand{id: id, line: i, ev: evidence(ln, labelStart, end), labelled: labelled}
			c.side = d.vatSide(regs, buyer, i, r.start, fs)
			cands = append(cands, c)
		}
		nat, spans := nationalVATIDs(ln.raw)
		for k, id := range nat {
			if !ids.vatID(id) {
				continue
			}
			sp := spans[k]
			c := vatCand{id: id, line: i, ev: evidence(ln, sp[0], sp[1]), labelled: true}
			c.side = d.vatSide(regs, buyer, i, sp[0], ln.f.foldPos(sp[0]))
			cands = append(cands, c)
		}
	}
	return pickSupplierID(cands)
}

// vatSide places the id at raw offset start (folded fs) of line i.
func (d *document) vatSide(regs [][]region, buyer *buyerBlock, i, start, fs int) region {
	ln := d.lines[i]
	before := ln.f.s[:fs]
	if k := ln.cellAt(start); k >= 0 {
		c := ln.cells[k]
		before = ln.f.s[ln.f.foldPos(c.start):fs]
		switch regs[i][k] {
		case regCustomer:
			return regCustomer
		case regSupplier:
			return regSupplier
		}
	}
	if reSupplierVAT.MatchString(before) {
		return regSupplier
	}
	if reBuyerVAT.MatchString(before) {
		return regCustomer
	}
	if buyer != nil && buyer.contains(d, i, start) {
		return regCustomer
	}
	return regNone
}

// pickSupplierID chooses the supplier's id among the candidates: the one
// distinct id on the supplier's side, else the one distinct id not on the
// buyer's side; nil when there are several or none.
func pickSupplierID(cands []vatCand) *fact[string] {
	sides := map[string]region{}
	first := map[string]vatCand{}
	var order []string
	for _, c := range cands {
		prev, ok := sides[c.id]
		if !ok {
			order = append(order, c.id)
			first[c.id] = c
			sides[c.id] = c.side
			continue
		}
		// An id seen on both sides is the buyer's if ever labelled so.
		if c.side == regCustomer || prev == regNone {
			sides[c.id] = c.side
		}
		if !first[c.id].labelled && c.labelled {
			first[c.id] = c
		}
	}
	var sup, open []string
	for _, id := range order {
		switch sides[id] {
		case regSupplier:
			sup = append(sup, id)
		case regNone:
			open = append(open, id)
		}
	}
	pick := ""
	switch {
	case len(sup) == 1:
		pick = sup[0]
	case len(sup) == 0 && len(open) == 1:
		pick = open[0]
	}
	if pick == "" {
		return nil
	}
	c := first[pick]
	if ev := alnumUpperASCII(c.ev); !strings.Contains(ev, c.id) && !strings.Contains(ev, c.id[2:]) {
		return nil
	}
	return &fact[string]{V: c.id, Ev: c.ev}
}

// alnumUpperASCII keeps the ASCII letters and digits of s, upper-cased: the
// form the schema compares ids in.
func alnumUpperASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteByte(c - 32)
		case isUpperAlnum(c):
			b.WriteByte(c)
		}
	}
	return b.String()
}
