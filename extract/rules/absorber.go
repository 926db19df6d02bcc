package rules

import (
	"strings"
	"unicode/utf8"
)

// The absorbers reTotalAbsorb and reV2Included were tried, anchored, at
// every opener of every summary line, and a try ran Go's backtracker over
// a program with thirty copies of the gap's class: about a fiftieth of a
// document's instructions. Their alternatives are words, so each step is
// decided by one word and leaves nothing to backtrack into; absorber.at
// answers the anchored expression's FindStringIndex end exactly
// (TestOpenerSearchMatchesRegexp holds both to their regexps):
//
//	\(?\b(?:INCL)\b\.?[^()\n]{0,30}?\b(?:TAX)\b\.?\)?
//	|\(\s*(?:PARENTAX)\s*(?:PARENINCL)\b\.?\s*\)?
//	|\b(?:LONE)\b                                 (reTotalAbsorb)
//	|\b(?:EXCL)\b\.?\s*(?:EXCLTAX)\b\.?            (reV2Included)
//
// A word list spelled here must stay the regexp's: the test fails first.

// absorber holds one absorber's words, folded (l read as i) as the text.
type absorber struct {
	incl, lone, excl map[string]bool
}

// absorberTax, absorberParenTax, absorberParenIncl and absorberExclTax
// are the tax and inclusion words both absorbers' patterns spell out.
var (
	absorberTax      = []string{"vat", "tax", "taxes", "mwst", "ust", "umsatzsteuer", "mehrwertsteuer", "btw", "iva", "tva", "gst", "steuer", "igic"}
	absorberParenTax = []string{"vat", "tax", "mwst", "ust", "btw", "iva", "tva", "gst"}
	// Reason: "TOTAL DUE (GST INC)", "(GST inclusive)": tills print the short forms.
	absorberParenIncl = []string{"incl", "inkl", "inc", "inclusive", "included", "inclusa", "incluida", "incluido", "incluse", "compris"}
	absorberExclTax   = []string{"vat", "tax", "mwst", "ust", "btw", "iva", "tva", "gst", "steuer"}
)

// absorberTables are the shared word sets, folded, built on first use.
var absorberTables = onFirstUse(func() *absorberWords {
	return &absorberWords{
		tax:       foldedSet(absorberTax),
		parenTax:  foldedList(absorberParenTax),
		parenIncl: foldedList(absorberParenIncl),
		exclTax:   foldedList(absorberExclTax),
	}
})

type absorberWords struct {
	tax                          map[string]bool
	parenTax, parenIncl, exclTax []string
}

func foldedList(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ReplaceAll(w, "l", "i")
	}
	return out
}

func foldedSet(ws []string) map[string]bool {
	m := map[string]bool{}
	for _, w := range foldedList(ws) {
		m[w] = true
	}
	return m
}

// absorberScan returns a builder of the scanner for an absorber whose
// first alternative opens with incl, and whose last is a lone word of
// lone (reTotalAbsorb) or an excl word before a tax word (reV2Included).
func absorberScan(incl, lone, excl []string) func() func(string) int {
	return func() func(string) int {
		a := &absorber{incl: foldedSet(incl), lone: foldedSet(lone), excl: foldedSet(excl)}
		return a.at
	}
}

// wordRunEnd is the end of the run of \b word bytes at s[i:].
func wordRunEnd(s string, i int) int {
	for i < len(s) && isREWordByte(s[i]) {
		i++
	}
	return i
}

// skipRESpace passes over \s bytes.
func skipRESpace(s string, i int) int {
	for i < len(s) && isRESpace(s[i]) {
		i++
	}
	return i
}

// wordPrefix returns the end of the first of ws that s[i:] opens with and
// a \b closes, or -1.
func wordPrefix(s string, i int, ws []string) int {
	for _, w := range ws {
		if strings.HasPrefix(s[i:], w) && !wordAt(s, i+len(w)) {
			return i + len(w)
		}
	}
	return -1
}

// at is the end of the anchored expression's match at the start of s, or
// -1. Each word alternative is closed by \b, so of a list at most the one
// equal to the word there matches; an optional byte is taken when present,
// as leaving it out would make the next step read it, which none can.
func (a *absorber) at(s string) int {
	if s == "" {
		return -1
	}
	t := absorberTables()
	// \(?\b(?:INCL)\b\.?[^()\n]{0,30}?\b(?:TAX)\b\.?\)?
	q := 0
	if s[0] == '(' {
		q = 1
	}
	if e := wordRunEnd(s, q); e > q && a.incl[s[q:e]] {
		if e < len(s) && s[e] == '.' {
			e++
		}
		// The lazy gap: the fewest runes before a tax word.
		g := e
		for k := 0; ; k++ {
			if g < len(s) && isREWordByte(s[g]) && !isREWordByte(s[g-1]) {
				if we := wordRunEnd(s, g); t.tax[s[g:we]] {
					if we < len(s) && s[we] == '.' {
						we++
					}
					if we < len(s) && s[we] == ')' {
						we++
					}
					return we
				}
			}
			if k == 30 || g >= len(s) {
				break
			}
			r, w := utf8.DecodeRuneInString(s[g:])
			if r == '(' || r == ')' || r == '\n' {
				break
			}
			g += w
		}
	}
	// \(\s*(?:PARENTAX)\s*(?:PARENINCL)\b\.?\s*\)?
	if s[0] == '(' {
		i := skipRESpace(s, 1)
		for _, tw := range t.parenTax {
			if !strings.HasPrefix(s[i:], tw) {
				continue
			}
			j := skipRESpace(s, i+len(tw))
			if e := wordPrefix(s, j, t.parenIncl); e >= 0 {
				if e < len(s) && s[e] == '.' {
					e++
				}
				if e = skipRESpace(s, e); e < len(s) && s[e] == ')' {
					e++
				}
				return e
			}
			break // no other tax word opens here
		}
		return -1
	}
	e := wordRunEnd(s, 0)
	if e == 0 {
		return -1
	}
	// \b(?:LONE)\b
	if a.lone[s[:e]] {
		return e
	}
	// \b(?:EXCL)\b\.?\s*(?:EXCLTAX)\b\.?
	if a.excl[s[:e]] {
		if e < len(s) && s[e] == '.' {
			e++
		}
		if e = wordPrefix(s, skipRESpace(s, e), t.exclTax); e >= 0 {
			if e < len(s) && s[e] == '.' {
				e++
			}
			return e
		}
	}
	return -1
}
