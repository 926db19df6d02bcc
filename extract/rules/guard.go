package rules

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// guardedRE is a regexp with a cheap test in front: the strings one of
// which every match must contain, read off the pattern's syntax tree. A
// text holding none of them cannot match, and is answered without running
// the regexp, whose backtracker scans each line from every position (the
// "incl. VAT" absorber alone was a twelfth of the extractor's time, on
// lines that hold neither "incl" nor "vat"). Methods not listed below
// are the regexp's own, unguarded.
type guardedRE struct {
	*regexp.Regexp
	need  *needSet          // nil: no guard
	extra func(string) bool // a further necessary condition, hand-written; nil: none
	open  *openers          // where matches can start (opener.go); nil: anywhere
	// exact answers MatchString without the regexp where it can (ok
	// false: the regexp decides); nil: never.
	exact func(string) (match, ok bool)
	// prog is the pattern's program run without the regexp (exactNFA),
	// built on the first text the guard lets through; nil when too large.
	prog func() *exactNFA
}

// guardRE compiles src with a guard.
func guardRE(src string) *guardedRE {
	re := regexp.MustCompile(src)
	prog := onceValue(func() *exactNFA { n, _ := newExactNFA(src); return n })
	return &guardedRE{Regexp: re, need: newNeedSet(src), prog: prog}
}

// guardedREs lists every guarded regexp built, so a test can hold each to
// its regexp.
var guardedREs []func() *guardedRE

// mustGuardRE is guardRE on first use.
func mustGuardRE(src string) func() *guardedRE {
	get := onFirstUse(func() *guardedRE { return guardRE(src) })
	guardedREs = append(guardedREs, get)
	return get
}

// mustGuardREWith is mustGuardRE with a further hand-written test a text
// must pass to hold a match (the test must never say no where it could).
func mustGuardREWith(src string, extra func(string) bool) func() *guardedRE {
	get := onFirstUse(func() *guardedRE {
		g := guardRE(src)
		g.extra = extra
		return g
	})
	guardedREs = append(guardedREs, get)
	return get
}

// mustGuardREExact is mustGuardREWith whose MatchString asks exact first.
func mustGuardREExact(src string, extra func(string) bool, exact func(string) (bool, bool)) func() *guardedRE {
	get := onFirstUse(func() *guardedRE {
		g := guardRE(src)
		g.extra, g.exact = extra, exact
		return g
	})
	guardedREs = append(guardedREs, get)
	return get
}

// mustGuardREOf is mustGuardRE of a pattern written on first use (one
// built from a table, such as the month names).
func mustGuardREOf(src func() string) func() *guardedRE {
	get := onFirstUse(func() *guardedRE { return guardRE(src()) })
	guardedREs = append(guardedREs, get)
	return get
}

// guardedFoldedRegexp is foldedRegexp with a further test a text must
// pass to hold a match (the test must never say no where it could).
func guardedFoldedRegexp(src string, extra func(string) bool) func() *guardedRE {
	get := onFirstUse(func() *guardedRE {
		g := guardRE(strings.ReplaceAll(src, "l", "i"))
		g.extra = extra
		return g
	})
	guardedREs = append(guardedREs, get)
	return get
}

// may reports whether s could hold a match.
func (g *guardedRE) may(s string) bool {
	return (g.need == nil || g.need.in(s)) && (g.extra == nil || g.extra(s))
}

// MatchString is regexp's.
func (g *guardedRE) MatchString(s string) bool {
	if !g.may(s) {
		return false
	}
	if g.exact != nil {
		if m, ok := g.exact(s); ok {
			return m
		}
	}
	if g.prog != nil {
		if n := g.prog(); n != nil {
			return n.matchAnywhere(s)
		}
	}
	return g.Regexp.MatchString(s)
}

// FindString is regexp's.
func (g *guardedRE) FindString(s string) string {
	if !g.may(s) {
		return ""
	}
	return g.Regexp.FindString(s)
}

// FindStringIndex is regexp's.
func (g *guardedRE) FindStringIndex(s string) []int {
	if !g.may(s) {
		return nil
	}
	return g.Regexp.FindStringIndex(s)
}

// FindStringSubmatch is regexp's.
func (g *guardedRE) FindStringSubmatch(s string) []string {
	if !g.may(s) {
		return nil
	}
	return g.Regexp.FindStringSubmatch(s)
}

// FindStringSubmatchIndex is regexp's.
func (g *guardedRE) FindStringSubmatchIndex(s string) []int {
	if !g.may(s) {
		return nil
	}
	return g.Regexp.FindStringSubmatchIndex(s)
}

// FindAllString is regexp's.
func (g *guardedRE) FindAllString(s string, n int) []string {
	if !g.may(s) {
		return nil
	}
	return g.Regexp.FindAllString(s, n)
}

// FindAllStringIndex is regexp's.
func (g *guardedRE) FindAllStringIndex(s string, n int) [][]int {
	if !g.may(s) {
		return nil
	}
	if g.open != nil && n < 0 {
		return g.open.findAll(s)
	}
	return g.Regexp.FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is regexp's.
func (g *guardedRE) FindAllStringSubmatch(s string, n int) [][]string {
	if !g.may(s) {
		return nil
	}
	return g.Regexp.FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp's.
func (g *guardedRE) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if !g.may(s) {
		return nil
	}
	return g.Regexp.FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is regexp's.
func (g *guardedRE) ReplaceAllString(src, repl string) string {
	if !g.may(src) {
		return src
	}
	if g.open != nil && !strings.Contains(repl, "$") {
		return g.open.replaceAll(src, repl)
	}
	return g.Regexp.ReplaceAllString(src, repl)
}

// ReplaceAllLiteralString is regexp's.
func (g *guardedRE) ReplaceAllLiteralString(src, repl string) string {
	if !g.may(src) {
		return src
	}
	return g.Regexp.ReplaceAllLiteralString(src, repl)
}

// ReplaceAllStringFunc is regexp's.
func (g *guardedRE) ReplaceAllStringFunc(src string, repl func(string) string) string {
	if !g.may(src) {
		return src
	}
	return g.Regexp.ReplaceAllStringFunc(src, repl)
}

// needLit is a string a match may have to contain; fold: compared with
// ASCII case folding (the pattern's (?i)), lit then in lower case.
type needLit struct {
	lit  string
	fold bool
}

// needSet is a set of strings at least one of which every match contains,
// by the lower-cased first byte.
type needSet struct {
	byFirst [256][]needLit
	// opens marks the bytes of s in looks up in byFirst, both cases of a
	// letter: most bytes open none of the strings, and folding each byte
	// and loading its list to find that out was half of in's time (in
	// guards regexps asked of every line, a fiftieth of the extractor).
	opens [256]bool
}

// in reports whether s contains one of the set's strings.
func (n *needSet) in(s string) bool {
	for i := 0; i < len(s); i++ {
		if !n.opens[s[i]] {
			continue
		}
		for _, l := range n.byFirst[lowerASCII(s[i])] {
			if len(s)-i < len(l.lit) {
				continue
			}
			w := s[i : i+len(l.lit)]
			if w == l.lit || l.fold && strings.EqualFold(w, l.lit) {
				return true
			}
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// newNeedSet reads the set off the pattern, or returns nil when the
// pattern does not require any string the guard can look for cheaply
// (it may match the empty string, or a single common byte would do).
func newNeedSet(src string) *needSet {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	lits, ok := needOf(re.Simplify())
	if !ok || len(lits) == 0 {
		return nil
	}
	lits = dropContaining(lits)
	n := &needSet{}
	for _, l := range lits {
		if len(l.lit) == 1 && (isWordByte(lowerASCII(l.lit[0])) || l.lit[0] == ' ') {
			return nil // a letter, digit or space alone: the guard would rarely say no
		}
		c := lowerASCII(l.lit[0])
		n.byFirst[c] = append(n.byFirst[c], l)
		n.opens[c] = true
		if c >= 'a' && c <= 'z' {
			n.opens[c-'a'+'A'] = true
		}
	}
	return n
}

// maxClassRunes bounds the character classes read as a set of one-rune
// strings ("[./-]"); larger classes ("\d", "\w") say nothing.
const maxClassRunes = 6

// needOf returns strings one of which every match of re contains; false
// when there is no such set (re may match without any fixed text).
func needOf(re *syntax.Regexp) ([]needLit, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return literalNeed(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		var out []needLit
		for k := 0; k+1 < len(re.Rune); k += 2 {
			lo, hi := re.Rune[k], re.Rune[k+1]
			if hi-lo+1 > maxClassRunes || len(out)+int(hi-lo+1) > maxClassRunes {
				return nil, false
			}
			for r := lo; r <= hi; r++ {
				if !safeRune(r) {
					return nil, false
				}
				out = append(out, needLit{lit: string(r)})
			}
		}
		return out, len(out) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return needOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false
		}
		return needOf(re.Sub[0])
	case syntax.OpConcat:
		// Every part must match: the part with the most telling set serves.
		var best []needLit
		found := false
		for _, sub := range re.Sub {
			s, ok := needOf(sub)
			if ok && (!found || betterNeed(s, best)) {
				best, found = s, true
			}
		}
		return best, found
	case syntax.OpAlternate:
		var out []needLit
		for _, sub := range re.Sub {
			s, ok := needOf(sub)
			if !ok {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	}
	// Empty matches, assertions, any character, optional and starred parts:
	// nothing is required.
	return nil, false
}

// literalNeed is the longest piece of a literal the guard can compare
// exactly: under (?i) a letter whose case folding leaves ASCII ("k" and
// the Kelvin sign, "s" and the long s) cuts the literal.
func literalNeed(rs []rune, fold bool) ([]needLit, bool) {
	best, cur := "", []rune(nil)
	flush := func() {
		if s := string(cur); len(s) > len(best) {
			best = s
		}
		cur = cur[:0]
	}
	for _, r := range rs {
		if !safeRune(r) || fold && !asciiFoldOrbit(r) {
			flush()
			continue
		}
		if fold {
			r = unicode.ToLower(r)
		}
		cur = append(cur, r)
	}
	flush()
	if best == "" {
		return nil, false
	}
	return []needLit{{lit: best, fold: fold}}, true
}

// safeRune excludes the replacement character, which regexp also matches
// for an invalid byte the text does not spell as U+FFFD.
func safeRune(r rune) bool { return r != utf8.RuneError && utf8.ValidRune(r) }

// asciiFoldOrbit reports whether every case form of r (unicode.SimpleFold)
// is ASCII and r is: only then does strings.EqualFold on the text's bytes
// decide what (?i) decides.
func asciiFoldOrbit(r rune) bool {
	if r >= utf8.RuneSelf {
		return unicode.SimpleFold(r) == r
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// betterNeed prefers the set whose shortest string is longer (it says no
// more often), then the smaller set.
func betterNeed(a, b []needLit) bool {
	ma, mb := minLen(a), minLen(b)
	if ma != mb {
		return ma > mb
	}
	return len(a) < len(b)
}

func minLen(s []needLit) int {
	m := -1
	for _, l := range s {
		if m < 0 || len(l.lit) < m {
			m = len(l.lit)
		}
	}
	return m
}

// dropContaining removes the strings that contain another of the set (a
// text holding "taxes" holds "tax"), and duplicates.
func dropContaining(lits []needLit) []needLit {
	var out []needLit
	for i, a := range lits {
		redundant := false
		for j, b := range lits {
			if i == j || !b.fold && a.fold {
				continue
			}
			la, lb := a.lit, b.lit
			if b.fold {
				la = strings.ToLower(la)
			}
			if strings.Contains(la, lb) && (len(lb) < len(la) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, a)
		}
	}
	return out
}
