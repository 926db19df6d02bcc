package rules

import (
	"math/bits"
	"slices"
	"strings"
)

// lexAll is every indexed lexicon's keyed phrases in one table, so a line
// is searched once for all of them (lineKeys.found) rather than once per
// lexicon it is asked about. Each line is asked about some forty lexicons,
// a label search walked the line's key hits once per lexicon (and again
// after each match), and lexicons share most of their openings ("total",
// "invoice", "tax"): the same literal was compared, and the same phrase
// run, once per lexicon and per search. Here a word beginning's phrases
// are run once, each phrase once however many lexicons list it, and the
// line keeps, per word beginning, each lexicon's longest match.
type lexAll struct {
	slot   []uint16     // by key code: 0 for none, else 1 + index in groups
	groups [][]allGroup // the phrases by key, grouped by their opening literal
	// sel tells, per entry of groups, which of them a word beginning can
	// open: a key opens some dozen literals, and testing each at every
	// word beginning was a fifth of the search.
	sel []groupSel
	// covered holds the lexicons line.find answers from the index: those
	// of the key index (lexKeys) that search by key and are not anchored;
	// anchored the anchored ones, whose matches at a cell's start
	// line.prefixEndAt reads from it.
	covered, anchored lexMask
}

// allGroup is phraseGroup over all lexicons: the rests of the phrases
// that open with lit, each listed once, with the lexicons that hold it.
// The rests are ordered by what they must read first (allNeed), so a word
// beginning runs only those its next byte lets through: "total" opens some
// hundred rests across the lexicons, and testing each one's byte was the
// search's largest cost.
type allGroup struct {
	lit   string
	rests []phraseProg
	needs []allNeed
	lexs  []lexMask // per rest: the lexicons with the phrase
	// The rests in order: first those that need nothing (nNone), then by
	// need kind and byte, each kind's runs listed in runs.
	nNone int
	runs  []needRun
	// The runs by need kind: runs[:nAt] need a byte at the rest's start,
	// [nAt:nSpaces] one after \s*, [nSpaces:nSep] one after [\s\-/]*, and
	// [nSep:] (one at most) a non-word byte; needB is each run's byte. A
	// kind's runs each need another byte, so the text's byte there picks
	// one at most: ends looks it up, not every run's need in turn (that
	// walk, and a call for no rest, were a third of ends).
	needB              string
	nAt, nSpaces, nSep int
	// The non-word run (runs[nSep:], when there is one) in three parts:
	// nBare rests that are the literal alone (a \b after it), which match
	// there at once, for the lexicons in bareLex; then up to dotEnd those
	// a (?:\s?\.|\b)\s* step opens before a literal ("inv. no", "p. o.
	// box"), by the literal's first byte (dotB, one run each in dotRuns),
	// which the text's byte after that step picks; then the others.
	nBare   int
	bareLex lexMask
	dotB    string
	dotRuns []needRun
	dotEnd  int
	// may holds every byte a rest can read first (a superset), and mayEnd
	// whether one can match at the text's end: findAllIn skips the group
	// where the byte after its literal is none of them. One-letter
	// openings ("e", "c", "s": "e-mail", "c/o", "s/n") open at most words
	// and match at few; the call found nothing there.
	may    byteSet
	mayEnd bool
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (b *byteSet) has(c byte) bool { return b[c/64]&(1<<(c%64)) != 0 }

func (b *byteSet) add(c byte) { b[c/64] |= 1 << (c % 64) }

// mayOpenAfter returns the bytes rest can read first at the end of lit (the
// first byte of what follows lit in a match), a superset, and whether it
// can match reading nothing there at the text's end.
func mayOpenAfter(lit string, rest phraseProg) (byteSet, bool) {
	lastWord := lit != "" && isREWordByte(lit[len(lit)-1])
	// reach is the bytes (and end) at the rest's start under which the
	// steps so far can read nothing; first collects what a step reads.
	var reach, first, wordS, nonWord byteSet
	for c := 0; c < 256; c++ {
		reach.add(byte(c))
		if isREWordByte(byte(c)) {
			wordS.add(byte(c))
		} else {
			nonWord.add(byte(c))
		}
	}
	reachEnd := true
	addIf := func(c byte) {
		if reach.has(c) {
			first.add(c)
		}
	}
	addSpaces := func() {
		for _, c := range []byte{' ', '\t', '\n', '\f', '\r'} {
			addIf(c)
		}
	}
	// boundary narrows reach to where \b holds at the rest's start.
	boundary := func() {
		if lastWord {
			reach = and(reach, nonWord)
		} else {
			reach = and(reach, wordS)
			reachEnd = false
		}
	}
	for _, st := range rest {
		switch st.kind {
		case stepLit:
			addIf(st.lit[0])
			return first, false
		case stepSpaces:
			addSpaces()
		case stepSep:
			addSpaces()
			addIf('-')
			addIf('/')
		case stepApos:
			addSpaces()
			addIf('\'')
		case stepDotOpt:
			addSpaces()
			addIf('.')
		case stepDotWord:
			// "\s?\." reads a space or a dot; "\b\s*" reads nothing
			// where \b holds (then perhaps spaces, which it allows).
			addSpaces()
			addIf('.')
			boundary()
		case stepBoundary:
			boundary()
		}
	}
	for w := range first {
		first[w] |= reach[w]
	}
	return first, reachEnd
}

// and is the bytes in both a and b.
func and(a, b byteSet) byteSet {
	for w := range a {
		a[w] &= b[w]
	}
	return a
}

// groupSel is a key's groups in three parts: first (up to nKey) those
// whose literal is the key, which every word beginning with the key opens;
// then (up to nTest) those whose literal is tested whole, as any would be
// (none today: every literal opens with its key); then those whose
// literal is the key's bytes and more, ordered by the byte after the key,
// which next lists (one byte per group): only those with the line's byte
// there are tested. klen is the key's length.
type groupSel struct {
	nKey, nTest int
	klen        int
	next        string
}

// allNeed is what a rest must read first: restNeed's byte, or (needNotWord)
// no word byte where the literal before it ends with one: a \b or
// "(?:\s?\.|\b)" step there ("total", "inv. no") fails inside a longer word.
type allNeed struct {
	skip byte
	b    byte
}

const needNotWord = needAfterSep + 1

// needRun is the rests [lo, hi) that share a need.
type needRun struct {
	need   allNeed
	lo, hi uint16
}

// allNeedOf is restNeedOf, with needNotWord for a rest opening with a
// boundary (or an optional dot before one) after a word byte.
func allNeedOf(lit string, rest phraseProg) allNeed {
	if n := restNeedOf(rest); n.skip != needNone {
		return allNeed{n.skip, n.b}
	}
	if len(rest) > 0 && (rest[0].kind == stepBoundary || rest[0].kind == stepDotWord) &&
		lit != "" && isREWordByte(lit[len(lit)-1]) {
		return allNeed{skip: needNotWord}
	}
	return allNeed{}
}

// lexAllIndex builds the table on first use from the lexicons' compiled
// keyed phrases (their byKey groups), so it holds exactly what each
// lexicon's own search tries.
var lexAllIndex = onFirstUse(func() *lexAll {
	keys := lexKeys()
	x := &lexAll{slot: make([]uint16, keyBits)}
	byKey := map[int][]allGroup{}
	for _, lx := range lexicons[:keys.n] {
		t := lx.tables()
		if t.full || t.byKey == nil {
			continue
		}
		if t.prefix {
			x.anchored[t.id/64] |= 1 << (t.id % 64)
		} else {
			x.covered[t.id/64] |= 1 << (t.id % 64)
		}
		for k, groups := range t.byKey {
			for _, g := range groups {
				byKey[k] = addAllGroup(byKey[k], t.id, g)
			}
		}
	}
	codes := make([]int, 0, len(byKey))
	for k := range byKey {
		codes = append(codes, k)
	}
	slices.Sort(codes) // the same table on every run
	for _, k := range codes {
		groups := byKey[k]
		for i := range groups {
			groups[i].order()
		}
		var sel groupSel
		groups, sel = selectable(groups, keyBytes(k))
		x.groups = append(x.groups, groups)
		x.sel = append(x.sel, sel)
		x.slot[k] = uint16(len(x.groups))
	}
	return x
})

// keyBytes is the prefix whose key code (keyCode) k is.
func keyBytes(k int) string {
	var b []byte
	for ; k > 0; k /= keyBase {
		d := k % keyBase
		switch {
		case d <= 26:
			b = append(b, byte('a'+d-1))
		case d <= 36:
			b = append(b, byte('0'+d-27))
		default:
			b = append(b, '_')
		}
	}
	slices.Reverse(b)
	return string(b)
}

// selectable orders a key's groups for groupSel: those whose literal is
// the key, those a next byte cannot select (a literal not opening with
// the key), then the others by their literal's byte after the key. The
// groups' order changes no match: each lexicon keeps its longest.
func selectable(groups []allGroup, key string) ([]allGroup, groupSel) {
	byNext := func(g *allGroup) bool { return len(g.lit) > len(key) && strings.HasPrefix(g.lit, key) }
	out := make([]allGroup, 0, len(groups))
	for i := range groups {
		if groups[i].lit == key {
			out = append(out, groups[i])
		}
	}
	sel := groupSel{nKey: len(out), klen: len(key)}
	for i := range groups {
		if groups[i].lit != key && !byNext(&groups[i]) {
			out = append(out, groups[i])
		}
	}
	sel.nTest = len(out)
	rest := make([]allGroup, 0, len(groups)-len(out))
	for i := range groups {
		if byNext(&groups[i]) {
			rest = append(rest, groups[i])
		}
	}
	slices.SortStableFunc(rest, func(a, b allGroup) int { return int(a.lit[len(key)]) - int(b.lit[len(key)]) })
	next := make([]byte, len(rest))
	for i := range rest {
		next[i] = rest[i].lit[len(key)]
	}
	sel.next = string(next)
	return append(out, rest...), sel
}

// order sorts the group's rests by need and lists their runs.
func (g *allGroup) order() {
	idx := make([]int, len(g.rests))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		na, nb := g.needs[a], g.needs[b]
		if na.skip != nb.skip {
			return int(na.skip) - int(nb.skip)
		}
		return int(na.b) - int(nb.b)
	})
	rests, needs, lexs := make([]phraseProg, len(idx)), make([]allNeed, len(idx)), make([]lexMask, len(idx))
	for i, j := range idx {
		rests[i], needs[i], lexs[i] = g.rests[j], g.needs[j], g.lexs[j]
	}
	g.rests, g.needs, g.lexs = rests, needs, lexs
	g.nNone, g.runs = 0, nil
	for i := 0; i < len(needs); {
		j := i
		for j < len(needs) && needs[j] == needs[i] {
			j++
		}
		if needs[i].skip == needNone {
			g.nNone = j
		} else {
			g.runs = append(g.runs, needRun{need: needs[i], lo: uint16(i), hi: uint16(j)})
		}
		i = j
	}
	b := make([]byte, len(g.runs))
	g.nAt, g.nSpaces, g.nSep = 0, 0, 0
	for k, r := range g.runs {
		b[k] = r.need.b
		switch r.need.skip {
		case needAt:
			g.nAt, g.nSpaces, g.nSep = k+1, k+1, k+1
		case needAfterSpaces:
			g.nSpaces, g.nSep = k+1, k+1
		case needAfterSep:
			g.nSep = k + 1
		}
	}
	g.needB = string(b)
	g.splitNotWord()
	g.may, g.mayEnd = byteSet{}, false
	for _, rest := range g.rests {
		m, end := mayOpenAfter(g.lit, rest)
		for w := range m {
			g.may[w] |= m[w]
		}
		g.mayEnd = g.mayEnd || end
	}
}

// splitNotWord orders the non-word run's rests as allGroup describes
// (bare, then opened by a dot step by byte, then the others) and lists
// its parts; the run's rests stay the same set.
func (g *allGroup) splitNotWord() {
	g.nBare, g.bareLex, g.dotB, g.dotRuns, g.dotEnd = 0, lexMask{}, "", nil, 0
	if g.nSep == len(g.runs) {
		return
	}
	r := g.runs[g.nSep]
	lo, hi := int(r.lo), int(r.hi)
	bare := func(i int) bool { return len(g.rests[i]) == 1 && g.rests[i][0].kind == stepBoundary }
	dotByte := func(i int) int {
		rest := g.rests[i]
		if len(rest) > 1 && rest[0].kind == stepDotWord && rest[1].kind == stepLit && optStepFollows(rest[1].lit[0]) {
			return int(rest[1].lit[0])
		}
		return -1
	}
	rank := func(i int) int {
		switch {
		case bare(i):
			return 0
		case dotByte(i) >= 0:
			return 1 + dotByte(i)
		}
		return 1 + 256
	}
	idx := make([]int, hi-lo)
	for k := range idx {
		idx[k] = lo + k
	}
	slices.SortStableFunc(idx, func(a, b int) int { return rank(a) - rank(b) })
	rests, needs, lexs := make([]phraseProg, len(idx)), make([]allNeed, len(idx)), make([]lexMask, len(idx))
	for k, i := range idx {
		rests[k], needs[k], lexs[k] = g.rests[i], g.needs[i], g.lexs[i]
	}
	copy(g.rests[lo:hi], rests)
	copy(g.needs[lo:hi], needs)
	copy(g.lexs[lo:hi], lexs)
	i := lo
	for ; i < hi && bare(i); i++ {
		for w := range g.bareLex {
			g.bareLex[w] |= g.lexs[i][w]
		}
	}
	g.nBare = i - lo
	var b []byte
	for i < hi && dotByte(i) >= 0 {
		j, c := i, dotByte(i)
		for j < hi && dotByte(j) == c {
			j++
		}
		b = append(b, byte(c))
		g.dotRuns = append(g.dotRuns, needRun{need: allNeed{skip: needNotWord, b: byte(c)}, lo: uint16(i), hi: uint16(j)})
		i = j
	}
	g.dotB, g.dotEnd = string(b), i
}

// notWord runs the non-word run's rests from p on t, where the byte
// there is no word byte: the bare ones match at p, of those a dot step
// opens only the ones whose literal the byte after that step begins.
func (g *allGroup) notWord(t string, p int, sc *allScratch, at *lexMask) {
	r := &g.runs[g.nSep]
	if g.nBare > 0 {
		for w, m := range g.bareLex {
			at[w] |= m
			for ; m != 0; m &= m - 1 {
				id := w*64 + bits.TrailingZeros64(m)
				sc.ends[id] = max(sc.ends[id], int32(p)+1)
			}
		}
	}
	if len(g.dotB) > 0 {
		if q, ok := optStepEnd(t, p, stepDotWord); ok && q < len(t) {
			if k := indexByteIn(g.dotB, t[q]); k >= 0 {
				g.run(int(g.dotRuns[k].lo), int(g.dotRuns[k].hi), t, p, sc, at)
			}
		}
	}
	if g.dotEnd < int(r.hi) {
		g.run(g.dotEnd, int(r.hi), t, p, sc, at)
	}
}

// mayMatch reports whether the group may match on f at s, where f holds
// its literal: whether a rest may read the byte after it (may, mayEnd).
func (g *allGroup) mayMatch(f string, s int) bool {
	if p := s + len(g.lit); p < len(f) {
		return g.may.has(f[p])
	}
	return g.mayEnd
}

// addAllGroup adds lexicon id's group g to the key's groups.
func addAllGroup(groups []allGroup, id int, g phraseGroup) []allGroup {
	i := slices.IndexFunc(groups, func(a allGroup) bool { return a.lit == g.lit })
	if i < 0 {
		groups = append(groups, allGroup{lit: g.lit})
		i = len(groups) - 1
	}
	a := &groups[i]
	for _, rest := range g.rests {
		j := slices.IndexFunc(a.rests, func(p phraseProg) bool { return slices.Equal(p, rest) })
		if j < 0 {
			a.rests = append(a.rests, rest)
			a.needs = append(a.needs, allNeedOf(g.lit, rest))
			a.lexs = append(a.lexs, lexMask{})
			j = len(a.rests) - 1
		}
		a.lexs[j][id/64] |= 1 << (id % 64)
	}
	return groups
}

// lexFound is a match of an indexed lexicon on a line: at pos, the
// longest of its keyed phrases ends at end.
type lexFound struct {
	pos, end int32
	lex      uint8
}

// findAll appends to out, in line order, each indexed lexicon's longest
// match at every word beginning of f whose keys (hits) open one of its
// keyed phrases, and returns the lexicons with any.
func (x *lexAll) findAll(f string, hits []keyHit, out []lexFound) ([]lexFound, lexMask) {
	var sc allScratch
	return x.findAllIn(&sc, f, hits, out)
}

// allScratch is findAll's working state, kept by gatherKeys for all the
// document's lines: setting up the per-lexicon ends for each line was a
// seventeenth of the search. ends is all zeros between calls.
type allScratch struct {
	ends      [lexMaskWords * 64]int32 // per lexicon: 1 + the longest match's length at s, 0 for none
	pos, next [16]int
}

// findAllIn is findAll with its scratch state in sc.
func (x *lexAll) findAllIn(sc *allScratch, f string, hits []keyHit, out []lexFound) ([]lexFound, lexMask) {
	var found lexMask
	ends := &sc.ends
	for i := 0; i < len(hits); {
		s := int(hits[i].pos)
		var at lexMask
		for ; i < len(hits) && int(hits[i].pos) == s; i++ {
			slot := x.slot[hits[i].key]
			if slot == 0 {
				continue
			}
			// The hit says f holds the key at s: the groups whose
			// literal is the key match, the others are selected by the
			// byte after it.
			gs, sel := x.groups[slot-1], &x.sel[slot-1]
			for gi := range gs[:sel.nKey] {
				if g := &gs[gi]; g.mayMatch(f, s) {
					g.ends(f[s:], sc, &at)
				}
			}
			for gi := sel.nKey; gi < sel.nTest; gi++ {
				if g := &gs[gi]; hasLitAt(f, s, g.lit) && g.mayMatch(f, s) {
					g.ends(f[s:], sc, &at)
				}
			}
			q := s + sel.klen
			if q >= len(f) {
				continue
			}
			c, next := f[q], sel.next
			j := 0
			for j < len(next) && next[j] < c {
				j++
			}
			for ; j < len(next) && next[j] == c; j++ {
				if g := &gs[sel.nTest+j]; hasLitAt(f, q+1, g.lit[sel.klen+1:]) && g.mayMatch(f, s) {
					g.ends(f[s:], sc, &at)
				}
			}
		}
		for w, m := range at {
			for m != 0 {
				id := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				out = append(out, lexFound{pos: int32(s), end: int32(s) + ends[id] - 1, lex: uint8(id)})
				ends[id] = 0
			}
			found[w] |= at[w]
		}
	}
	return out, found
}

// ends is phraseGroup.longest for every lexicon at once: each rest that
// matches t raises the match of the lexicons holding it (sc.ends, 1 + the
// length) and marks them in at. Only the rests whose need t meets run.
func (g *allGroup) ends(t string, sc *allScratch, at *lexMask) {
	p := len(g.lit)
	if g.nNone > 0 {
		g.run(0, g.nNone, t, p, sc, at)
	}
	if len(g.runs) == 0 {
		return
	}
	c := -1
	if p < len(t) {
		c = int(t[p])
	}
	if c >= 0 && g.nAt > 0 {
		if k := indexByteIn(g.needB[:g.nAt], byte(c)); k >= 0 {
			g.run(int(g.runs[k].lo), int(g.runs[k].hi), t, p, sc, at)
		}
	}
	if g.nSpaces > g.nAt {
		if b := byteAfterRun(t, p, stepSpaces); b >= 0 {
			if k := indexByteIn(g.needB[g.nAt:g.nSpaces], byte(b)); k >= 0 {
				r := &g.runs[g.nAt+k]
				g.run(int(r.lo), int(r.hi), t, p, sc, at)
			}
		}
	}
	if g.nSep > g.nSpaces {
		if b := byteAfterRun(t, p, stepSep); b >= 0 {
			if k := indexByteIn(g.needB[g.nSpaces:g.nSep], byte(b)); k >= 0 {
				r := &g.runs[g.nSpaces+k]
				g.run(int(r.lo), int(r.hi), t, p, sc, at)
			}
		}
	}
	if g.nSep < len(g.runs) && (c < 0 || !isREWordByte(byte(c))) {
		g.notWord(t, p, sc, at)
	}
}

// indexByteIn is strings.IndexByte on the few bytes of a group's needs,
// without the call.
func indexByteIn(s string, c byte) int {
	for k := 0; k < len(s); k++ {
		if s[k] == c {
			return k
		}
	}
	return -1
}

// run runs the rests [lo, hi) from p on t, as ends does.
func (g *allGroup) run(lo, hi int, t string, p int, sc *allScratch, at *lexMask) {
	ends := &sc.ends
	for i := lo; i < hi; i++ {
		e := g.rests[i].longestAfter(t, p, sc.pos[:0], sc.next[:0])
		if e < 0 {
			continue
		}
		for w, m := range g.lexs[i] {
			at[w] |= m
			for m != 0 {
				id := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				ends[id] = max(ends[id], int32(e)+1)
			}
		}
	}
}
