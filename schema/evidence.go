package schema

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// How invoice-v2 decides that a fact's evidence holds the fact's value. The
// evidence is already known to be an exact substring of the source; this
// check stops a model from citing a true excerpt that says something else
// ("Total: 1.234,56" as evidence of a net of 1000.00). Each rule accepts the
// ways invoices commonly write a value and nothing looser:
//
//   - Names and numbers as written (supplier_name, buyer_name,
//     invoice_number, po_number): the evidence contains the value, compared
//     case-insensitively with runs of white space folded to one space.
//   - Ids (supplier_vat_id, supplier_iban): the evidence's letters and digits,
//     upper-cased, contain the value, so "DE89 3704 0044 0532 0130 00" backs
//     DE89370400440532013000 and "CHE-123.456.789 MWST" backs
//     CHE123456789MWST. A VAT id may be cited without its two-letter
//     country prefix, because many countries print the national number
//     alone ("P.IVA 01234567890" backs IT01234567890) and the compact form
//     the schema asks for carries the prefix.
//   - Amounts: the evidence contains the magnitude written with the
//     currency's exponent (the sign is not required: credit notes write
//     -1.234,56, 1.234,56- or (1,234.56)), a decimal comma or point, and no
//     grouping or grouping by thousands with . , ' ’ or a space (plain,
//     no-break or narrow). A whole amount may also be written without
//     decimals or with ",-". So 123456 EUR is backed by 1234,56, 1.234,56,
//     1234.56, 1,234.56, 1 234,56 or 1'234.56, and 100000 EUR also by
//     1.000,- or 1000. The number must stand alone: 234,56 inside 1.234,56
//     does not count. Indian lakh grouping with commas and a decimal point
//     counts too: 11960000 INR is also backed by 1,19,600.00 or 1,19,600.
//   - Dates: the evidence holds the date as three adjacent parts in the
//     order year-month-day, day-month-year or month-day-year, the month as a
//     number or an English, German, French, Spanish, Italian or Dutch month
//     name or abbreviation, the year with four digits (two in the last
//     position), or as one YYYYMMDD number. Separators and ordinals do not
//     matter, so 2026-03-01, 01.03.2026, 1.3.26, 03/01/2026, 1 March 2026,
//     March 1st, 2026 and 1. März 2026 all back 2026-03-01. Day and month
//     are not told apart when both are numbers: 01/03/2026 backs both
//     2026-03-01 and 2026-01-03, as a reader who does not know the locale
//     would read it.
//   - Currency: the evidence contains the ISO code (any case) or a symbol or
//     name of the currency (€ or Euro for EUR, $ for any dollar, £ for GBP),
//     or it names a place of exactly one country whose currency it is
//     ("43000 KAJANG, SELANGOR" backs MYR; place.go lists the places). A
//     receipt that prints no currency can cite where it was issued; a quote
//     that names places of two countries, or a place beside another
//     currency's capital code or sign, backs neither's currency.
//
// A fact in corrected (a person's correction, ValidateCorrection) is
// exempt: its evidence is null and nothing is checked.
func checkFactEvidenceValues(d *InvoiceV2, corrected map[string]bool) *ValidationError {
	exp := 2
	if d.Currency != nil {
		exp, _ = CurrencyExponent(*d.Currency)
	}
	ev := &d.Evidence
	facts := []struct {
		name     string
		text     *string
		amount   *int64
		evidence *string
		holds    func(evidence string) bool
	}{
		{name: "supplier_name", text: d.SupplierName, evidence: ev.SupplierName},
		{name: "supplier_vat_id", text: d.SupplierVATID, evidence: ev.SupplierVATID},
		{name: "supplier_iban", text: d.SupplierIBAN, evidence: ev.SupplierIBAN},
		{name: "buyer_name", text: d.BuyerName, evidence: ev.BuyerName},
		{name: "invoice_number", text: d.InvoiceNumber, evidence: ev.InvoiceNumber},
		{name: "issue_date", text: d.IssueDate, evidence: ev.IssueDate},
		{name: "due_date", text: d.DueDate, evidence: ev.DueDate},
		{name: "po_number", text: d.PONumber, evidence: ev.PONumber},
		{name: "currency", text: d.Currency, evidence: ev.Currency},
		{name: "net_minor", amount: d.NetMinor, evidence: ev.NetMinor},
		{name: "tax_minor", amount: d.TaxMinor, evidence: ev.TaxMinor},
		{name: "total_minor", amount: d.TotalMinor, evidence: ev.TotalMinor},
		{name: "amount_due_minor", amount: d.AmountDueMinor, evidence: ev.AmountDueMinor},
	}
	for _, f := range facts {
		// Joined only for an error: most documents have none.
		path := func() string { return "evidence." + f.name }
		if corrected[f.name] {
			continue
		}
		stated := f.text != nil || f.amount != nil
		switch {
		case !stated && f.evidence == nil:
			continue
		case !stated:
			return verr(CategoryEvidence, path(), "evidence for a null fact; use null")
		case f.evidence == nil:
			return verr(CategoryEvidence, path(), "missing for a stated fact; quote the excerpt %s was read from", f.name)
		}
		e := *f.evidence
		var ok bool
		switch f.name {
		case "supplier_name", "buyer_name", "invoice_number", "po_number":
			ok = foldedContains(e, *f.text)
		case "supplier_vat_id":
			ok = vatIDIn(e, *f.text)
		case "supplier_iban":
			ok = alnumContains(e, *f.text, 0, 0)
		case "issue_date", "due_date":
			ok = dateIn(e, *f.text)
		case "currency":
			ok = currencyIn(e, *f.text)
		default:
			ok = amountIn(e, *f.amount, exp)
		}
		if !ok {
			ok = xmlLeafHolds(f.name, e, f.text, f.amount, exp)
		}
		if !ok {
			return verr(CategoryEvidence, path(), "does not hold the value of %s; quote the excerpt that states it", f.name)
		}
	}
	return nil
}

// foldText lower-cases s and folds every run of white space to one space,
// so a name broken over two lines in the source still matches.
func foldText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// foldedContains reports whether foldText(e) contains foldText(v), folding
// into buffers on the stack: a check makes no garbage for names and
// numbers of printable ASCII.
func foldedContains(e, v string) bool {
	var eb, vb [maxEvidenceBytes]byte
	return bytes.Contains(appendFolded(eb[:0], e), appendFolded(vb[:0], v))
}

// appendFolded appends foldText(s) to dst: strings.ToLower's runes
// (unicode.ToLower of each, an invalid byte becoming U+FFFD as strings.Map
// makes it), split where strings.Fields splits them (unicode.IsSpace) and
// joined by one space, without the three intermediate strings. ASCII, all
// but a few bytes of most quotes, takes a byte test.
func appendFolded(dst []byte, s string) []byte {
	start := len(dst)
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
				space = true
				continue
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			}
			if space && len(dst) > start {
				dst = append(dst, ' ')
			}
			space = false
			dst = append(dst, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		r = unicode.ToLower(r)
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && len(dst) > start {
			dst = append(dst, ' ')
		}
		space = false
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// alnumContains reports whether the letters and digits of e, upper-cased,
// contain those of v, dropping v's first skip of them; false when fewer than
// minRest remain. It folds into buffers on the stack: an IBAN or VAT id
// check makes no garbage (the strings it once built were a third of the
// evidence checks' allocations).
func alnumContains(e, v string, skip, minRest int) bool {
	var eb, vb [maxEvidenceBytes]byte
	id := appendAlnumUpper(vb[:0], v)
	id = id[min(skip, len(id)):]
	return len(id) >= minRest && bytes.Contains(appendAlnumUpper(eb[:0], e), id)
}

// appendAlnumUpper appends the letters and digits of s (unicode.IsLetter,
// unicode.IsDigit; an invalid byte is U+FFFD, neither), each
// unicode.ToUpper'd; ASCII takes a byte test.
func appendAlnumUpper(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z':
				dst = append(dst, c-('a'-'A'))
			case 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
				dst = append(dst, c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			dst = utf8.AppendRune(dst, unicode.ToUpper(r))
		}
	}
	return dst
}

// groupSeps are the thousands separators invoices use; "" is no grouping.
var groupSeps = []string{"", ".", ",", " ", "\u00a0", "\u202f", "\u2009", "'", "\u2019"}

// amountIn reports whether s writes the magnitude of minor, in minor units of
// a currency with exponent exp, as a number standing on its own.
func amountIn(s string, minor int64, exp int) bool {
	mag := uint64(minor)
	if minor < 0 {
		mag = -mag
	}
	digits := strconv.FormatUint(mag, 10)
	if len(digits) <= exp {
		digits = strings.Repeat("0", exp-len(digits)+1) + digits
	}
	intPart, frac := digits[:len(digits)-exp], digits[len(digits)-exp:]
	whole := strings.Count(frac, "0") == len(frac)
	// Every spelling tried below holds the integer part's last three
	// digits together (grouping only separates groups of three from the
	// right), so a quote without them holds none of the spellings.
	if !strings.Contains(s, intPart[max(0, len(intPart)-3):]) {
		return false
	}
	for _, g := range groupSeps {
		// With three digits or fewer, grouping changes nothing, and the
		// spellings were tried with g == ""; a separator the quote lacks
		// cannot be in a spelling the quote holds.
		if g != "" && (len(intPart) <= 3 || !strings.Contains(s, g)) {
			continue
		}
		grouped := group(intPart, g)
		if exp == 0 || whole {
			if standsAlone(s, grouped) {
				return true
			}
		}
		if exp == 0 {
			continue
		}
		for _, d := range []string{",", "."} {
			if d == g || strings.IndexByte(s, d[0]) < 0 {
				continue
			}
			if standsAlone(s, grouped+d+frac) {
				return true
			}
			if whole && (standsAlone(s, grouped+d+"-") || standsAlone(s, grouped+d+"\u2013")) {
				return true
			}
		}
	}
	// Indian lakh grouping: the last three digits, then pairs, with commas
	// and a decimal point. From six integer digits on it is a spelling of
	// its own (1,19,600.00); below, it is thousands grouping.
	if len(intPart) > 5 && strings.IndexByte(s, ',') >= 0 {
		grouped := lakhGroup(intPart)
		if (exp == 0 || whole) && standsAlone(s, grouped) {
			return true
		}
		if exp > 0 && strings.IndexByte(s, '.') >= 0 && standsAlone(s, grouped+"."+frac) {
			return true
		}
	}
	return false
}

// lakhGroup writes digits in Indian grouping: a comma before the last
// three digits and between pairs before them (1,23,45,678).
func lakhGroup(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	head := digits[:len(digits)-3]
	var b strings.Builder
	if len(head)%2 == 1 {
		b.WriteString(head[:1])
		head = head[1:]
	}
	for i := 0; i < len(head); i += 2 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(head[i : i+2])
	}
	b.WriteByte(',')
	b.WriteString(digits[len(digits)-3:])
	return b.String()
}

// group inserts sep between groups of three digits from the right.
func group(digits, sep string) string {
	if sep == "" || len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// standsAlone reports whether num occurs in s not as part of a longer
// number: neither side touches a digit, directly or across one separator
// (so 234,56 in 1.234,56 and 1.234,5 in 1.234,56 do not count).
func standsAlone(s, num string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], num)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(num)
		if !numberBefore(s[:i]) && !numberAfter(s[j:]) {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		from = i + size
	}
}

func isNumberSep(r rune) bool {
	return r == '.' || r == ',' || r == '\'' || r == '\u2019' || r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009'
}

func numberBefore(s string) bool {
	r, size := utf8.DecodeLastRuneInString(s)
	if size == 0 {
		return false
	}
	if unicode.IsDigit(r) {
		return true
	}
	if isNumberSep(r) {
		r2, _ := utf8.DecodeLastRuneInString(s[:len(s)-size])
		return unicode.IsDigit(r2)
	}
	return false
}

func numberAfter(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return false
	}
	if unicode.IsDigit(r) {
		return true
	}
	if isNumberSep(r) {
		r2, _ := utf8.DecodeRuneInString(s[size:])
		return unicode.IsDigit(r2)
	}
	return false
}

// dateFillers are words that sit between the parts of a written date and
// are skipped: English and French ordinals, "of", "de", "der".
var dateFillers = []string{"st", "nd", "rd", "th", "er", "of", "de", "der", "del"}

// dateIn reports whether s writes the YYYY-MM-DD date iso (already checked
// by isDate) in one of the forms the package comment on
// checkFactEvidenceValues lists.
func dateIn(s, iso string) bool {
	t, err := time.Parse(time.DateOnly, iso)
	if err != nil {
		return false
	}
	year, month, day := t.Year(), int(t.Month()), t.Day()
	// Most quotes have a few dozen tokens: they stay on the stack.
	var buf [64]string
	toks := appendDateTokens(buf[:0], s)
	isNum := func(tok string, maxLen, want int) bool {
		if tok == "" || len(tok) > maxLen || !isASCIIDigits(tok) {
			return false
		}
		n, err := strconv.Atoi(tok)
		return err == nil && n == want
	}
	isYear := func(tok string, short bool) bool {
		if len(tok) == 4 {
			return isNum(tok, 4, year)
		}
		return short && len(tok) == 2 && isNum(tok, 2, year%100)
	}
	isMonth := func(tok string) bool {
		if isASCIIDigits(tok) {
			return isNum(tok, 2, month)
		}
		return monthNumber(tok) == month
	}
	isDay := func(tok string) bool { return isNum(tok, 2, day) }
	for i, tok := range toks {
		if isCompactDate(tok, iso) {
			return true
		}
		if i+2 >= len(toks) {
			continue
		}
		a, b, c := tok, toks[i+1], toks[i+2]
		if (isYear(a, false) && isMonth(b) && isDay(c)) ||
			(isDay(a) && isMonth(b) && isYear(c, true)) ||
			(isMonth(a) && isDay(b) && isYear(c, true)) {
			return true
		}
	}
	return false
}

// appendDateTokens appends to toks the runs of digits and the runs of
// letters of s that are not dateFillers; everything else separates.
func appendDateTokens(toks []string, s string) []string {
	start, kind := -1, 0 // kind 1 digits, 2 letters
	flush := func(end int) {
		if start >= 0 && (kind == 1 || !isDateFiller(s[start:end])) {
			toks = append(toks, s[start:end])
		}
		start, kind = -1, 0
	}
	for i, r := range s {
		k := 0
		switch {
		case r >= '0' && r <= '9':
			k = 1
		case unicode.IsLetter(r):
			k = 2
		}
		if k != kind {
			flush(i)
			if k != 0 {
				start, kind = i, k
			}
		}
	}
	flush(len(s))
	return toks
}

// isDateFiller reports whether the run of letters tok is one of
// dateFillers in any case. Those are two or three ASCII letters, so an
// ASCII run of another length is not folded against them; a run with other
// letters is (U+017F, long s, folds to s).
func isDateFiller(tok string) bool {
	if (len(tok) < 2 || len(tok) > 3) && isASCII(tok) {
		return false
	}
	return containsFold(dateFillers, tok)
}

// monthNumber is monthNames()[strings.ToLower(tok)], lowering a short
// ASCII run on the stack instead of allocating its lower-case copy.
func monthNumber(tok string) int {
	var b [16]byte
	if len(tok) > len(b) || !isASCII(tok) {
		return monthNames()[strings.ToLower(tok)]
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return monthNames()[string(b[:len(tok)])]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isCompactDate reports whether tok is the date iso, which time.Parse has
// read as YYYY-MM-DD, written as one YYYYMMDD number (what formatting the
// parsed time with "20060102" spells).
func isCompactDate(tok, iso string) bool {
	return len(tok) == 8 && len(iso) == 10 && tok[:4] == iso[:4] && tok[4:6] == iso[5:7] && tok[6:] == iso[8:]
}

func isASCIIDigits(s string) bool {
	// A byte loop: strings.Trim builds its set of cut bytes on every call.
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// monthNames maps lower-case month names and abbreviations in the languages
// invoices in fixtures/ and their neighbours use to the month number. Built
// on first use: most commands never validate a date.
var monthNames = sync.OnceValue(func() map[string]int {
	names := [12][]string{
		{"january", "jan", "januar", "jänner", "jän", "janvier", "janv", "enero", "ene", "gennaio", "gen", "januari"},
		{"february", "feb", "februar", "février", "fevrier", "févr", "fevr", "febrero", "febbraio", "februari"},
		{"march", "mar", "märz", "maerz", "mär", "mrz", "mars", "marzo", "maart", "mrt"},
		{"april", "apr", "avril", "avr", "abril", "abr", "aprile"},
		{"may", "mai", "mayo", "may", "maggio", "mag", "mei"},
		{"june", "jun", "juni", "juin", "junio", "giugno", "giu"},
		{"july", "jul", "juli", "juillet", "juil", "julio", "luglio", "lug"},
		{"august", "aug", "août", "aout", "agosto", "ago", "augustus"},
		{"september", "sep", "sept", "septembre", "septiembre", "settembre", "set"},
		{"october", "oct", "oktober", "okt", "octobre", "octubre", "ottobre", "ott"},
		{"november", "nov", "novembre", "noviembre"},
		{"december", "dec", "dezember", "dez", "décembre", "decembre", "déc", "diciembre", "dic", "dicembre"},
	}
	m := map[string]int{}
	for i, list := range names {
		for _, n := range list {
			m[n] = i + 1
		}
	}
	return m
})

// currencyNames lists, for common currencies, the symbols and names an
// invoice may use instead of the ISO code. A symbol shared by several
// currencies ($, kr, ¥) backs each of them: the evidence supports the
// currency, the fact decides it.
var currencyNames = sync.OnceValue(func() map[string][]string {
	dollar := []string{"$", "dollar"}
	return map[string][]string{
		"EUR": {"€", "euro"},
		"USD": append([]string{"us$"}, dollar...),
		"CAD": append([]string{"c$", "ca$"}, dollar...),
		"AUD": append([]string{"a$", "au$"}, dollar...),
		"NZD": append([]string{"nz$"}, dollar...),
		"HKD": append([]string{"hk$"}, dollar...),
		"SGD": append([]string{"s$"}, dollar...),
		"MXN": {"$", "peso"},
		"GBP": {"£", "pound", "sterling"},
		"JPY": {"¥", "円", "yen"},
		"CNY": {"¥", "元", "rmb", "yuan"},
		"CHF": {"fr.", "sfr", "franken", "francs"},
		"SEK": {"kr", "kronor"},
		"NOK": {"kr", "kroner"},
		"DKK": {"kr", "kroner"},
		"ISK": {"kr", "krónur"},
		"PLN": {"zł", "zloty"},
		"CZK": {"kč", "korun"},
		"HUF": {"ft", "forint"},
		"INR": {"₹", "rs", "rupee"},
		"KRW": {"₩", "won"},
		"BRL": {"r$", "real"},
		"RUB": {"₽", "руб"},
		"TRY": {"₺", "tl", "lira"},
		"ILS": {"₪", "shekel"},
		"UAH": {"₴", "грн"},
		"VND": {"₫", "đồng", "dong"},
		"PHP": {"₱", "peso"},
		"THB": {"฿", "baht"},
		"NGN": {"₦", "naira"},
		// South Africa's "R 2,350.00": a lone letter, which as a word
		// of the cited text stands for nothing else there.
		"ZAR": {"r", "rand"},
		// Local symbols of ISO 4217 currencies as receipts print them
		// ("RM 12.50" in Malaysia, "Rp 15.000" in Indonesia): without them a
		// document that never prints the ISO code could not cite its currency.
		"MYR": {"rm", "ringgit",
			// The ringgit was the Malaysian dollar, "$" (M$), until 1993,
			// and till receipts there still print "$" for it.
			"m$", "$"},
		"IDR": {"rp", "rupiah"},
		"PKR": {"rs", "rupee"},
		"LKR": {"rs", "rupee"},
		"NPR": {"rs", "rupee"},
		"AED": {"dhs", "dirham"},
		"SAR": {"sr", "riyal"},
		"QAR": {"qr", "riyal"},
		"OMR": {"ro", "rial"},
		"KWD": {"kd", "dinar"},
		"BHD": {"bd", "dinar"},
		"RON": {"lei"},
		"TWD": {"nt$"},
	}
})

// CurrencyIn reports whether s names the currency code by its ISO code, a
// local symbol, its name or a place of its one country, exactly as
// invoice-v2 evidence validation checks it; extractors call it so that they
// cite only what validation accepts.
func CurrencyIn(s, code string) bool { return currencyIn(s, code) }

// currencyIn reports whether s names the currency code, or places of the
// one country that pays in it. Codes and names must stand as words ("tl" in
// "total" is not Turkish lira); symbols may touch the amount ("€1.234,56").
func currencyIn(s, code string) bool {
	lower := strings.ToLower(s)
	if wordIn(lower, strings.ToLower(code)) {
		return true
	}
	for _, n := range currencyNames()[code] {
		if wordIn(lower, n) {
			return true
		}
	}
	return placeBacks(s, code)
}

// wordIn reports whether w occurs in s with no letter touching a letter at
// either end of it.
func wordIn(s, w string) bool { return wordWhere(s, w, nil) }

// wordWhere is wordIn for an occurrence that also passes ok, given the
// text before and after it (nil: any).
func wordWhere(s, w string, ok func(before, after string) bool) bool {
	first, _ := utf8.DecodeRuneInString(w)
	last, _ := utf8.DecodeLastRuneInString(w)
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if !(unicode.IsLetter(first) && unicode.IsLetter(before)) && !(unicode.IsLetter(last) && unicode.IsLetter(after)) &&
			(ok == nil || ok(s[:i], s[i+len(w):])) {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		from = i + size
	}
}

// vatIDIn reports whether evidence e backs the compact VAT id v: its letters
// and digits contain v, or v without the two-letter country prefix when at
// least eight characters remain (short national parts would match digits
// that merely happen to be in the excerpt).
func vatIDIn(e, v string) bool {
	return alnumContains(e, v, 0, 0) || alnumContains(e, v, 2, 8)
}
