package rules

import (
	"regexp"
	"strings"
)

// openers are the places a match of an absorber ("incl. 19 % VAT",
// "(VAT included)", "TTC") can start: a "(" or a whole word from a short
// list. Go's regexp runs its NFA over every byte of the line from every
// start; tried only at those places, anchored, it gives the same matches
// (TestOpenerSearchMatchesRegexp) for a fraction of the work.
//
// Why anchored at p is the unanchored search at p: every alternative opens
// with "(" (whose own match does not look behind it) or with "\b" and a
// word; p is tried as a word only where the byte before it is no word
// byte, which is what "\b" at the start of s[p:] then says too.
type openers struct {
	anchored *regexp.Regexp  // "^(?:src)"
	words    map[string]bool // folded words a match may open with
	// parenHeads are what a match opening with "(" holds after it and
	// its spaces when the next word is not one of words ("(VAT incl.)"):
	// a "(" with neither after it opens no match.
	parenHeads []string
	// at is anchored's match end at the start of a text, -1 for none, by
	// a scanner (absorber.at); nil: anchored is run.
	at func(string) int
}

// openerFoldedRegexp is guardedFoldedRegexp whose every match opens with
// one of words (as a whole word, "\b" before it), or with "(" and then
// one of words, or "(", spaces and one of parenHeads: its
// FindAllStringIndex and ReplaceAllString search only there.
func openerFoldedRegexp(src string, words, parenHeads []string, extra func(string) bool) func() *guardedRE {
	return openerFoldedScan(src, words, parenHeads, extra, nil)
}

// openerFoldedScan is openerFoldedRegexp whose anchored tries a scanner
// answers (scan builds it on first use; nil: the regexp).
func openerFoldedScan(src string, words, parenHeads []string, extra func(string) bool, scan func() func(string) int) func() *guardedRE {
	get := onFirstUse(func() *guardedRE {
		folded := strings.ReplaceAll(src, "l", "i")
		g := guardRE(folded)
		g.extra = extra
		o := &openers{anchored: regexp.MustCompile(`^(?:` + folded + `)`), words: map[string]bool{}, parenHeads: parenHeads}
		for _, w := range words {
			o.words[strings.ReplaceAll(w, "l", "i")] = true
		}
		if scan != nil {
			o.at = scan()
		}
		g.open = o
		return g
	})
	guardedREs = append(guardedREs, get)
	return get
}

// findAll is FindAllStringIndex(s, -1) of the full expression.
func (o *openers) findAll(s string) [][]int {
	var out [][]int
	for p := 0; p < len(s); {
		c := s[p]
		if c != '(' {
			if !isREWordByte(c) {
				p++
				continue
			}
			end := p + 1
			for end < len(s) && isREWordByte(s[end]) {
				end++
			}
			if p > 0 && isREWordByte(s[p-1]) || !o.words[s[p:end]] {
				p = end // no match opens inside a word
				continue
			}
			if e := o.anchoredEnd(s[p:]); e > 0 {
				out = append(out, []int{p, p + e})
				p += e
			} else {
				p = end
			}
			continue
		}
		if !o.parenOpens(s, p+1) {
			p++
			continue
		}
		if e := o.anchoredEnd(s[p:]); e > 0 {
			out = append(out, []int{p, p + e})
			p += e
			continue
		}
		p++
	}
	return out
}

// anchoredEnd is the end of anchored's match at the start of s, -1 for
// none.
func (o *openers) anchoredEnd(s string) int {
	if o.at != nil {
		return o.at(s)
	}
	if m := o.anchored.FindStringIndex(s); m != nil {
		return m[1]
	}
	return -1
}

// parenOpens reports whether a "(" before q may open a match: one of
// words right after it, or one of parenHeads after its spaces.
func (o *openers) parenOpens(s string, q int) bool {
	end := q
	for end < len(s) && isREWordByte(s[end]) {
		end++
	}
	if o.words[s[q:end]] {
		return true
	}
	for q < len(s) && isRESpace(s[q]) {
		q++
	}
	for _, h := range o.parenHeads {
		if strings.HasPrefix(s[q:], h) {
			return true
		}
	}
	return false
}

// replaceAll is ReplaceAllString(s, repl) of the full expression for a
// repl without "$".
func (o *openers) replaceAll(s, repl string) string {
	ms := o.findAll(s)
	if ms == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		b.WriteString(repl)
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
