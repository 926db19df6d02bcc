package rules

import (
	"strings"
	"unicode/utf8"
)

// bankWordSrc is reBankWord's pattern: a bank's name or a bank-detail word.
const bankWordSrc = `(?i)\b(?:bank|banque|banco|banca|sparkasse|volksbank|raiffeisen\w*|commerzbank|postbank|rabobank|abn amro|ing|bnp paribas|cr[ée]dit agricole|caisse d'[ée]pargne|soci[ée]t[ée] g[ée]n[ée]rale|unicredit|intesa|bbva|santander|caixabank|hsbc|barclays|lloyds|natwest|revolut|paypal|stripe|iban|bic|swift|kreissparkasse|stadtsparkasse|deutsche bank|dz bank|triodos|belfius|kbc|sabadell|bankinter|mediobanca|fineco|monte dei paschi|bper)\b`

// bankWordHeads holds, by lower-case first byte, the first bytes (at most
// three, none past a character class) of each of bankWordSrc's words.
var bankWordHeads = func() (t [256][]string) {
	body := bankWordSrc[strings.Index(bankWordSrc, "(?:")+3 : strings.LastIndex(bankWordSrc, ")")]
	for _, w := range strings.Split(body, "|") {
		n := 0
		for n < len(w) && n < 3 && w[n] != '[' && w[n] != '\\' {
			n++
		}
		t[w[0]] = append(t[w[0]], w[:n])
	}
	return t
}()

// bankWordMay is a necessary condition for reBankWord to match s: one of
// its words' heads at a word start. The regexp's needed strings hold in
// most names ("ing" in "Trading"), and it then ran its backtracker over
// every candidate name. Case-insensitive matching also reads the Kelvin
// sign as "k" and the long s as "s": a text holding either is left to the
// regexp.
func bankWordMay(s string) bool {
	if strings.Contains(s, "\u212a") || strings.Contains(s, "\u017f") {
		return true
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && isREWordByte(s[i-1]) {
			continue
		}
		for _, h := range bankWordHeads[lowerASCII(s[i])] {
			if len(s)-i >= len(h) && strings.EqualFold(s[i:i+len(h)], h) {
				return true
			}
		}
	}
	return false
}

// bankWords holds bankWordSrc's words by first byte (they are written in
// lower case) for bankWordIn: "[ée]" as "e" (the only ASCII byte it
// takes) and a trailing `\w*` cut, with star set.
var bankWords = onFirstUse(func() *[256][]bankWordPat {
	body := bankWordSrc[strings.Index(bankWordSrc, "(?:")+3 : strings.LastIndex(bankWordSrc, ")")]
	var out [256][]bankWordPat
	for _, w := range strings.Split(body, "|") {
		p := bankWordPat{}
		if strings.HasSuffix(w, `\w*`) {
			w, p.star = strings.TrimSuffix(w, `\w*`), true
		}
		p.lit = strings.ReplaceAll(w, "[ée]", "e")
		if strings.ContainsAny(p.lit, `[]\()?*+.{}`) || p.lit == "" || p.lit[0] < 'a' || p.lit[0] > 'z' {
			panic("rules: bankWordIn cannot read the bank word " + w)
		}
		out[p.lit[0]] = append(out[p.lit[0]], p)
	}
	return &out
})

// bankWordPat is a word of bankWordSrc as bankWordIn reads it.
type bankWordPat struct {
	lit  string // the literal, lower case
	star bool   // `\w*` follows: the word may run on past the literal
}

// bankWordIn is reBankWord's MatchString on ASCII text (ok false on any
// other byte: the regexp decides, with its case folds of the Kelvin sign
// and the long s): a word of bankWords, in any case, from a word start to
// a word end. A word with `\w*` after it takes the rest of its word,
// which always ends one. reBankWord's backtracker, run on every candidate
// supplier name its guard let through, was 1 % of a document's work.
func bankWordIn(s string) (match, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false, false
		}
	}
	words := bankWords()
	for i := 0; i < len(s); i++ {
		if i > 0 && isREWordByte(s[i-1]) || !isREWordByte(s[i]) {
			continue
		}
		for _, w := range words[lowerASCII(s[i])] {
			if len(s)-i < len(w.lit) || !strings.EqualFold(s[i:i+len(w.lit)], w.lit) {
				continue
			}
			end := i + len(w.lit)
			if w.star || end == len(s) || !isREWordByte(s[end]) {
				return true, true
			}
		}
	}
	return false, true
}
