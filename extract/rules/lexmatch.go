package rules

import "strings"

// phraseProg is a lexicon phrase compiled for a byte-level matcher that
// gives, without the regexp package, exactly the match phraseRE's pattern
// (its leading \b taken off) has when anchored at the start of a text.
// Running one small regexp per candidate position was still a fifth of the
// extractor's time; a phrase is a short chain of the steps below, so the set
// of positions a match may have reached after each step is tracked directly.
type phraseProg []phraseStep

type stepKind uint8

const (
	stepLit      stepKind = iota // the bytes lit
	stepSpaces                   // \s*
	stepSep                      // [\s\-/]*
	stepApos                     // ['\s]?
	stepDotOpt                   // \.?\s*
	stepDotWord                  // (?:\s?\.|\b)\s*
	stepBoundary                 // \b
)

type phraseStep struct {
	kind stepKind
	lit  string
}

// compilePhrase mirrors phraseRE step by step; the pattern phraseRE writes
// stays the reference (the lexicon's full expression is built from it).
func compilePhrase(p string) phraseProg {
	f := foldString(strings.TrimSpace(p))
	isWord := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
	}
	var prog phraseProg
	lit := func(s string) {
		if n := len(prog); n > 0 && prog[n-1].kind == stepLit {
			prog[n-1].lit += s
			return
		}
		prog = append(prog, phraseStep{kind: stepLit, lit: s})
	}
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == ' ':
			prog = append(prog, phraseStep{kind: stepSpaces})
		case c == '.':
			if i > 0 && isWord(f[i-1]) {
				prog = append(prog, phraseStep{kind: stepDotWord})
			} else {
				prog = append(prog, phraseStep{kind: stepDotOpt})
			}
		case c == '-' || c == '/':
			prog = append(prog, phraseStep{kind: stepSep})
		case c == '\'':
			prog = append(prog, phraseStep{kind: stepApos})
		default:
			// phraseRE quotes string(c): a byte above 0x7f becomes the
			// rune of that value, so match its UTF-8 form, as regexp does.
			lit(string(rune(c)))
		}
	}
	if len(f) > 0 && isWord(f[len(f)-1]) {
		prog = append(prog, phraseStep{kind: stepBoundary})
	}
	return prog
}

// isRESpace is regexp's \s: [\t\n\f\r ].
func isRESpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// wordAt reports whether t[i] is a \b word byte; outside t is not.
func wordAt(t string, i int) bool { return i >= 0 && i < len(t) && isREWordByte(t[i]) }

// atBoundary is regexp's \b at position i of t (t is the whole text the
// anchored pattern sees).
func atBoundary(t string, i int) bool { return wordAt(t, i-1) != wordAt(t, i) }

// mayOpen reports whether t opens with the phrase's first literal (when
// it has one): longestAt's first step, without setting up the position
// sets, for the many phrases that share a key ("tot") and differ after.
func (prog phraseProg) mayOpen(t string) bool {
	return len(prog) == 0 || prog[0].kind != stepLit || strings.HasPrefix(t, prog[0].lit)
}

// longestAt returns the end of the longest match of prog anchored at the
// start of t, or -1. pos and next are scratch sets of reachable positions.
func (prog phraseProg) longestAt(t string, pos, next []int) int {
	return prog.longestAfter(t, 0, pos, next)
}

// longestAfter is longestAt with the match already at p: the steps run
// from there on t, the text from where the match starts.
func (prog phraseProg) longestAfter(t string, p int, pos, next []int) int {
	// Most phrases are literals, boundaries and spaces before a word:
	// while only one position is reachable, follow it without the sets.
	i := 0
walk:
	for ; i < len(prog); i++ {
		st := &prog[i]
		switch st.kind {
		case stepLit:
			if !hasLitAt(t, p, st.lit) {
				return -1
			}
			p += len(st.lit)
		case stepBoundary:
			if !atBoundary(t, p) {
				return -1
			}
		case stepSpaces, stepSep:
			// \s* before a literal that opens with a byte \s* does not
			// take: only the end of the run can go on to the literal.
			if i+1 == len(prog) || prog[i+1].kind != stepLit || takes(st.kind, prog[i+1].lit[0]) {
				break walk
			}
			for p < len(t) && takes(st.kind, t[p]) {
				p++
			}
		case stepDotOpt, stepDotWord, stepApos:
			// Before a literal that opens with neither a dot, an
			// apostrophe nor a \s byte, one of the step's ends at most
			// can go on to it (optStepEnd): "inv. no", "n' de".
			if i+1 == len(prog) || prog[i+1].kind != stepLit || !optStepFollows(prog[i+1].lit[0]) {
				break walk
			}
			q, ok := optStepEnd(t, p, st.kind)
			if !ok {
				return -1
			}
			p = q
		default:
			break walk
		}
	}
	if i == len(prog) {
		return p
	}
	return prog[i:].longestFrom(t, p, pos, next)
}

// optStepFollows reports whether a literal opening with c, after a
// stepDotOpt, stepDotWord or stepApos, leaves that step one end to try:
// every other end the step reaches lies on a dot, an apostrophe or a \s
// byte (those the step itself may read), where such a literal fails.
func optStepFollows(c byte) bool { return c != '.' && c != '\'' && !isRESpace(c) }

// optStepEnd returns the one end of a stepDotOpt (\.?\s*), stepDotWord
// ((?:\s?\.|\b)\s*) or stepApos (['\s]?) step from p on t that a
// literal optStepFollows may follow, and false where there is none.
func optStepEnd(t string, p int, k stepKind) (int, bool) {
	if k == stepApos {
		if p < len(t) && (t[p] == '\'' || isRESpace(t[p])) {
			p++
		}
		return p, true
	}
	switch {
	case p < len(t) && t[p] == '.':
		p++
	case k == stepDotWord && p+1 < len(t) && isRESpace(t[p]) && t[p+1] == '.':
		p += 2
	case k == stepDotWord && !atBoundary(t, p):
		return 0, false
	}
	for p < len(t) && isRESpace(t[p]) {
		p++
	}
	return p, true
}

// takes reports whether a \s* (stepSpaces) or [\s\-/]* (stepSep) step
// reads c.
func takes(k stepKind, c byte) bool {
	return isRESpace(c) || k == stepSep && (c == '-' || c == '/')
}

// hasLitAt is strings.HasPrefix(t[p:], lit), without the call for the
// short literals phrases are made of.
func hasLitAt(t string, p int, lit string) bool {
	if len(t)-p < len(lit) {
		return false
	}
	for k := 0; k < len(lit); k++ {
		if t[p+k] != lit[k] {
			return false
		}
	}
	return true
}

// addPos adds p to the set next; positions arrive mostly in increasing
// order, so a repeat is the last one or near it.
func addPos(next []int, p int) []int {
	for _, q := range next {
		if q == p {
			return next
		}
	}
	return append(next, p)
}

// longestFrom is longestAt from position p0 of t, with every position the
// steps may reach followed as a set.
func (prog phraseProg) longestFrom(t string, p0 int, pos, next []int) int {
	pos = append(pos[:0], p0)
	for i := range prog {
		st := &prog[i]
		next = next[:0]
		for _, p := range pos {
			switch st.kind {
			case stepLit:
				if hasLitAt(t, p, st.lit) {
					next = addPos(next, p+len(st.lit))
				}
			case stepSpaces, stepSep:
				for q := p; ; q++ {
					next = addPos(next, q)
					if q >= len(t) || !takes(st.kind, t[q]) {
						break
					}
				}
			case stepApos:
				next = addPos(next, p)
				if p < len(t) && (t[p] == '\'' || isRESpace(t[p])) {
					next = addPos(next, p+1)
				}
			case stepDotOpt, stepDotWord:
				var starts [3]int
				n := 0
				if st.kind == stepDotOpt {
					starts[n] = p
					n++
				} else if atBoundary(t, p) {
					starts[n] = p
					n++
				}
				if p < len(t) && t[p] == '.' {
					starts[n] = p + 1
					n++
				}
				if st.kind == stepDotWord && p+1 < len(t) && isRESpace(t[p]) && t[p+1] == '.' {
					starts[n] = p + 2
					n++
				}
				for _, s := range starts[:n] {
					for q := s; ; q++ {
						next = addPos(next, q)
						if q >= len(t) || !isRESpace(t[q]) {
							break
						}
					}
				}
			case stepBoundary:
				if atBoundary(t, p) {
					next = addPos(next, p)
				}
			}
		}
		if len(next) == 0 {
			return -1
		}
		pos, next = next, pos
	}
	best := -1
	for _, p := range pos {
		best = max(best, p)
	}
	return best
}

// phraseGroup is the phrases of a lexicon key that open with the same
// literal ("total" of "total", "total due", "total amount incl."), that
// literal cut off: find compares it once for the group, not once to pick
// each phrase and again as its first step.
type phraseGroup struct {
	lit   string
	rests []phraseProg
	needs []restNeed // per rest: the byte it must find first (restNeedOf)
}

// restNeed is the byte a phrase's rest must read first, where its first
// step is a literal, or \s* or [\s\-/]* before one that opens with a byte
// they do not take: longestAfter walks exactly there and fails on any
// other byte. The group looks at that byte once for all its rests, not
// once per rest inside longestAfter (many rests share a group: "total",
// "total due", "total amount", ...).
type restNeed struct {
	skip byte // needNone, needAt, needAfterSpaces, needAfterSep
	b    byte
}

const (
	needNone        = iota // no byte known: run the rest
	needAt                 // b at the rest's start
	needAfterSpaces        // b after the run of \s there
	needAfterSep           // b after the run of [\s\-/] there
)

// restNeedOf returns the byte rest needs first, if it has one.
func restNeedOf(rest phraseProg) restNeed {
	switch {
	case len(rest) == 0:
		return restNeed{}
	case rest[0].kind == stepLit:
		return restNeed{needAt, rest[0].lit[0]}
	case len(rest) > 1 && rest[1].kind == stepLit && (rest[0].kind == stepSpaces || rest[0].kind == stepSep) &&
		!takes(rest[0].kind, rest[1].lit[0]):
		if rest[0].kind == stepSpaces {
			return restNeed{needAfterSpaces, rest[1].lit[0]}
		}
		return restNeed{needAfterSep, rest[1].lit[0]}
	}
	return restNeed{}
}

// byteAfterRun returns the first byte of t from p on that a \s* (or
// [\s\-/]*) step does not take, -1 at the end.
func byteAfterRun(t string, p int, k stepKind) int {
	for p < len(t) && takes(k, t[p]) {
		p++
	}
	if p == len(t) {
		return -1
	}
	return int(t[p])
}

// longest returns the end of the longest match of the group's phrases on
// t, whose start holds the group's literal; -1 for none. pos and next are
// longestAfter's scratch sets.
func (g *phraseGroup) longest(t string, pos, next []int) int {
	p := len(g.lit)
	at, afterSpaces, afterSep := -1, -2, -2
	if p < len(t) {
		at = int(t[p])
	}
	best := -1
	for i, rest := range g.rests {
		switch n := g.needs[i]; n.skip {
		case needAt:
			if at != int(n.b) {
				continue
			}
		case needAfterSpaces:
			if afterSpaces == -2 {
				afterSpaces = byteAfterRun(t, p, stepSpaces)
			}
			if afterSpaces != int(n.b) {
				continue
			}
		case needAfterSep:
			if afterSep == -2 {
				afterSep = byteAfterRun(t, p, stepSep)
			}
			if afterSep != int(n.b) {
				continue
			}
		}
		best = max(best, rest.longestAfter(t, p, pos, next))
	}
	return best
}

// addToGroup adds a phrase that opens with a literal to the key's groups.
func addToGroup(groups []phraseGroup, prog phraseProg) []phraseGroup {
	if len(prog) == 0 || prog[0].kind != stepLit {
		panic("rules: a keyed phrase opens with a literal")
	}
	rest := prog[1:]
	for i := range groups {
		if groups[i].lit == prog[0].lit {
			groups[i].rests = append(groups[i].rests, rest)
			groups[i].needs = append(groups[i].needs, restNeedOf(rest))
			return groups
		}
	}
	return append(groups, phraseGroup{lit: prog[0].lit, rests: []phraseProg{rest}, needs: []restNeed{restNeedOf(rest)}})
}

// newSpan returns the match [s, e] as a two-int slice cut from spans, a
// backing array for several (its capacity capped, so the caller may set
// its ends as it could regexp's), and what is left of spans: one
// allocation per four matches instead of one per match.
func newSpan(spans []int, s, e int) ([]int, []int) {
	if cap(spans)-len(spans) < 2 {
		spans = make([]int, 0, 8)
	}
	spans = append(spans, s, e)
	n := len(spans)
	return spans[n-2 : n : n], spans
}
