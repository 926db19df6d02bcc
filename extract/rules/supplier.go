package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Legal forms. Long or dotted forms match in any case; short ones must be
// written in their usual case ("AG", "Oy", "SpA") to avoid ordinary words.
var reLegalForm = newFirstByteRE(legalFormsAnyCase, legalFormsExactCase)

// legalFormsAnyCase are matched case-insensitively, legalFormsExactCase
// as written; each is a "|" list.
const (
	legalFormsAnyCase = `gmbh\s*&\s*co\.?\s*kgaa|gmbh\s*&\s*co\.?\s*kg|ag\s*&\s*co\.?\s*kgaa|ag\s*&\s*co\.?\s*kg|se\s*&\s*co\.?\s*kg|` +
		`ug\s*\(haftungsbeschr(?:ä|ae|a)nkt\)|ggmbh|gmbh|kgaa|` +
		`s\.\s?[àa]\s?r\.\s?l\.|s\.\s?a\.\s?r\.\s?l\.|sàrl|sarl|sasu|eurl|s\.\s?a\.\s?s\.|s\.\s?c\.\s?a\.\s?r\.\s?l\.|scarl|` +
		// Mexican forms: "S.A. DE C.V." was cut to "S.A.".
		`s\.?\s?a\.?\s?(?:p\.?\s?i\.?\s?|b\.?\s?)?de\s+c\.?\s?v\.?|s\.?\s?de\s+r\.?\s?l\.?(?:\s+de\s+c\.?\s?v\.?)?|` +
		`s\.\s?l\.\s?u\.|s\.\s?a\.\s?u\.|s\.\s?l\.|s\.\s?a\.|s\.\s?r\.\s?l\.|s\.\s?p\.\s?a\.|s\.\s?n\.\s?c\.|s\.\s?a\.\s?s\.|s\.\s?c\.\s?s\.|` +
		`b\.\s?v\.|n\.\s?v\.|v\.\s?o\.\s?f\.|c\.\s?v\.|bvba|sprl|` +
		`pty\.?\s*ltd\.?|co\.,?\s*ltd\.?|ltd\.?\s*(?:ş|s)t(?:i|İ|ı)\.?|ltd\.?|limited|l\.\s?l\.\s?c\.|llc|llp|l\.\s?l\.\s?p\.|inc\.|inc|incorporated|corp\.|corp|corporation|plc|` +
		`a\.\s?ş\.|oyj|aps|a/s|sp\.\s?z\s?o\.\s?o\.|sp\.\s?j\.|sp\.\s?k\.|s\.\s?r\.\s?o\.|a\.\s?s\.|d\.\s?o\.\s?o\.|kft\.|kft|zrt\.|ltda\.?|lda\.?|` +
		`e\.\s?k\.|e\.\s?kfm\.|e\.\s?v\.|ohg|gbr|mbh|sagl|s\.\s?a\.\s?p\.\s?a\.|s\.\s?a\.\s?l\.|&\s*co\.|` +
		// Malaysian and Singaporean forms: receipts there name the issuer
		// "ACME SDN BHD", "ACME S/B", "ACME BERHAD" (BHD is also a currency
		// code: legalNamesIn drops it before an amount).
		`sdn\.?\s*bhd\.?|s\s?/\s?b|berhad|bhd\.?|pte\.?\s*ltd\.?`
	legalFormsExactCase = `SB|AG|KG|OG|SE|SA|SL|SLU|AB|AS|ASA|Oy|BV|NV|SAS|SRL|Srl|SpA|SPA|SNC|Snc|UG|eG|KG|LP|PC|GbR|OHG|SCS|SCA|SC|Sas`
)

// Legal forms that are also common words or abbreviations: weaker evidence.
var weakForms = map[string]bool{"SB": true, "SA": true, "SL": true, "AS": true, "SE": true, "SC": true, "LP": true, "PC": true,
	"c.v.": true, "C.V.": true, "OG": true, "eG": true, "AB": true, "Sas": true}

var nameConnectors = map[string]bool{
	"&": true, "+": true, "and": true, "und": true, "et": true, "y": true, "e": true, "en": true, "de": true, "del": true,
	"della": true, "di": true, "da": true, "du": true, "des": true, "la": true, "le": true, "les": true, "van": true,
	"von": true, "der": true, "den": true, "het": true, "the": true, "of": true, "for": true, "für": true, "zu": true,
	"am": true, "an": true, "im": true, "auf": true, "sur": true, "las": true, "los": true, "el": true, "dei": true,
	"degli": true, "delle": true, "do": true, "dos": true, "das": true, "i": true, "a": true, "-": true, "–": true,
	"mit": true, "per": true, "pour": true, "para": true, "voor": true, "in": true, "d'": true, "l'": true, "'t": true,
}

// nameParticles may open a company name in lower case ("van Dijk B.V.").
var nameParticles = map[string]bool{"de": true, "van": true, "von": true, "der": true, "den": true, "ter": true,
	"ten": true, "di": true, "da": true, "del": true, "della": true, "dos": true, "das": true, "du": true, "des": true,
	"la": true, "le": true, "el": true}

// isNameStart reports whether a word may begin part of a company name.
func isNameWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if r == '(' || r == '"' || r == '\'' || r == '«' || r == '“' {
		_, sz := utf8.DecodeRuneInString(w)
		r, _ = utf8.DecodeRuneInString(w[sz:])
	}
	return unicode.IsUpper(r) || unicode.IsDigit(r) || r == '&' || r == '+' || unicode.IsLetter(r) && !unicode.IsLower(r)
}

var reLeadingNoise = anchoredRegexp(`^(?:tax\s*invoice|invoice|rechnung|facture|factura|factuur|fattura|credit\s*note|gutschrift|avoir|from|de\s+la\s+part\s+de|by|thank\s+you|thanks|copyright|©|\(c\)|\d{4}|all\s+rights\s+reserved|supplier|seller|vendor|lieferant|fournisseur|proveedor|leverancier|fornitore|emisor|verkaufer|bank|company|firma|societe|empresa|bedrijf|azienda|beneficiary|payee|account\s+name|kontoinhaber|titulaire|titular|beneficiario|begunstigde|rekeninghouder|intestatario)\b[\s:.,\-]*`)

// nameBefore cuts the company name that ends with the legal form at raw
// [fs, fe): the capitalised words before it in the same segment.
func nameBefore(raw string, fs, fe int) (string, int, bool) {
	return nameBeforeFrom(raw, segmentStart(raw, fs), fs, fe)
}

// segmentStart is where the segment that holds raw[fs] begins: after a
// column, a bullet, a label's colon or a wide gap.
func segmentStart(raw string, fs int) int {
	s := fs
	for s > 0 {
		if c := raw[s-1]; c > ' ' && c < 0x7f && !segmentMarks[c] {
			// Most of a name: printable ASCII that ends no segment,
			// whatever stands around it (a rune decoded and asked of
			// the switch below was most of the memo's look-up).
			s--
			continue
		}
		r, w := utf8.DecodeLastRuneInString(raw[:s])
		stop := false
		switch {
		case r == '\t' || r == '|' || r == '·' || r == '•' || r == '●' || r == '▪' || r == ';' || r == ':' || r == '/' ||
			r == '"' || r == '“' || r == '”' || r == '©' || r == '*' || r == '>' || r == '[' || r == ']' || r == '=':
			stop = true
		case r == ',':
			// "Acme, Inc." keeps the comma.
			if strings.TrimSpace(raw[s:fs]) != "" {
				stop = true
			}
		case isSpaceRune(r):
			if s-w > 0 {
				r2, _ := utf8.DecodeLastRuneInString(raw[:s-w])
				if isSpaceRune(r2) {
					stop = true
				}
			}
		case r == '-' || r == '–' || r == '—':
			if s-w > 0 && isSpaceRune(runeBefore(raw, s-w)) && isSpaceRune(runeAt(raw, s)) {
				stop = true
			}
		}
		if stop {
			break
		}
		s -= w
	}
	return s
}

// segmentMarks marks the printable ASCII bytes segmentStart must look at:
// those that end a segment, alone or beside a blank.
var segmentMarks = [utf8.RuneSelf]bool{'|': true, ';': true, ':': true, '/': true, '"': true, '*': true, '>': true,
	'[': true, ']': true, '=': true, ',': true, '-': true}

// nameBeforeFrom is nameBefore given the segment start s: its answer reads
// raw[s:fe] and whether raw is blank before s, nothing else (nameMemo).
func nameBeforeFrom(raw string, s, fs, fe int) (string, int, bool) {
	// The words live in buffers on the stack (strings.Fields allocated a
	// slice per call; most names have a handful of words).
	var wordsBuf, firstBuf [8]string
	words := appendFields(wordsBuf[:0], raw[s:fs], -1)
	keep := len(words)
	for k := len(words) - 1; k >= 0; k-- {
		w := words[k]
		if isNameWord(w) {
			keep = k
			continue
		}
		if nameConnectors[strings.ToLower(w)] && k > 0 && isNameWord(words[k-1]) {
			keep = k
			continue
		}
		if k == 0 && nameParticles[w] && k+1 < len(words) && isNameWord(words[k+1]) {
			keep = k
			continue
		}
		break
	}
	// Drop lower-case connectors left at the edge, except a family-name
	// particle that opens the segment ("de Vries Bouw B.V.").
	for keep < len(words) && nameConnectors[words[keep]] {
		if keep == 0 && nameParticles[words[0]] && len(words) > 1 && isNameWord(words[1]) {
			break
		}
		keep++
	}
	if keep >= len(words) {
		return "", 0, false
	}
	// Locate the kept words in raw.
	start := s
	for k := 0; k < keep; k++ {
		idx := strings.Index(raw[start:fs], words[k])
		if idx < 0 {
			return "", 0, false
		}
		start += idx + len(words[k])
	}
	idx := strings.Index(raw[start:fs], words[keep])
	if idx < 0 {
		return "", 0, false
	}
	start += idx
	// Strip leading labels, document titles and connectors.
	for range 4 {
		// The text alone is folded first: the index back to raw (a slice
		// of the text's length) is needed only where a label matched.
		_, me, ok := reLeadingNoise.find(foldString(raw[start:fe]))
		if !ok || me == 0 {
			w := appendFields(firstBuf[:0], raw[start:fs], 2)
			if len(w) > 1 && nameConnectors[w[0]] && !(nameParticles[w[0]] && isNameWord(w[1])) {
				start += strings.Index(raw[start:], w[0]) + len(w[0])
				start += len(raw[start:]) - len(strings.TrimLeft(raw[start:], " "))
				continue
			}
			break
		}
		rs, _ := fold(raw[start:fe]).rawSpan(me, me)
		if start+rs >= fs {
			return "", 0, false
		}
		start += rs
	}
	// A payment or block phrase inside the run of capitalised words
	// ("MAKE CHECKS PAYABLE TO ACME LTD") is not part of the name.
	for _, re := range []*lexicon{rePayTo} {
		f := foldString(raw[start:fs])
		ms := re.FindAllStringIndex(f, -1)
		if len(ms) == 0 {
			continue
		}
		m := ms[len(ms)-1]
		if strings.TrimSpace(strings.Trim(f[m[1]:], " :,.-")) == "" {
			return "", 0, false
		}
		rs, _ := fold(raw[start:fs]).rawSpan(m[1], m[1])
		start += rs
		start += len(raw[start:]) - len(strings.TrimLeft(raw[start:], " :,.-"))
	}
	if w := byPrefix(raw[start:fs]); len(w) >= 3 && strings.TrimSpace(raw[:start]) == "" {
		// Reason: "OWNED BY ACME S/B", its first word misread or not: the
		// company follows "BY".
		start += strings.Index(raw[start:], w[0]) + len(w[0])
		start += strings.Index(raw[start:], w[1]) + len(w[1])
		start += len(raw[start:]) - len(strings.TrimLeft(raw[start:], " :"))
	}
	name := strings.TrimSpace(raw[start:fe])
	name = strings.TrimLeft(name, "([\"'«“ ")
	if name == "" || len(name) > 120 {
		return "", 0, false
	}
	// Need a name besides the legal form.
	if strings.TrimSpace(raw[start:fs]) == "" {
		return "", 0, false
	}
	return name, start, true
}

// legalNamesIn lists the company names with a legal form in raw[s:e],
// given the legal-form matches of the whole line.
func legalNamesIn(raw string, s, e int, matches [][]int) []string {
	return legalNamesMemo(nil, raw, s, e, matches)
}

// legalNamesMemo is legalNamesIn reading names through memo (nil: none).
func legalNamesMemo(memo *nameMemo, raw string, s, e int, matches [][]int) []string {
	var out []string
	seg := raw[:e]
	var forms [][2]int
	for _, m := range matches {
		fs, fe := m[0], m[1]
		if fs < s || fe > e {
			continue
		}
		// Word boundaries.
		if b := runeBefore(seg, fs); unicode.IsLetter(b) || unicode.IsDigit(b) || b == '.' || b == '-' || b == '@' {
			continue
		}
		if a := runeAt(seg, fe); unicode.IsLetter(a) || unicode.IsDigit(a) || a == '-' || a == '@' || a == '\'' ||
			a == '.' && fe+1 < len(seg) && (isASCIILetter(seg[fe+1]) || isDigit(seg[fe+1])) {
			continue
		}
		form := seg[fs:fe]
		if isCurrencyForm(seg, fs, fe) {
			continue
		}
		if weakForms[form] {
			// A weak form must end its segment.
			rest := strings.TrimLeft(seg[fe:], " ")
			r0, _ := utf8.DecodeRuneInString(rest)
			if rest != "" && !strings.ContainsRune(",;|·•()-–", r0) && !strings.HasPrefix(seg[fe:], "  ") {
				continue
			}
		}
		// "& Co. KG": one form.
		if n := len(forms); n > 0 && strings.TrimSpace(seg[forms[n-1][1]:fs]) == "" {
			forms[n-1][1] = fe
			continue
		}
		forms = append(forms, [2]int{fs, fe})
	}
	for _, fm := range forms {
		if name, ok := memo.nameBefore(seg, fm[0], fm[1]); ok {
			out = append(out, name)
			continue
		}
		// OCR spacing split the name from its form ("Oceanic  Freight   Ltd"):
		// read across wide gaps when the line holds nothing else.
		if strings.TrimSpace(raw[fm[1]:]) == "" && !strings.ContainsAny(raw[:fm[0]], "\t|:@,;") {
			words := strings.Fields(raw[:fm[0]])
			ok := len(words) > 0 && len(words) <= 6
			for _, w := range words {
				if !isNameWord(w) && !nameConnectors[w] {
					ok = false
				}
			}
			if ok {
				t, _ := trimmedLine(raw[:fm[1]])
				out = append(out, t)
			}
		}
	}
	return out
}

// region of a cell: which block it belongs to.
type region int

const (
	regNone region = iota
	regCustomer
	regSupplier
	regBank
	regMeta
)

// blockLabel recognises a block label at the start of a folded cell and
// returns its kind and the folded length of the label.
func blockLabel(cf, rawCell string) (region, int) { return blockLabelIn(nil, 0, cf, rawCell) }

// blockLabelIn is blockLabel of a cell whose fold is the line's folded
// text from off on (ln nil: of a text alone); the labels are read from the
// line's matches (prefixEndAt).
func blockLabelIn(ln *line, off int, cf, rawCell string) (region, int) {
	lead := markLead(cf)
	f := cf[lead:]
	best, bestEnd := regNone, 0
	var at []lexFound
	if ln != nil {
		at = ln.matchesAt(off + lead)
	}
	for _, c := range &blockLabels {
		var end int
		if ln != nil {
			end = ln.prefixEndAt(c.re, off+lead, f, at)
		} else {
			end = c.re.prefixEnd(f)
		}
		if end > bestEnd {
			best, bestEnd = c.kind, end
		}
	}
	if best == regNone {
		return regNone, 0
	}
	if best == regMeta {
		return regMeta, lead + bestEnd
	}
	rest := f[bestEnd:]
	if reBlockFieldWord.MatchString(rest) {
		return regMeta, lead + bestEnd
	}
	restT := strings.TrimLeft(rest, " ")
	if restT != "" && !strings.HasPrefix(restT, ":") && !strings.HasPrefix(restT, "-") && rawCell != "" {
		// Text right after the label must start like a name ("Bill to Acme
		// Ltd"), not a sentence ("Facture à payer avant le ...").
		f := fold(rawCell)
		rs, _ := f.rawSpan(len(f.s)-len(restT), len(f.s)-len(restT))
		if r, _ := utf8.DecodeRuneInString(rawCell[rs:]); unicode.IsLower(r) {
			return regNone, 0
		}
	}
	lbl := strings.TrimSpace(f[:bestEnd])
	short := !strings.ContainsAny(lbl, " .") && bestEnd <= 9 && lbl != "messrs"
	switch {
	case restT == "" || strings.HasPrefix(restT, ":") || strings.HasPrefix(restT, "-") && best != regCustomer:
	case !short && strings.HasPrefix(rest, " "):
	default:
		return regNone, 0
	}
	return best, lead + bestEnd
}

// markLead is len(cf) - len(trimLeftMarks(cf, " *->#")): the length of
// the marks and bullets that open cf, read by a table: a rule of dashes
// asked strings.IndexByte of each of its bytes (a sixth of blockLabelIn).
func markLead(cf string) int {
	i := 0
	for i < len(cf) {
		if c := cf[i]; c < utf8.RuneSelf {
			if !leadMarks[c] {
				break
			}
			i++
			continue
		}
		if !strings.HasPrefix(cf[i:], "•") {
			break
		}
		i += len("•")
	}
	return i
}

// leadMarks marks the ASCII bytes markLead passes over.
var leadMarks = [utf8.RuneSelf]bool{' ': true, '*': true, '-': true, '>': true, '#': true}

// blockLabels are the labels blockLabelIn tries, in order; a package
// array of four pointers, which the literal in the loop built again on
// every cell asked.
var blockLabels = [...]struct {
	kind region
	re   *lexicon
}{{regCustomer, reCustomerBlock}, {regSupplier, reSupplierBlock}, {regBank, reBankBlock}, {regMeta, reAnyLabelAt}}

type blk struct {
	kind    region
	col     int
	content int
}

// regions assigns every cell of the document to the block it belongs to
// (customer, supplier, bank, other labels) by label and column.
func (d *document) regions() [][]region {
	out := make([][]region, len(d.lines))
	// Every line's regions are cut from one array (a slice per line was a
	// fortieth of v2's allocations).
	nc := 0
	for _, ln := range d.lines {
		nc += len(ln.cells)
	}
	all := make([]region, nc)
	var active []blk
	blankRun := 0
	for i, ln := range d.lines {
		out[i], all = all[:len(ln.cells):len(ln.cells)], all[len(ln.cells):]
		if ln.blank {
			blankRun++
			kept := active[:0]
			for _, b := range active {
				if b.content == 0 && blankRun < 2 {
					kept = append(kept, b)
				}
			}
			active = kept
			continue
		}
		blankRun = 0
		for k, c := range ln.cells {
			cf := ln.foldCell(c)
			if titleOnly(cf) {
				// Reason: a bare title ("TAX INVOICE") labels the document,
				// not the lines under it; the issuer's name often follows it.
				continue
			}
			kind, end := ln.cellLabel(k)
			if kind == regCustomer && d.bankContext(i) {
				// "Empfänger: ..." beside an IBAN is the payee, not the customer.
				kind = regBank
			}
			if kind != regNone {
				kept := active[:0]
				for _, b := range active {
					if b.col < c.col-4 || b.col > c.col+4 {
						kept = append(kept, b)
					}
				}
				active = kept
				nb := blk{kind: kind, col: c.col}
				if strings.TrimSpace(strings.Trim(cf[end:], " :")) != "" {
					nb.content++
				}
				active = append(active, nb)
				out[i][k] = kind
				continue
			}
			owner := -1
			for n, b := range active {
				if c.col >= b.col-4 && c.col <= b.col+24 && (owner < 0 || b.col > active[owner].col) {
					owner = n
				}
			}
			if owner >= 0 {
				out[i][k] = active[owner].kind
				active[owner].content++
			}
		}
		kept := active[:0]
		for _, b := range active {
			if b.content < 7 {
				kept = append(kept, b)
			}
		}
		active = kept
	}
	return out
}

var reRemittance = lexRE("remittance advice", "remittance slip", "remittance", "please detach", "detach and return",
	"return this portion", "return with your payment", "payment slip", "payment stub", "zahlschein", "überweisungsträger",
	"empfangsschein", "zahlteil", "talon de paiement", "talon à joindre", "coupon à joindre", "à détacher", "coupon réponse",
	"bulletin de versement", "justificante de pago", "resguardo", "acceptgiro", "overschrijvingsformulier", "bollettino",
	"cedola di pagamento", "ricevuta di pagamento", "✂")

var reHeaderNoise = lexPrefixRE("original", "copy", "duplicate", "kopie", "copie", "copia", "duplicado", "duplicaat",
	"duplikat", "page", "seite", "pagina", "página", "draft", "entwurf", "brouillon", "borrador", "concept", "bozza",
	"paid", "bezahlt", "payé", "pagado", "betaald", "pagato", "receipt", "quittung", "reçu", "recibo", "kwitantie", "ricevuta",
	"statement", "remittance", "reminder", "mahnung", "zahlungserinnerung", "relance", "recordatorio", "herinnering", "sollecito",
	"logo", "www", "http",
	// Till-receipt banners above or instead of the issuer's name.
	"cash sale", "cash sales", "cash bill", "cash receipt", "official receipt", "posted", "welcome", "tq for",
	"thank you", "terima kasih", "your order number", "order number", "simplified tax invoice", "simplified invoice",
	"formerly known as")

var reSalutation = lexRE("frau", "herr", "herrn", "mr", "mrs", "ms", "miss", "messrs", "madame", "monsieur", "mme", "sr", "sra",
	"dhr", "mevr", "sig", "sig.ra", "famille", "familie", "famiglia", "dear", "hello", "hi", "sehr geehrte", "sehr geehrter", "liebe", "hallo", "bonjour", "madame", "monsieur",
	"estimado", "estimada", "hola", "geachte", "beste", "gentile", "egregio", "caro", "cara", "kind regards", "regards", "thank you",
	"mit freundlichen", "cordialement", "saludos", "met vriendelijke", "cordiali saluti", "page", "seite")

var reAttention = lexRE("z. hd", "z.hd", "z. h.", "zu händen", "herrn", "frau", "zhd", "attn", "attention", "c/o", "à l'attention", "a l'attention",
	"t.a.v", "t.a.v.", "ter attentie van", "all'attenzione", "alla cortese attenzione", "a/a", "atención", "att.", "care of")

// nameQuality is higher for cleaner spellings: digits inside words and
// runs of spaces are typical OCR noise.
func nameQuality(s string) int {
	q := 0
	prev := rune(0)
	for _, r := range s {
		if unicode.IsDigit(r) && unicode.IsLetter(prev) || unicode.IsLetter(r) && unicode.IsDigit(prev) {
			q -= 2
		}
		if r == ' ' && prev == ' ' {
			q--
		}
		prev = r
	}
	return q
}

// normName is the comparison key of a company name.
func normName(s string) string { return normFolded(foldString(s)) }

// normFolded is normName of text already folded.
func normFolded(f string) string {
	// A name of letters and digits alone is f itself; the builder starts
	// at the first rune dropped, grown once. ASCII bytes are judged by a
	// table, not decoded and asked of unicode.IsLetter and IsDigit: the
	// buyer and supplier searches ask this of most heading lines.
	i := 0
	for i < len(f) {
		if c := f[i]; c < utf8.RuneSelf {
			if !asciiAlnum[c] {
				break
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(f[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += w
	}
	if i == len(f) {
		return f
	}
	var b strings.Builder
	b.Grow(len(f))
	b.WriteString(f[:i])
	for i < len(f) {
		if c := f[i]; c < utf8.RuneSelf {
			if asciiAlnum[c] {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(f[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
		i += w
	}
	return b.String()
}

// asciiAlnum marks the ASCII letters and digits.
var asciiAlnum = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
	}
	return t
}()

// addressedTo reports whether s ends with an honorific that marks the
// addressee. Reason: a Japanese or Korean invoice opens with its customer,
// "株式会社さくらデザイン 御中", and names its issuer at the foot.
func addressedTo(s string) bool {
	s = strings.TrimRight(s, " \t")
	for _, h := range addresseeHonorifics {
		if strings.HasSuffix(s, h) {
			return true
		}
	}
	return false
}

var addresseeHonorifics = []string{"御中", "様", "殿", "貴中", "귀하", "귀중"}

type supCand struct {
	name  string
	ev    string // verbatim evidence when name spans lines, else ""
	line  int    // the line name was read from
	score int    // best single occurrence
	count int
	order int
}

// looksLikeName accepts a short capitalised text without digits that is
// not a label.
func looksLikeName(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 || len(s) > 70 {
		return false
	}
	letters, digits := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	if letters < 2 || digits > 0 {
		return false
	}
	if strings.ContainsAny(s, "@:") || containsLowerASCII(s, "www.") || containsLowerASCII(s, "http") {
		return false
	}
	if fieldsOver(s, 7) {
		return false
	}
	for w := range strings.FieldsSeq(s) {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(r) && !nameConnectors[w] {
			return false
		}
	}
	if strings.HasSuffix(s, ",") || addressedTo(s) {
		return false
	}
	f := foldString(s)
	if reSalutation.MatchString(f) {
		return false
	}
	if reDocTitle.MatchString(f) || labelOnly(f) || startsWithLabel(f) {
		return false
	}
	if m := reCustomerBlock.FindStringIndex(f); m != nil && m[0] == 0 {
		return false
	}
	if m := reSupplierBlock.FindStringIndex(f); m != nil && m[0] == 0 {
		return false
	}
	if reBankWord().MatchString(s) {
		return false
	}
	return true
}

// cutName trims text after a label to the name: up to a comma, a bullet or
// a wide gap.
func cutName(s string) string {
	s = strings.TrimLeft(s, " :-–\t")
	for _, sep := range []string{"  ", "\t", ",", " | ", "|", " · ", "·", " • ", " - ", " – ", ";"} {
		if k := strings.Index(s, sep); k > 0 {
			s = s[:k]
		}
	}
	return strings.TrimSpace(s)
}

// findSupplier returns the issuing company. It scores every candidate name
// (legal names in the body, unlabelled supplier blocks, pay-to lines, a
// header line), folds a header brand into the company it abbreviates, and
// picks the best candidate that is not the customer.
func (d *document) findSupplier() *string {
	if f := d.supplierFact(d.regions()); f != nil {
		return &f.V
	}
	return nil
}

// supplierFact is findSupplier with the line the name was read from as
// evidence; regs is d.regions(), which ExtractV2 shares with other finders.
// amountLabelName reports whether a supplier name opens with a summary
// label of two words or more ("grand total", "total amount", "sub total").
// A one-word label opens real names ("TOTAL ENERGIES", "NET SOLUTIONS"),
// so it is left alone; a legal form does not make such a label a name,
// as "(GST INC" reads like "Inc.".
func amountLabelName(n string) bool {
	f := foldString(n)
	for _, lx := range v2Lexicons {
		if lx.kind == akIgnore || lx.kind == akPrior {
			continue
		}
		if e := lx.re.prefixEnd(f); e > 0 && strings.Contains(strings.TrimSpace(f[:e]), " ") {
			return true
		}
	}
	return false
}

func (d *document) supplierFact(regs [][]region) *fact[string] {
	s := &supplierScan{d: d, regs: regs, customers: map[string]int{}, cands: map[string]*supCand{}}
	s.scanLines()
	s.scanLetterhead()
	s.scanPartySections()
	s.scanNotIssuer()
	s.scanOwners()
	headerKey := s.scanHeader()
	s.settleOwnerNotes(headerKey)
	s.mergeHeaderBrand(headerKey)
	c := s.best()
	if c == nil || s.ownerConflict(c) {
		// Reason: trading name or owner, clerks differ: abstain.
		return nil
	}
	if s.nameAboveAddress(headerKey, c) {
		// Reason: the header names a shop and the company is printed only
		// below its address: brand or company, clerks differ: abstain.
		return nil
	}
	n := strings.TrimSpace(c.name)
	if d.garbledRepeat(n, c.line) {
		// Reason: the header spells the name twice, one letter apart: OCR
		// misread one of them; abstain.
		return nil
	}
	if garbledTradeWord(n) {
		// Reason: a trade word one misread letter off ("ENTERORISE"): the
		// name is misread; abstain rather than return it.
		return nil
	}
	if amountLabelName(n) {
		// Reason: "GRAND TOTAL (GST INC" cut from the summary of a slip
		// whose heading the scan lost is a label, not a name: abstain.
		return nil
	}
	v := n
	if c.ev != "" {
		return &fact[string]{V: v, Ev: c.ev}
	}
	ln := d.lines[c.line]
	if k := strings.Index(ln.raw, n); k >= 0 {
		if ev := evidence(ln, k, k+len(n)); strings.Contains(ev, n) {
			return &fact[string]{V: v, Ev: ev}
		}
	}
	return &fact[string]{V: v, Ev: n}
}

// supplierScan is the state findSupplier's steps share: the candidates
// found so far and how often each name was seen on the customer's side.
type supplierScan struct {
	d         *document
	regs      [][]region
	customers map[string]int
	notIssuer map[string]bool // former names, licensors: never the issuer
	owners    map[string]int  // owners named under a trading name, by line
	cands     map[string]*supCand
	names     nameMemo              // nameBefore's answers, by segment
	factsOf   map[string]*candFacts // what add asks of each spelling
	order     int
	line      int // the line being scanned, recorded with each name
}

// add records one occurrence of a candidate name. Occurrences of the same
// normalised name merge, so a name repeated across the document counts more.
func (s *supplierScan) add(name string, score int) {
	s.addEv(name, "", score)
}

// addEv is add with the evidence of a name read across lines ("" for a
// name on one line, whose evidence is that line).
func (s *supplierScan) addEv(name, ev string, score int) {
	nf := s.facts(name)
	key := nf.key
	if key == "" || nf.partyNote {
		// Reason: "OPERATED BY X" names the operator, not the issuer.
		return
	}
	c, ok := s.cands[key]
	if !ok {
		s.order++
		s.cands[key] = &supCand{name: name, ev: ev, line: s.line, score: score, count: 1, order: s.order}
		return
	}
	c.count++
	// Keep the cleanest spelling (OCR noise loses), then the best score.
	if q, cq := nf.quality, s.facts(c.name).quality; q > cq || q == cq && score > c.score {
		c.name = name
		c.ev = ev
		c.line = s.line
	}
	if score > c.score {
		c.score = score
	}
}

// supLine is what the scoring of one line's cells needs to know about the
// line's neighbourhood.
type supLine struct {
	i         int
	nonBlank  int   // position among the non-blank lines, 1-based
	remit     bool  // at or below a remittance slip heading
	hint      int   // bonus for a legal hint on the line or next to it
	payTo     []int // the "pay to" label on this line, if any
	prevPayTo bool  // the previous line is a bare "pay to" label
	attn      bool  // an attention line follows within two lines
}

// scanLines scores the names of every non-blank line. The per-line hints
// are computed once because each line also looks at its neighbours'.
func (s *supplierScan) scanLines() {
	d := s.d
	legalHint := make([]bool, len(d.lines))
	payTos := make([][]int, len(d.lines))
	// attn is asked of the two lines below each line: once a line, not
	// twice.
	attn := make([]bool, len(d.lines))
	for i, ln := range d.lines {
		attn[i] = ln.has(reAttention)
		if !ln.blank {
			legalHint[i] = ln.has(reLegalHint)
			payTos[i] = ln.index(rePayTo)
		}
	}
	var sl supLine
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		sl.i = i
		s.line = i
		sl.nonBlank++
		if !sl.remit && ln.has(reRemittance) {
			sl.remit = true
		}
		sl.hint = 0
		if legalHint[i] {
			sl.hint += 4
		} else if i > 0 && legalHint[i-1] || i+1 < len(d.lines) && legalHint[i+1] {
			sl.hint += 2
		}
		sl.payTo = payTos[i]
		sl.prevPayTo = false
		if p := d.prevNonBlank(i); p >= 0 {
			pf := d.lines[p].f.s
			if m := payTos[p]; m != nil && strings.Trim(pf[m[1]:], " :") == "" {
				sl.prevPayTo = true
			}
		}
		sl.attn = false
		for j := i + 1; j <= i+2 && j < len(d.lines); j++ {
			if attn[j] {
				sl.attn = true
			}
		}
		s.scanCells(&sl)
		s.scanPayTo(&sl)
	}
}

// scanCells scores the names in each cell of one line according to the
// block (region) the cell sits in.
func (s *supplierScan) scanCells(sl *supLine) {
	i := sl.i
	ln := s.d.lines[i]
	forms := legalFormsOf(ln.raw)
	for k, c := range ln.cells {
		reg := s.regs[i][k]
		if sl.remit {
			// A remittance slip is written from the customer's side:
			// its "From" and "To" are reversed.
			reg = regNone
		}
		cellRaw := ln.raw[c.start:c.end]
		names := legalNamesMemo(&s.names, ln.raw, c.start, c.end, forms)
		if reg == regCustomer {
			s.countCustomer(cellRaw, names)
			continue
		}
		for _, n := range names {
			score := s.legalNameScore(n, reg, sl)
			if c.start == ln.cells[0].start {
				// A name wrapped over lines ("POPULAR BOOK / CO. (M) SDN BHD").
				if jn, ev, ok := s.d.unwrapName(i, n); ok {
					s.addEv(jn, ev, score)
					continue
				}
			}
			s.add(n, score)
		}
		if len(names) > 0 {
			continue
		}
		if k == 0 {
			// A line that is only a legal form ends a name wrapped from
			// above ("NANDO'S CHICKENLAND MALAYSIA" / "SDN BHD").
			if t := strings.TrimSpace(cellRaw); len(forms) > 0 && legalFormOnly(t) {
				if jn, ev, ok := s.d.unwrapName(i, t); ok {
					s.addEv(jn, ev, s.legalNameScore(jn, reg, sl))
					continue
				}
			}
		}
		// A supplier block without a legal form.
		if reg == regSupplier {
			t := cellRaw
			if kind, end := blockLabel(foldString(t), t); kind == regSupplier {
				rs, _ := fold(t).rawSpan(end, end)
				t = t[rs:]
			}
			if n := cutName(t); looksLikeName(n) && s.d.firstOfBlock(s.regs, i, k) {
				s.add(n, 20)
			}
		}
	}
}

// countCustomer records the names of a customer block cell, so that the
// same names elsewhere are not taken for the supplier.
func (s *supplierScan) countCustomer(cellRaw string, names []string) {
	first := "" // normName(names[0]), once
	for k, n := range names {
		nn := normName(n)
		if k == 0 {
			first = nn
		}
		s.customers[nn]++
	}
	// The first line of a customer block names the customer.
	t := cellRaw
	cf := foldString(t)
	if kind, end := blockLabel(cf, t); kind == regCustomer {
		rs, _ := fold(t).rawSpan(end, end)
		t = t[rs:]
	}
	n := cutName(t)
	if len(names) > 0 && n == names[0] {
		// The cell's name is its first legal name ("Acme S.L." alone in
		// the cell), counted above: its key is first, whether or not it
		// looks like a name, so looksLikeName is not asked.
		return
	}
	if looksLikeName(n) {
		if nn := normName(n); len(names) == 0 || nn != first {
			s.customers[nn]++
		}
	}
}

// legalNameScore scores one legal name found outside a customer block:
// early lines, supplier blocks and pay-to lines count for it; weak legal
// forms, bank blocks, bank names and attention lines count against it.
func legalNameScore(n string, reg region, sl *supLine) int {
	return legalNameScoreWith(legalNameAdj(n), reg, sl)
}

// legalNameAdj is legalNameScore's part that reads only the name: a weak
// legal form or a bank word counts against it.
func legalNameAdj(n string) int {
	adj := 0
	if a, b, ok := reLegalForm.lastMatch(n); ok && weakForms[n[a:b]] {
		adj -= 3
	}
	if reBankWord().MatchString(n) {
		adj -= 14
	}
	return adj
}

// legalNameScoreWith is legalNameScore given legalNameAdj(n).
func legalNameScoreWith(adj int, reg region, sl *supLine) int {
	score := 10 + adj
	switch {
	case sl.nonBlank <= 4:
		score += 5
	case sl.nonBlank <= 10:
		score += 2
	}
	score += sl.hint
	switch reg {
	case regSupplier:
		score += 15
	case regBank:
		score -= 4
	}
	if sl.payTo != nil || sl.prevPayTo {
		score += 8
	}
	if sl.attn {
		score -= 6
	}
	return score
}

// scanPayTo takes the name after a "pay to" label (on this line or the
// line before), which names the supplier even without a legal form.
func (s *supplierScan) scanPayTo(sl *supLine) {
	ln := s.d.lines[sl.i]
	if sl.payTo != nil {
		rs, _ := ln.f.rawSpan(sl.payTo[1], sl.payTo[1])
		if n := cutName(ln.raw[rs:]); looksLikeName(n) && !reBankWord().MatchString(n) {
			s.add(n, 9)
		}
	} else if sl.prevPayTo {
		if n := cutName(ln.raw); looksLikeName(n) && !reBankWord().MatchString(n) {
			s.add(n, 9)
		}
	}
}

// scanHeader adds a header line that reads like a name (invoices often
// start with the issuer's letterhead) and returns its key, "" if none.
func (s *supplierScan) scanHeader() string {
	seen := 0
	for i, ln := range s.d.lines {
		if ln.blank || len(ln.cells) == 0 || seen == 0 && letterCount(ln.raw) == 0 {
			// Reason: a number alone above the letterhead ("3180303") is a
			// scan or till id, not the first line of the letterhead.
			continue
		}
		seen++
		if seen > 3 {
			break
		}
		if s.regs[i][0] != regNone {
			continue
		}
		t := cutName(ln.raw[ln.cells[0].start:ln.cells[0].end])
		if ft := foldString(t); reDocTitle.MatchString(ft) || reHeaderNoise.MatchString(ft) {
			continue
		}
		if looksLikeName(t) && letterCount(t) >= 3 {
			// Two letters alone ("OZ") are a logo, not a name.
			if s.d.brokenLogo(i, t) {
				// Reason: one word a line ("THE" / "ROTI" / "MAN"): a logo
				// read apart; no one line of it is the name, unless the
				// words end with a business word ("... BAKERY").
				if jn, ev, ok := s.d.joinLogo(i); ok {
					s.line = i
					s.addEv(jn, ev, 11)
					return s.facts(jn).key
				}
				break
			}
			score := 7
			if seen == 1 {
				score = 11 // the very first line of an invoice
				if j, shop := s.d.shopBelowPersonMemo(&s.names, i, t); j >= 0 {
					// Reason: a person's name (the cashier, the scan's owner)
					// above a shop name: the shop issued the receipt.
					i, t = j, shop
				}
			}
			s.line = i
			if jn, ev, ok := s.d.joinBelow(i, t); ok {
				// "HOME MASTER HARDWARE &" / "ELECTRICAL": one name.
				s.addEv(jn, ev, score)
				return s.facts(jn).key
			}
			s.add(t, score)
			return s.facts(t).key // normName(t), as add found it
		}
		if seen == 1 && strings.ContainsAny(t, "0123456789@") {
			// The first line is an address or contact line: no name here.
			break
		}
	}
	return ""
}

// mergeHeaderBrand folds a header brand ("BRIGHTLINE") that begins a
// company name found with its legal form elsewhere ("Brightline Consulting
// Ltd") into that company, so the two do not compete.
func (s *supplierScan) mergeHeaderBrand(headerKey string) {
	h, ok := s.cands[headerKey]
	if !ok || headerKey == "" {
		return
	}
	var full *supCand
	for key, c := range s.cands {
		if key != headerKey && strings.HasPrefix(key, headerKey) && s.customers[key] < c.count &&
			(full == nil || c.score > full.score || c.score == full.score && c.order < full.order) {
			full = c
		}
	}
	if full != nil {
		full.score += h.score
		delete(s.cands, headerKey)
	}
}

// best returns the highest-scoring candidate seen more often as a supplier
// than as the customer; ties go to the name found first.
func (s *supplierScan) best() *supCand {
	var best *supCand
	bestScore := 0
	for key, c := range s.cands {
		if s.customers[key] >= c.count || s.notIssuer[key] {
			continue
		}
		score := c.score + 2*min(c.count-1, 3) - 10*s.customers[key]
		if score <= 0 {
			continue
		}
		if best == nil || score > bestScore || score == bestScore && c.order < best.order {
			best, bestScore = c, score
		}
	}
	return best
}

// firstOfBlock reports whether cell k of line i is the first content of its
// supplier block (the label's own cell or the first cell below it).
func (d *document) firstOfBlock(regs [][]region, i, k int) bool {
	c := d.lines[i].cells[k]
	cf := d.lines[i].foldCell(c)
	if kind, end := d.lines[i].cellLabel(k); kind == regSupplier {
		return strings.TrimSpace(strings.Trim(cf[end:], " :")) != ""
	}
	p := d.prevNonBlank(i)
	if p < 0 {
		return false
	}
	sameShape := len(d.lines[p].cells) == len(d.lines[i].cells)
	for pk, pc := range d.lines[p].cells {
		if regs[p][pk] != regSupplier {
			continue
		}
		if (pc.col > c.col+4 || pc.col < c.col-4) && !(sameShape && pk == k) {
			continue
		}
		pf := d.lines[p].foldCell(pc)
		if kind, end := d.lines[p].cellLabel(pk); kind == regSupplier && strings.TrimSpace(strings.Trim(pf[end:], " :")) == "" {
			return true
		}
	}
	return false
}

func (d *document) prevNonBlank(i int) int {
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		if !d.lines[j].blank {
			return j
		}
	}
	return -1
}

// bankContext reports whether line i or a neighbour carries bank details.
func (d *document) bankContext(i int) bool {
	for j := max(0, i-1); j <= i+2 && j < len(d.lines); j++ {
		if d.lines[j].hasBankWord() {
			return true
		}
	}
	return false
}

// hasBankWord is reBankWord on the raw line, asked once per line: every
// customer-block label asks about the lines around it.
func (ln *line) hasBankWord() bool {
	if ln.bankWord == 0 {
		ln.bankWord = 2
		if reBankWord().MatchString(ln.raw) {
			ln.bankWord = 1
		}
	}
	return ln.bankWord == 1
}

// byPrefix returns the words of s when its second word is "BY" ("OWNED BY
// ACME"), else nil; it splits only when s holds " by " in some case.
func byPrefix(s string) []string {
	k := strings.Index(s, " BY ")
	if k < 0 {
		k = strings.Index(s, " by ")
	}
	if k < 0 {
		k = strings.Index(s, " By ")
	}
	if k < 0 {
		return nil
	}
	if w := strings.Fields(s); len(w) >= 2 && strings.EqualFold(w[1], "by") {
		return w
	}
	return nil
}
