package rules

import "strings"

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
