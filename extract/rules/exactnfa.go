package rules

import (
	"math/bits"
	"regexp/syntax"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// exactNFA runs a regexp's own program (compileProg) over a text with bit
// sets of program counters, assertions (^, $, \b) included, on any UTF-8:
// it answers what the regexp answers about whether and where matches end,
// without the regexp package, whose backtracker clears a bitmap the size of
// program times text on every call (about 5k instructions for a heading
// cell). Unlike asciiNFA it never hands a text back: a byte above 0x7f is
// decoded as regexp decodes it and tried against each live rune
// instruction, and an assertion is tested against the runes on either side
// of the position (syntax.EmptyOpContext), as regexp tests it.
//
// It does not follow the regexp's preference among matches (leftmost
// first): it returns the set of ends, and the caller decides from them
// where that preference cannot matter (one end only, or a yes-or-no
// question).
type exactNFA struct {
	prog *syntax.Prog
	ws   int // words of a set the program uses
	// ctxOf maps the assertion flags that hold at a position, masked by
	// the ones the program tests (mask), to a row of clos.
	mask  syntax.EmptyOp
	ctxOf [64]uint8
	// clos[(ctx*len(prog.Inst)+pc)*ws:][:ws] is the closure of pc over empty
	// moves under the assertions of context ctx, holding its rune and match
	// instructions only; filled for the start and for each rune
	// instruction's out, the only places a thread begins a step.
	clos []uint64
	// accept[b*ws:][:ws] holds the rune instructions that accept the
	// ASCII byte b.
	accept []uint64
	out    []uint32 // a rune instruction's out
	match  pcSet    // the match instruction(s)
	runes  pcSet    // the rune instructions
	start  uint32
	// dfas are the DFAs (exactDFA) for anchoredEnds and matchAnywhere.
	dfas [2]lazyDFA
}

// lazyDFA is a DFA built once its program has run dfaAfter times as an
// NFA: building one costs as much as a few hundred runs, which a run of
// invx on one document would not win back.
type lazyDFA struct {
	d     atomic.Pointer[exactDFA]
	calls atomic.Int32
	once  sync.Once
	none  atomic.Bool // built, and too large
}

// dfaAfter is how many NFA runs a program makes before its DFA is built.
const dfaAfter = 64

// dfa returns the DFA for anchored or unanchored runs, or nil: not yet
// built, or too large.
func (n *exactNFA) dfa(anchored bool) *exactDFA {
	l := &n.dfas[b2u(anchored)]
	if d := l.d.Load(); d != nil {
		return d
	}
	if l.none.Load() || l.calls.Add(1) <= dfaAfter {
		return nil
	}
	l.once.Do(func() {
		if d := newExactDFA(n, anchored); d != nil {
			l.d.Store(d)
		} else {
			l.none.Store(true)
		}
	})
	return l.d.Load()
}

// newExactNFA compiles src; false when its program is larger than a pcSet.
func newExactNFA(src string) (*exactNFA, bool) {
	prog := compileProg(src)
	np := len(prog.Inst)
	if np > maxNFA {
		return nil, false
	}
	n := &exactNFA{prog: prog, ws: (np + 63) / 64, start: uint32(prog.Start), out: make([]uint32, np)}
	kernel := []uint32{n.start}
	for pc := range prog.Inst {
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			n.runes.add(pc)
			n.out[pc] = in.Out
			kernel = append(kernel, in.Out)
		case syntax.InstMatch:
			n.match.add(pc)
		case syntax.InstEmptyWidth:
			n.mask |= syntax.EmptyOp(in.Arg)
		}
	}
	// The contexts a position can have: whether a rune is on either side,
	// and whether it is a newline or a word character, decide them.
	var ctxs []syntax.EmptyOp
	sides := []rune{-1, '\n', 'a', ' '}
	for _, r1 := range sides {
		for _, r2 := range sides {
			c := syntax.EmptyOpContext(r1, r2) & n.mask
			k := -1
			for i, d := range ctxs {
				if d == c {
					k = i
				}
			}
			if k < 0 {
				k = len(ctxs)
				ctxs = append(ctxs, c)
			}
			n.ctxOf[c] = uint8(k)
		}
	}
	n.clos = make([]uint64, len(ctxs)*np*n.ws)
	seen := make([]int, np) // the walk that last saw pc, from 1
	walks := 0
	for k, c := range ctxs {
		for _, pc := range kernel {
			set := n.clos[(k*np+int(pc))*n.ws:][:n.ws]
			if !isEmptySet(set) {
				continue
			}
			walks++
			epsilonWalk(prog, pc, seen, walks, func(op syntax.EmptyOp) bool { return op&^c == 0 }, func(pc uint32) {
				if prog.Inst[pc].Op != syntax.InstFail {
					set[pc/64] |= 1 << (pc % 64)
				}
			})
		}
	}
	n.accept = make([]uint64, utf8.RuneSelf*n.ws)
	for pc := range prog.Inst {
		if !n.runes.has(pc) {
			continue
		}
		in := &prog.Inst[pc]
		if in.Op == syntax.InstRune1 {
			// One rune, exactly (regexp's backtracker compares it so).
			if r := in.Rune[0]; r < utf8.RuneSelf {
				n.accept[int(r)*n.ws+pc/64] |= 1 << (pc % 64)
			}
			continue
		}
		for b := range utf8.RuneSelf {
			if in.MatchRune(rune(b)) {
				n.accept[b*n.ws+pc/64] |= 1 << (pc % 64)
			}
		}
	}
	return n, true
}

func isEmptySet(s []uint64) bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// run steps the program over s from its start: anchored, threads begin at
// 0 only, and ends reports each position where a match ends (stop true
// ends the run); unanchored, a thread begins at every rune boundary.
func (n *exactNFA) run(s string, anchored bool, ends func(p int) (stop bool)) {
	var kern pcSet
	kern.add(int(n.start))
	n.runFrom(s, 0, kern, -1, anchored, ends)
}

// runFrom is run from position p, with the threads kern about to begin
// their closure there and prev the rune before p (-1 for none).
func (n *exactNFA) runFrom(s string, p int, kern pcSet, prev rune, anchored bool, ends func(p int) (stop bool)) {
	np, ws := len(n.prog.Inst), n.ws
	var cur pcSet
	for {
		r, w := rune(-1), 0
		if p < len(s) {
			if b := s[p]; b < utf8.RuneSelf {
				r, w = rune(b), 1
			} else {
				r, w = utf8.DecodeRuneInString(s[p:])
			}
		}
		if !anchored {
			kern.add(int(n.start))
		}
		row := int(n.ctxOf[syntax.EmptyOpContext(prev, r)&n.mask]) * np
		cur = pcSet{}
		for k := 0; k < ws; k++ {
			for word := kern[k]; word != 0; word &= word - 1 {
				c := n.clos[(row+k*64+bits.TrailingZeros64(word))*ws:][:ws]
				for j := range c {
					cur[j] |= c[j]
				}
			}
		}
		if meetsIn(&cur, &n.match, ws) && ends(p) {
			return
		}
		if w == 0 {
			return
		}
		kern = pcSet{}
		live := false
		if r < utf8.RuneSelf {
			acc := n.accept[int(r)*ws:][:ws]
			for k := range acc {
				for word := cur[k] & acc[k]; word != 0; word &= word - 1 {
					kern.add(int(n.out[k*64+bits.TrailingZeros64(word)]))
					live = true
				}
			}
		} else {
			for k := 0; k < ws; k++ {
				for word := cur[k] & n.runes[k]; word != 0; word &= word - 1 {
					pc := k*64 + bits.TrailingZeros64(word)
					if n.prog.Inst[pc].MatchRune(r) {
						kern.add(int(n.out[pc]))
						live = true
					}
				}
			}
		}
		if !live && anchored {
			return
		}
		prev = r
		p += w
	}
}

// anchoredEnds returns the shortest and the longest end of the matches
// that start at 0 (-1, -1 for none).
func (n *exactNFA) anchoredEnds(s string) (lo, hi int) {
	lo, hi = -1, -1
	d := n.dfa(true)
	if d == nil {
		n.run(s, true, func(p int) bool {
			if lo < 0 {
				lo = p
			}
			hi = p
			return false
		})
		return lo, hi
	}
	st := 0
	for p := 0; p < len(s); p++ {
		b := s[p]
		if b >= utf8.RuneSelf {
			n.runFrom(s, p, d.sets[st], classRune[d.prev[st]], true, func(p int) bool {
				if lo < 0 {
					lo = p
				}
				hi = p
				return false
			})
			return lo, hi
		}
		k := st*d.ncol + int(d.col[b])
		if d.matchBefore[k] {
			if lo < 0 {
				lo = p
			}
			hi = p
		}
		if st = int(d.trans[k]); st < 0 {
			return lo, hi
		}
	}
	if d.matchEnd[st] {
		if lo < 0 {
			lo = len(s)
		}
		hi = len(s)
	}
	return lo, hi
}

// matchAnywhere reports whether the regexp matches somewhere in s.
func (n *exactNFA) matchAnywhere(s string) bool {
	d := n.dfa(false)
	if d == nil {
		found := false
		n.run(s, false, func(int) bool { found = true; return true })
		return found
	}
	st := 0
	for p := 0; p < len(s); p++ {
		b := s[p]
		if b >= utf8.RuneSelf {
			found := false
			n.runFrom(s, p, d.sets[st], classRune[d.prev[st]], false, func(int) bool { found = true; return true })
			return found
		}
		k := st*d.ncol + int(d.col[b])
		if d.matchBefore[k] {
			return true
		}
		st = int(d.trans[k]) // never dead: a thread begins at every byte
	}
	return d.matchEnd[st]
}

// exactDFA is an exactNFA's sets numbered once over ASCII text (subset
// construction, after dfaAfter runs), so a byte costs a table read, not a closure over the
// live threads' sets (the title regexps run a few hundred threads). A
// state is the set of threads about to begin their closure at a position
// and the class of the byte before it (none, newline, word character,
// other): with the next byte's class, that decides the assertions there.
type exactDFA struct {
	col  [utf8.RuneSelf]uint8 // byte -> column
	ncol int
	// trans[st*ncol+col] is the state after reading a byte of col, -1
	// when no thread is left; matchBefore there says whether a match ends
	// before that byte; matchEnd[st] whether one ends at the end of the
	// text.
	trans       []int16
	matchBefore []bool
	matchEnd    []bool
	// sets and prev are each state's threads and byte class, for the NFA
	// to go on from at a byte above 0x7f.
	sets []pcSet
	prev []uint8
}

// The byte classes an assertion tells apart, and a rune of each.
const (
	classNone = iota
	classNewline
	classWord
	classOther
)

var classRune = [4]rune{-1, '\n', 'a', ' '}

func byteClass(b byte) uint8 {
	switch {
	case b == '\n':
		return classNewline
	case syntax.IsWordChar(rune(b)):
		return classWord
	}
	return classOther
}

// maxExactDFAStates bounds the construction: past it the program runs
// as an NFA.
const maxExactDFAStates = 2048

// newExactDFA numbers the states n reaches over ASCII bytes; anchored
// false begins a thread at every position. Nil when there are too many.
func newExactDFA(n *exactNFA, anchored bool) *exactDFA {
	np, ws := len(n.prog.Inst), n.ws
	d := &exactDFA{}
	var reps []byte // one byte of each column
	d.col, reps = byteClasses(func(a, b byte) bool {
		return byteClass(a) == byteClass(b) && slicesEqual(n.accept[int(a)*ws:][:ws], n.accept[int(b)*ws:][:ws])
	})
	d.ncol = len(reps)
	type key struct {
		set  pcSet
		prev uint8
	}
	var start pcSet
	start.add(int(n.start))
	ids := map[key]int16{{start, classNone}: 0}
	d.sets = []pcSet{start}
	d.prev = []uint8{classNone}
	closure := func(kern *pcSet, prev, next rune) (cur pcSet) {
		row := int(n.ctxOf[syntax.EmptyOpContext(prev, next)&n.mask]) * np
		for k := 0; k < ws; k++ {
			for word := kern[k]; word != 0; word &= word - 1 {
				c := n.clos[(row+k*64+bits.TrailingZeros64(word))*ws:][:ws]
				for j := range c {
					cur[j] |= c[j]
				}
			}
		}
		return cur
	}
	for i := 0; i < len(d.sets); i++ {
		kern, prev := d.sets[i], classRune[d.prev[i]]
		end := closure(&kern, prev, -1)
		d.matchEnd = append(d.matchEnd, meetsIn(&end, &n.match, ws))
		for _, b := range reps {
			cur := closure(&kern, prev, rune(b))
			d.matchBefore = append(d.matchBefore, meetsIn(&cur, &n.match, ws))
			var nxt pcSet
			acc := n.accept[int(b)*ws:][:ws]
			for k := range acc {
				for word := cur[k] & acc[k]; word != 0; word &= word - 1 {
					nxt.add(int(n.out[k*64+bits.TrailingZeros64(word)]))
				}
			}
			if !anchored {
				nxt.add(int(n.start))
			} else if nxt == (pcSet{}) {
				d.trans = append(d.trans, -1)
				continue
			}
			kk := key{nxt, byteClass(b)}
			id, ok := ids[kk]
			if !ok {
				if len(d.sets) == maxExactDFAStates {
					return nil
				}
				id = int16(len(d.sets))
				ids[kk] = id
				d.sets = append(d.sets, nxt)
				d.prev = append(d.prev, kk.prev)
			}
			d.trans = append(d.trans, id)
		}
	}
	return d
}

func slicesEqual(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// firstEnd returns the end of the match regexp finds at 0 (-1 for none):
// of the matches there, the one its preference (leftmost first) picks. It
// runs the threads in the order regexp's own NFA does (an alternation's
// first branch first, a thread seen at a position only once) and, when
// one matches, drops those after it, as regexp does; for the texts whose
// matches end at more than one place ("nr." for "nr\b\.?").
func (n *exactNFA) firstEnd(s string) int {
	var on pcSet
	var clist, nlist []uint32
	var add func(pc uint32, ctx syntax.EmptyOp)
	add = func(pc uint32, ctx syntax.EmptyOp) {
		if on.has(int(pc)) {
			return
		}
		on.add(int(pc))
		in := &n.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			add(in.Out, ctx)
			add(in.Arg, ctx)
		case syntax.InstCapture, syntax.InstNop:
			add(in.Out, ctx)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^ctx == 0 {
				add(in.Out, ctx)
			}
		case syntax.InstMatch, syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			nlist = append(nlist, pc)
		}
	}
	r, w := progRuneAt(s, 0)
	add(n.start, syntax.EmptyOpContext(-1, r))
	matched := -1
	for p := 0; len(nlist) > 0; p += w {
		clist, nlist = nlist, clist[:0]
		on = pcSet{}
		r, w = progRuneAt(s, p)
		next, _ := progRuneAt(s, p+w)
		ctx := syntax.EmptyOpContext(r, next)
		for _, pc := range clist {
			in := &n.prog.Inst[pc]
			if in.Op == syntax.InstMatch {
				matched = p
				break // the threads after it lose to it
			}
			if w > 0 && in.MatchRune(r) {
				add(in.Out, ctx)
			}
		}
		if w == 0 {
			break
		}
	}
	return matched
}

// progRuneAt decodes the rune at s[p:] as regexp does; -1, 0 at the end.
func progRuneAt(s string, p int) (rune, int) {
	if p >= len(s) {
		return -1, 0
	}
	if b := s[p]; b < utf8.RuneSelf {
		return rune(b), 1
	}
	return utf8.DecodeRuneInString(s[p:])
}
