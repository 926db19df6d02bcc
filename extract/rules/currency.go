package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/invx/invx/schema"
)

// currencyExponent returns the number of minor-unit digits of an active
// ISO 4217 code; the table is the schema's, so extraction and validation
// agree.
func currencyExponent(code string) (int, bool) { return schema.CurrencyExponent(code) }

// wordCodes are ISO codes that are also ordinary (upper-case) words; they
// count only right next to an amount.
var wordCodes = map[string]bool{
	"ALL": true, "AMD": true, "ANG": true, "BAM": true, "BOB": true, "CAD": true, "CUP": true,
	"ERN": true, "GEL": true, "LAK": true, "MAD": true, "MOP": true, "NAD": true, "PEN": true,
	"SOS": true, "TOP": true, "TRY": true, "WST": true, "PAB": true, "SAR": true, "CVE": true,
	"DOP": true, "HNL": true, "MDL": true, "MGA": true, "SHP": true, "BND": true, "GIP": true,
	"KES": true, "ETB": true, "SVC": true, "TMT": true, "VES": true, "YER": true, "IRR": true,
	"PGK": true, "MVR": true, "SCR": true, "SDG": true, "SRD": true, "LSL": true, "STN": true,
	// Funds and units that invoices do not use but text does ("CHE-123.456.789 MWST").
	"CHE": true, "CHW": true, "BOV": true, "COU": true, "MXV": true, "USN": true, "UYI": true, "UYW": true,
	"CLF": true, "VED": true,
}

// legalFormCodes are ISO codes that are also company legal forms ("SDN BHD"
// is Sendirian Berhad, not Bahraini dinars): weak, and never a currency
// right after the legal form's first word.
var legalFormCodes = map[string][]string{"BHD": {"SDN", "SDN.", "SENDIRIAN"}}

// afterWord reports whether the word just before raw[i:] (skipping spaces)
// is one of words, compared case-insensitively.
func afterWord(raw string, i int, words []string) bool {
	before := strings.TrimRight(raw[:i], " \u00a0")
	for _, w := range words {
		if len(before) >= len(w) && strings.EqualFold(before[len(before)-len(w):], w) &&
			!unicode.IsLetter(runeBefore(before, len(before)-len(w))) {
			return true
		}
	}
	return false
}

// moneyBeside reports whether a number with decimals ("12.500", "26.60")
// stands right before or after raw[i:j], apart from spaces: a legal-form
// code is a currency only there, not beside a registration number
// ("BHD (126926-H)").
func moneyBeside(raw string, i, j int) bool {
	if byteAt(raw, i-1) == '(' && byteAt(raw, j) == ')' {
		return true // "Amount (BHD)": a column's currency
	}
	decimals := func(s string) bool {
		k := strings.LastIndexAny(s, ".,")
		return k > 0 && len(s)-k-1 >= 1 && len(s)-k-1 <= 3
	}
	k := j
	for k < len(raw) && (raw[k] == ' ' || raw[k] == '-') {
		k++
	}
	e := k
	for e < len(raw) && (isDigit(raw[e]) || raw[e] == '.' || raw[e] == ',') {
		e++
	}
	if e > k && isDigit(raw[k]) && decimals(strings.TrimRight(raw[k:e], ".,")) {
		return true
	}
	k = i
	for k > 0 && raw[k-1] == ' ' {
		k--
	}
	b := k
	for b > 0 && (isDigit(raw[b-1]) || raw[b-1] == '.' || raw[b-1] == ',') {
		b--
	}
	return k > b && isDigit(raw[k-1]) && decimals(raw[b:k])
}

// lowerCodes may also be written in lower case.
var lowerCodes = map[string]bool{"EUR": true, "USD": true, "GBP": true, "CHF": true, "SEK": true, "NOK": true,
	"DKK": true, "PLN": true, "JPY": true, "CAD": true, "AUD": true, "CZK": true, "HUF": true}

// Families that need the document to resolve them.
const (
	famDollar = "$"
	famYen    = "¥"
	famKrona  = "kr"
	famSR     = "SR" // Saudi riyal, or a GST "standard rated" tax code
)

type symbol struct {
	text string
	code string // ISO code or a family
	weak bool   // counts only right next to an amount
}

// symbols, longest first so that "CA$" wins over "$".
var symbols = []symbol{
	{"U$S", "USD", false}, {"US$", "USD", false}, {"CA$", "CAD", false}, {"AU$", "AUD", false},
	{"NZ$", "NZD", false}, {"HK$", "HKD", false}, {"SG$", "SGD", false}, {"MX$", "MXN", false},
	{"SFr.", "CHF", false}, {"Dhs", "AED", true}, {"Rs.", "INR", true}, {"kr.", famKrona, true},
	{"Kr.", famKrona, true}, {"Fr.", "CHF", true}, {"lei", "RON", true},
	{"C$", "CAD", false}, {"A$", "AUD", false}, {"S$", "SGD", false}, {"R$", "BRL", false},
	{"zł", "PLN", false}, {"ZŁ", "PLN", false}, {"Zł", "PLN", false}, {"Kč", "CZK", false}, {"KČ", "CZK", false},
	{"KR.", famKrona, true}, {"KR", famKrona, true}, {"kr", famKrona, true}, {"Kr", famKrona, true},
	{"KD", "KWD", true}, {"BD", "BHD", true}, {"RM", "MYR", true}, {"Rp", "IDR", true},
	{"Rs", "INR", true}, {"Ft", "HUF", true}, {"QR", "QAR", true}, {"SR", famSR, true},
	{"RO", "OMR", true}, {"TL", "TRY", true}, {"Fr", "CHF", true},
	// Reason: South Africa prints the rand as "R 2,350.00"; a lone letter,
	// so only right before an amount (randBefore).
	{"R", "ZAR", true},
	{"€", "EUR", false}, {"£", "GBP", false}, {"¥", famYen, false}, {"￥", famYen, false},
	{"円", "JPY", false}, {"元", "CNY", false}, {"₹", "INR", false}, {"₩", "KRW", false},
	{"₽", "RUB", false}, {"₺", "TRY", false}, {"₪", "ILS", false}, {"₫", "VND", false},
	{"฿", "THB", false}, {"₱", "PHP", false}, {"₦", "NGN", false}, {"₴", "UAH", false},
	{"$", famDollar, false}, {"＄", famDollar, false},
}

// curHit is a currency indicator found in a raw line.
type curHit struct {
	start, end int
	code       string
	weak       bool
}

func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

func runeBefore(s string, i int) rune {
	if i <= 0 {
		return 0
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

// runeAt answers an ASCII byte inline, without a call: the number and
// currency scans ask it after every token of every line, and most
// neighbours are blanks, letters or digits.
func runeAt(s string, i int) rune {
	if i < len(s) && s[i] < utf8.RuneSelf {
		return rune(s[i])
	}
	return firstRune(s, i)
}

// firstRune is the rune starting at s[i] (0 at the end).
func firstRune(s string, i int) rune {
	if i >= len(s) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

// docCurrency holds document-wide evidence used to resolve "$", "¥" and "kr".
type docCurrency struct {
	dollar string // resolved code for "$"
	yen    string
	krona  string // "" when the document does not say which krona
	sr     string // "SAR", or "" when "SR" is a tax code

	// dollarGuess: no dollar code is printed to resolve "$", so dollar
	// is USD for the amounts' sake only (withLocale settles the currency).
	dollarGuess bool
}

// nordic hints, matched on folded text. Every hint counts for the listed code.
var nordicHints = []struct {
	re   *lexicon
	code string
}{
	{lexRE("sverige", "sweden", "bankgiro", "plusgiro", "momsreg", "momsregistreringsnummer", "organisationsnummer", "forfallodatum", "att betala", "fakturadatum", "godkand for f-skatt", "f-skatt", "stockholm", "goteborg", "malmo"), "SEK"},
	{lexRE("danmark", "denmark", "cvr", "cvr-nr", "forfaldsdato", "at betale", "kobenhavn", "aarhus", "fakturanr"), "DKK"},
	{lexRE("norge", "norway", "mva", "foretaksregisteret", "forfallsdato", "a betale", "kid-nr", "oslo", "bergen"), "NOK"},
}

var (
	reSEsuffix = mustRE(`\bAB\b|\+46|\.se\b|\bSE\d{10,12}`)
	reDKsuffix = mustRE(`\bApS\b|\bA/S\b|\+45|\.dk\b|\bDK\d{8}\b`)
	reNOsuffix = mustRE(`\bASA\b|\bAS\b|\+47|\.no\b|\bNO\d{9}`)
)

// mayCNY reports whether text holds a literal some alternative of reCNY
// (cny_test.go)
// needs ("P.R.C." in any dotting needs "RC" or "R.C").
func mayCNY(text string) bool {
	for _, lit := range []string{"元", "人民币", "RMB", "CNY", "China", "中国", "RC", "R.C"} {
		if strings.Contains(text, lit) {
			return true
		}
	}
	return false
}

// dollarCodes is what a regexp `\b(CAD|AUD|...|SBD)\b` over dollarCodeSet
// would find (FindAllString), without the regexp: every
// alternative is three ASCII letters between \b, so a match is exactly a
// maximal run of ASCII word bytes ([0-9A-Za-z_]; no other rune is a word
// character for \b) that spells one of them.
//
// A code is three capitals between \b edges: the text (the whole
// document) is read eight bytes at a time past the positions where no
// three capitals stand side by side, and only those that do are tested for
// the edges and looked up.
func dollarCodes(text string) []string {
	var out []string
	for i := 0; i+3 <= len(text); i++ {
		if i+8 <= len(text) {
			m := upperLanes(load8(text, i))
			three := m & (m >> 8) & (m >> 16)
			if three == 0 {
				i += 5 // none opens at i..i+5; the loop steps to i+6
				continue
			}
			i += firstLane(three)
		}
		if !isUpperASCII(text[i]) || !isUpperASCII(text[i+1]) || !isUpperASCII(text[i+2]) {
			continue
		}
		if i > 0 && isREWordByte(text[i-1]) || i+3 < len(text) && isREWordByte(text[i+3]) {
			continue
		}
		if dollarCodeSet[text[i:i+3]] {
			out = append(out, text[i:i+3])
		}
		i += 2 // text[i+3] is no word byte: no code opens before i+4
	}
	return out
}

func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }

var dollarCodeSet = map[string]bool{
	"CAD": true, "AUD": true, "NZD": true, "SGD": true, "HKD": true, "MXN": true, "USD": true, "TWD": true,
	"BSD": true, "BBD": true, "JMD": true, "TTD": true, "FJD": true, "ARS": true, "CLP": true, "COP": true,
	"UYU": true, "XCD": true, "BZD": true, "LRD": true, "NAD": true, "SBD": true,
}

func resolveDocCurrency(text, ftext string, krona bool) docCurrency {
	dc := docCurrency{dollar: "USD", yen: "JPY", sr: "SAR"}
	if gstTaxCodes(text) {
		// GST receipts print "SR" (standard rated) and "ZR" (zero rated)
		// after every item: there "SR" is a tax code, not Saudi riyals.
		dc.sr = ""
	}
	if mayCNY(text) && hasCNY(text) {
		dc.yen = "CNY"
	}
	counts := map[string]int{}
	for _, m := range dollarCodes(text) {
		counts[m]++
	}
	dc.dollarGuess = counts["USD"] == 0
	if counts["USD"] == 0 {
		best, bestN, tie := "", 0, false
		for c, n := range counts {
			switch {
			case n > bestN || n == bestN && c < best:
				tie = n == bestN
				best, bestN = c, n
			case n == bestN:
				tie = true
			}
		}
		if best != "" && !tie {
			dc.dollar, dc.dollarGuess = best, false
		}
	}
	if !krona {
		return dc
	}
	score := map[string]int{}
	for _, h := range nordicHints {
		score[h.code] += len(h.re.FindAllStringIndex(ftext, -1))
	}
	score["SEK"] += len(reSEsuffix().FindAllStringIndex(text, -1))
	score["DKK"] += len(reDKsuffix().FindAllStringIndex(text, -1))
	score["NOK"] += len(reNOsuffix().FindAllStringIndex(text, -1))
	for _, c := range []string{"SEK", "DKK", "NOK"} {
		if strings.Contains(text, c) {
			score[c] += 10
		}
	}
	best, bestN, tie := "", 0, false
	for _, c := range []string{"SEK", "DKK", "NOK"} {
		n := score[c]
		if n > bestN {
			best, bestN, tie = c, n, false
		} else if n == bestN && n > 0 {
			tie = true
		}
	}
	if !tie && bestN > 0 {
		dc.krona = best
	}
	return dc
}

// resolve maps a code or family to an ISO code ("" when unknown).
func (dc docCurrency) resolve(code string) string {
	switch code {
	case famDollar:
		return dc.dollar
	case famYen:
		return dc.yen
	case famKrona:
		return dc.krona
	case famSR:
		return dc.sr
	}
	return code
}

// gstTaxCodes reports whether the document speaks of GST or SST or prints
// the zero-rated code "ZR", the context in which "SR" is a tax code.
func gstTaxCodes(text string) bool {
	for _, w := range []string{"GST", "SST", "ZR"} {
		for from := 0; ; {
			k := strings.Index(text[from:], w)
			if k < 0 {
				break
			}
			k += from
			if !isASCIILetter(byteAt(text, k-1)) && !isASCIILetter(byteAt(text, k+len(w))) {
				return true
			}
			from = k + len(w)
		}
	}
	return false
}

// columnCurrency reports whether a short symbol at raw[i:j] states the
// currency of a column rather than standing in a word: the heading of an
// amount column ("QTY  ITEM      RM", "RM(TOTAL)") or the currency of a
// right-aligned amount ("SUB TOTAL : RM      4.69").
func columnCurrency(raw string, i, j int) bool {
	if byteAt(raw, j) == '(' {
		return true // "RM(TOTAL)"
	}
	before := raw[:i]
	gapBefore := i == 0 || strings.HasSuffix(before, "  ") || strings.HasSuffix(before, ":") || strings.HasSuffix(before, ": ")
	rest := strings.TrimSpace(raw[j:])
	if rest == "" {
		return gapBefore // the last cell of a heading line
	}
	// The symbol, spaces, then one amount ending the line.
	for k := 0; k < len(rest); k++ {
		if c := rest[k]; !isDigit(c) && c != '.' && c != ',' && c != '-' {
			return false
		}
	}
	return isDigit(rest[len(rest)-1]) && (strings.Contains(rest, ".") || strings.Contains(rest, ","))
}
