package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A till receipt (and many small invoices) opens with the issuer's
// letterhead: the trading name, often with a legal form, then its
// registration number, tax id and address. This file reads that header.

// maxHeaderLines bounds the letterhead: the issuer's name comes within the
// first lines, before the document title, the date and the items.
const maxHeaderLines = 8

// reRegCue marks a registration or tax-registration line ("CO-REG:
// 860671-D", "(CO. NO. 113825-W)", "GST ID: 000...", "ROC 12345-X"), which
// sits right under (or beside) the issuer's name.
var reRegCue = lexRE("co reg", "co.reg", "co-reg", "co. reg", "co no", "co. no", "co.no", "company no", "company reg",
	"company registration", "reg no", "reg. no", "registration no", "business reg", "br no", "brn", "roc", "ssm",
	"gst id", "gst reg", "gst no", "sst id", "sst reg", "sst no", "tax id", "uen", "abn", "vat reg", "vat no", "npwp")

// reNotIssuer opens a phrase that names a company other than the trading
// name above it: a former name or a licensor is never the issuer.
var reNotIssuer = lexRE("formerly known as", "formerly", "f.k.a", "fka", "licensee of", "licensed by", "franchisee of")

// reAddressWord marks an address line that has no number.
var reAddressWord = lexRE("road", "rd", "street", "st", "avenue", "ave", "boulevard", "blvd", "lane", "highway",
	"jalan", "jln", "lorong", "lebuh", "lebuhraya", "persiaran", "taman", "tmn", "kawasan", "seksyen", "bandar",
	"lot", "floor", "flr", "level", "suite", "unit", "block", "blk", "building", "bangunan", "tower", "menara",
	"plaza", "straße", "strasse", "platz", "weg", "rue", "avenue", "chemin", "via", "piazza", "calle", "plaza",
	"straat", "laan", "p.o. box", "po box", "postfach")

// tradeWords are words that say a line names a business ("YONGFATT
// ENTERPRISE", "RESTORAN WAN SHENG", "SIN THYE & COMPANY") and, at the start
// of a line, that the line continues the name above it ("CO. (M) SDN BHD").
var tradeWords = map[string]bool{
	"enterprise": true, "enterprises": true, "trading": true, "holdings": true, "restaurant": true,
	"restaurants": true, "restoran": true, "stationery": true, "stationer": true, "hardware": true, "marketing": true,
	"services": true, "service": true, "industries": true, "industry": true, "company": true, "co": true,
	"corporation": true, "bakery": true, "bakeries": true, "confectionery": true, "foods": true, "resources": true,
	"ventures": true, "venture": true, "supply": true, "supplies": true, "electrical": true, "engineering": true,
	"machinery": true, "perniagaan": true, "kedai": true, "pasaraya": true, "farmasi": true, "pharmacy": true,
	"supermarket": true, "hypermarket": true, "minimarket": true, "mart": true, "store": true, "stores": true,
	"shop": true, "cafe": true, "café": true, "bistro": true, "kopitiam": true, "agency": true, "agencies": true,
	"distributor": true, "distributors": true, "motor": true, "motors": true, "auto": true, "workshop": true,
	"clinic": true, "klinik": true, "bookstore": true, "bookstores": true, "florist": true, "boutique": true,
	"station": true, "petrol": true, "emporium": true, "house": true, "&": true,
}

// continuationWords open a line that continues a wrapped company name.
var continuationWords = map[string]bool{
	"enterprise": true, "enterprises": true, "trading": true, "holdings": true, "restaurant": true,
	"restaurants": true, "stationery": true, "hardware": true, "marketing": true, "services": true, "industries": true,
	"company": true, "co": true, "corporation": true, "bakery": true, "bakeries": true, "confectionery": true,
	"foods": true, "resources": true, "ventures": true, "supplies": true, "electrical": true, "engineering": true,
	"&": true, "and": true, "(m)": true, "(malaysia)": true,
}

// wordKey is the lower-case word without surrounding punctuation.
func wordKey(w string) string {
	w = strings.ToLower(w)
	if w == "&" || w == "(m)" {
		return w
	}
	return strings.Trim(w, ".,;:'\"")
}

// hasRegCode reports a registration code: five or more digits, a hyphen and
// a check letter ("519537-X", "002643278-A"), or a code of letters and
// digits alone in parentheses ("(JM0517726)").
func hasRegCode(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '-' || i < 5 || i+1 >= len(s) || !isASCIILetter(s[i+1]) {
			continue
		}
		if i+2 < len(s) && isASCIILetter(s[i+2]) {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && isDigit(s[j]); j-- {
			n++
		}
		if n >= 5 {
			return true
		}
	}
	t := strings.TrimSpace(s)
	if k := strings.LastIndexByte(t, '('); k > 0 {
		t = t[k:] // "GARDENIA BAKERIES SDN BHD (139386 X)"
	}
	if len(t) > 6 && t[0] == '(' && t[len(t)-1] == ')' {
		in := t[1 : len(t)-1]
		letters, digits := 0, 0
		for i := 0; i < len(in); i++ {
			switch {
			case isDigit(in[i]):
				digits++
			case isASCIILetter(in[i]):
				letters++
			case in[i] != '-' && in[i] != ' ':
				return false
			}
		}
		return digits >= 5 && letters <= 3
	}
	return false
}

// regCue reports whether line i carries a registration number or label.
func (d *document) regCue(i int) bool {
	if i < 0 || i >= len(d.lines) || d.lines[i].blank {
		return false
	}
	ln := d.lines[i]
	return ln.has(reRegCue) || hasRegCode(ln.raw)
}

// headerEnd is the index of the first line after the letterhead: the
// document title, the first dated line, or the line after maxHeaderLines
// non-blank lines.
func (d *document) headerEnd() int {
	seen := 0
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		seen++
		t := strings.TrimLeft(ln.f.s, " *-#")
		if seen > maxHeaderLines || len(ln.dateHits()) > 0 || reDocTitle.MatchString(t) {
			return i
		}
	}
	return len(d.lines)
}

// headerNameLine reports whether a whole header line reads like part of a
// company name: capitalised words, no digits, no label, not a title.
func headerNameLine(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" || strings.ContainsAny(t, "0123456789@:") || fieldsOver(t, 7) || !nameCased(t) || addressedTo(t) {
		// Every test here is a condition of the answer, so the cheap word
		// tests go before the folding and the lexicons.
		return false
	}
	ft := foldString(t)
	if reDocTitle.MatchString(ft) || reHeaderNoise.MatchString(ft) || reNotIssuer.MatchString(ft) || startsWithLabel(ft) {
		return false
	}
	legal := hasLegalForm(t)
	if reSalutation.MatchString(ft) && !legal {
		// "MR D.I.Y. (M) SDN BHD" is a company, "MR TAN" a person.
		return false
	}
	if !legal && (strings.Contains(t, ",") || reAddressWord.MatchString(ft)) {
		// "King Fahd Road, Riyadh": an address line without numbers.
		return false
	}
	return true
}

// nameCased reports whether t, a header line, is written like a name: no
// word opens in lower case but a connector ("&", "and", "de"), and it
// holds at least two letters.
func nameCased(t string) bool {
	for w := range strings.FieldsSeq(t) {
		r, _ := utf8.DecodeRuneInString(strings.TrimLeft(w, "(\"'"))
		if unicode.IsLower(r) && !nameConnectors[w] {
			return false
		}
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2
}

// parenDepth is the count of "(" less the count of ")".
func parenDepth(s string) int {
	return strings.Count(s, "(") - strings.Count(s, ")")
}

// continuesAbove reports whether name, which opens its line, is the end of
// a name wrapped from the line above (prev): the line holds only the legal
// form, opens with a word that cannot start a name ("CO. (M) SDN BHD",
// "ENTERPRISE (SETIA"), closes a parenthesis opened above, or prev ends
// with "&".
func continuesAbove(prev, name string) bool {
	if !headerNameLine(prev) {
		return false
	}
	p := strings.TrimSpace(prev)
	if strings.HasSuffix(p, "&") || strings.HasSuffix(p, ",") || parenDepth(p) > 0 {
		return true
	}
	if parenDepth(name) < 0 || strings.HasPrefix(name, "(") && !hasRegCode(name) {
		// "ALAM) SDN BHD", "(SEMENYIH) SDN BHD": the rest of a name above.
		return true
	}
	w := strings.Fields(name)
	if len(w) == 0 {
		return false
	}
	if continuationWords[wordKey(w[0])] {
		return true
	}
	// Only the legal form on this line ("SDN. BHD.").
	return legalFormOnly(name)
}

// legalFormOnly reports whether s is nothing but a legal form ("SDN.
// BHD.", "GmbH & Co. KG").
func legalFormOnly(s string) bool {
	s = strings.TrimSpace(s)
	// Only the first match can open the text (matches are never empty):
	// listing them all was a slice and spans per cell asked.
	a, b, ok := reLegalForm.find(s, 0)
	return ok && a == 0 && strings.Trim(s[b:], " .,") == ""
}

// unwrapName joins a name that opens line i with the lines above it that
// it continues ("AIK HUAT HARDWARE / ENTERPRISE (SETIA / ALAM) SDN BHD").
// It returns the joined name and its evidence, the verbatim text from the
// first line to the end of the name; ok is false when nothing was joined.
func (d *document) unwrapName(i int, name string) (string, string, bool) {
	ln := d.lines[i]
	k := strings.Index(ln.raw, name)
	if k < 0 {
		return "", "", false
	}
	lead := strings.TrimSpace(ln.raw[:k])
	if lead != "" && lead != "(" {
		return "", "", false
	}
	end := ln.off + k + len(name)
	cur := strings.TrimSpace(ln.raw[:k+len(name)])
	first := i
	for range 2 {
		p := first - 1
		if p < 0 || d.lines[p].blank || d.lines[p].off+len(d.lines[p].raw)+1 != d.lines[first].off {
			break
		}
		prev := strings.TrimSpace(d.lines[p].raw)
		if !continuesAbove(prev, cur) {
			break
		}
		cur = prev + " " + cur
		first = p
	}
	if first == i {
		return "", "", false
	}
	fl := d.lines[first]
	start := fl.off + len(fl.raw) - len(strings.TrimLeft(fl.raw, " \t"))
	if start < 0 || end > len(d.text) || start >= end {
		return "", "", false
	}
	ev := d.text[start:end]
	joined := strings.Join(strings.Fields(ev), " ")
	if len(joined) > 120 {
		return "", "", false
	}
	return joined, ev, true
}

// scanLetterhead adds the issuer named in the letterhead: a name-like line
// (or a name wrapped over lines) in the first lines, directly followed by a
// registration line or carrying the registration number itself. That pair
// is the strongest sign of the issuer a receipt gives.
func (s *supplierScan) scanLetterhead() {
	d := s.d
	end := d.headerEnd()
	for i := 0; i < end; i++ {
		ln := d.lines[i]
		if ln.blank {
			continue
		}
		if isAddressLine(ln.raw) {
			// The name heads the letterhead: a line under the address
			// ("United Kingdom" above "VAT No. ...") is none.
			break
		}
		if len(ln.cells) != 1 || s.regs[i][0] == regCustomer || s.regs[i][0] == regBank {
			continue
		}
		next := i + 1
		for next < len(d.lines) && d.lines[next].blank && next < i+2 {
			next++
		}
		next = d.pastHeaderNote(next)
		t := strings.TrimSpace(ln.raw)
		name := t
		if k := strings.LastIndexByte(t, '('); k > 0 && hasRegCode(t[k:]) {
			// "99 SPEED MART S/B (519537-X)": the name before its number.
			name = strings.TrimSpace(t[:k])
		} else if !d.regCue(next) || next < len(d.lines) && hasLegalForm(d.lines[next].raw) {
			// The registration line must be the name's own: a company
			// with its number below ("MIZU MENTAI SDN. BHD. (1248446-V)")
			// owns that number, not the brand or branch above it.
			continue
		}
		if k := misreadOwnerMark(name); k > 0 {
			// "OWNED BY ACME S/B" under a trading name: the owner, which
			// scanOwners weighs against the name above.
			name = strings.TrimLeft(name[k:], " :")
		}
		if reRegCue.MatchString(foldString(name)) || !headerNameLine(name) {
			continue
		}
		s.line = i
		if n, ev, ok := d.unwrapName(i, name); ok {
			s.addEv(n, ev, letterheadScore)
			continue
		}
		if legalFormOnly(name) {
			continue // a legal form alone is no name
		}
		s.addEv(name, "", letterheadScore)
	}
}

// letterheadScore outweighs a legal name found elsewhere (10 to about 20)
// and a bare header line (7 to 11), not a labelled supplier block (25+).
const letterheadScore = 24

// scanNotIssuer records the names that a "formerly known as" or "licensee
// of" phrase introduces, on the rest of its line or, when the phrase ends
// the line, on the next line: a former name or a licensor is not the issuer.
func (s *supplierScan) scanNotIssuer() {
	d := s.d
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		m := ln.index(reNotIssuer)
		if m == nil {
			continue
		}
		rs, _ := ln.f.rawSpan(m[1], m[1])
		at, from, rest := i, rs, strings.TrimSpace(ln.raw[rs:])
		if strings.Trim(rest, " :-") == "" {
			if at = d.nextNonBlank(i, 1); at < 0 {
				continue
			}
			from, rest = 0, strings.TrimSpace(d.lines[at].raw)
		}
		if s.notIssuer == nil {
			s.notIssuer = map[string]bool{}
		}
		al := d.lines[at]
		// Only the names after the phrase: "ACME SB (123456-X) FKA OLD SB"
		// keeps ACME.
		for _, n := range legalNamesIn(al.raw, from, len(al.raw), reLegalForm.FindAllStringIndex(al.raw, -1)) {
			s.notIssuer[normName(n)] = true
		}
		if n := cutName(rest); n != "" {
			s.notIssuer[normName(n)] = true
		}
	}
}

// isAddressLine reports a line of letters and digits without a
// registration code: a street, a postcode with its town. Numbers alone
// (a till or scan id) are no address.
func isAddressLine(raw string) bool {
	if hasRegCode(raw) {
		return false
	}
	letters, digits := 0, 0
	for _, r := range raw {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	return letters >= 3 && digits > 0
}

// hasLegalForm reports whether s holds a company name with its legal form.
func hasLegalForm(s string) bool { return hasLegalFormMemo(nil, s) }

// hasLegalFormMemo is hasLegalForm reading names through memo (nil: none).
func hasLegalFormMemo(memo *nameMemo, s string) bool {
	// Reason: no name without a form at a word start (formAtWordStart).
	return formAtWordStart(s) && len(legalNamesMemo(memo, s, 0, len(s), reLegalForm.FindAllStringIndex(s, -1))) > 0
}

// joinBelow joins a header name on line i that ends with "&" or "AND"
// with the name-like line right under it ("HOME MASTER HARDWARE &" /
// "ELECTRICAL"); it returns the joined name and its verbatim evidence.
func (d *document) joinBelow(i int, name string) (string, string, bool) {
	t := strings.TrimSpace(name)
	if !strings.HasSuffix(t, "&") && !strings.HasSuffix(strings.ToUpper(t), " AND") {
		return "", "", false
	}
	ln := d.lines[i]
	k := strings.Index(ln.raw, t)
	j := i + 1
	if k < 0 || j >= len(d.lines) || d.lines[j].blank || ln.off+len(ln.raw)+1 != d.lines[j].off {
		return "", "", false
	}
	next := strings.TrimSpace(d.lines[j].raw)
	if len(d.lines[j].cells) != 1 || !headerNameLine(next) {
		return "", "", false
	}
	start := ln.off + k
	end := d.lines[j].off + strings.Index(d.lines[j].raw, next) + len(next)
	if end > len(d.text) || start >= end {
		return "", "", false
	}
	ev := d.text[start:end]
	return strings.Join(strings.Fields(ev), " "), ev, true
}

// bareTitles are document titles as a whole cell, folded (an OCR "l" read
// as "i": "simpiified"), one space between words.
var bareTitles = map[string]bool{
	"invoice": true, "tax invoice": true, "vat invoice": true, "saies invoice": true, "commerciai invoice": true,
	"proforma invoice": true, "simpiified tax invoice": true, "simpiified invoice": true, "fuii tax invoice": true,
	"credit note": true, "rechnung": true, "facture": true, "factura": true, "factuur": true, "fattura": true,
	"faktura": true, "gutschrift": true, "avoir": true,
}

// titleOnly reports whether the folded cell cf is nothing but a document
// title, in any decoration ("-INVOICE-", "* TAX INVOICE *").
func titleOnly(cf string) bool {
	t := trimTitleMarks(cf)
	if len(t) < 5 || len(t) > 30 || !titleFirst[t[0]] {
		// Reason for titleFirst: regions asks this of every cell, and the
		// map lookup cost more than the answer; collapsing spaces keeps
		// the first byte (a space is a title mark, trimmed).
		return false
	}
	if bareTitles[t] {
		return true
	}
	// Collapse spaces ("TAX   INVOICE") only when there are runs of them:
	// regions asks this of every cell.
	return strings.Contains(t, "  ") && bareTitles[strings.Join(strings.Fields(t), " ")]
}

// titleFirst marks the first bytes of bareTitles' keys.
var titleFirst = func() (t [256]bool) {
	for k := range bareTitles {
		t[k[0]] = true
	}
	return t
}()

// hasTradeWord reports whether a word of s says it names a business.
func hasTradeWord(s string) bool {
	for w := range strings.FieldsSeq(s) {
		if tradeWords[wordKey(w)] {
			return true
		}
	}
	return false
}

// shopBelowPerson returns the next line and its name when the first line,
// name, has no business word or legal form and the line right under it is
// a name with a business word ("INDAH GIFT & HOME DECO"); -1 otherwise.
func (d *document) shopBelowPerson(i int, name string) (int, string) {
	return d.shopBelowPersonMemo(nil, i, name)
}

// shopBelowPersonMemo is shopBelowPerson reading the first line's legal
// names through memo (nil: none): the supplier scan has read that line's
// name with its form already, and cut it from the same segment.
func (d *document) shopBelowPersonMemo(memo *nameMemo, i int, name string) (int, string) {
	if hasTradeWord(name) || hasLegalFormMemo(memo, name) {
		return -1, ""
	}
	j := d.nextNonBlank(i, 0)
	if j < 0 || len(d.lines[j].cells) != 1 {
		return -1, ""
	}
	next := strings.TrimSpace(d.lines[j].raw)
	if !headerNameLine(next) || !looksLikeName(next) || !hasTradeWord(next) || hasLegalForm(next) ||
		tradeWords[wordKey(strings.Fields(next)[0])] {
		// A line that opens with a business word ("BISTRO & CAFE")
		// continues the name above it.
		return -1, ""
	}
	return j, next
}

// nameAboveAddress reports whether the header candidate (headerKey) heads
// the letterhead above an address line while best, a different name, was
// read below that address but still within the letterhead: a shop name and
// the company printed under its address compete.
func (s *supplierScan) nameAboveAddress(headerKey string, best *supCand) bool {
	h, ok := s.cands[headerKey]
	if !ok || headerKey == "" || h == best || normName(best.name) == headerKey {
		return false
	}
	d := s.d
	if best.line >= d.headerEnd() {
		// A company below the title, the date or the items (a footer)
		// signs the document: no competition.
		return false
	}
	for i := h.line + 1; i < best.line; i++ {
		if !d.lines[i].blank && isAddressLine(d.lines[i].raw) {
			return true
		}
	}
	return false
}

// brokenLogo reports whether name, on line i, is a single word and the
// next line is a single name-like word too: a logo OCR read word by word.
func (d *document) brokenLogo(i int, name string) bool {
	if fieldCount(name) != 1 {
		return false
	}
	j := d.nextNonBlank(i, 0)
	if j < 0 || len(d.lines[j].cells) != 1 {
		return false
	}
	next := strings.TrimSpace(d.lines[j].raw)
	return fieldCount(next) == 1 && headerNameLine(next)
}

// joinLogo joins a logo read one word a line from line i ("THE" / "ROTI"
// / "MAN" / "BAKERY  000965911.P") when its last word is a business word;
// it returns the name and its verbatim evidence.
func (d *document) joinLogo(i int) (string, string, bool) {
	var words []string
	start, end := -1, -1
	for j := i; j < len(d.lines) && len(words) < 5; j++ {
		ln := d.lines[j]
		if ln.blank || len(ln.cells) == 0 {
			break
		}
		if j > i && d.lines[j-1].off+len(d.lines[j-1].raw)+1 != ln.off {
			break
		}
		c := ln.cells[0]
		w := strings.TrimSpace(ln.raw[c.start:c.end])
		if strings.ContainsRune(w, ' ') || !headerNameLine(w) {
			break
		}
		if start < 0 {
			start = ln.off + c.start + strings.Index(ln.raw[c.start:c.end], w)
		}
		end = ln.off + c.start + strings.Index(ln.raw[c.start:c.end], w) + len(w)
		words = append(words, w)
		if len(ln.cells) > 1 {
			break // a code beside the last word ends the logo
		}
	}
	if len(words) < 3 || !tradeWords[wordKey(words[len(words)-1])] || start < 0 || end > len(d.text) {
		return "", "", false
	}
	return strings.Join(words, " "), d.text[start:end], true
}
