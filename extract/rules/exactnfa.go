package rules

import (
	"math/bits"
	"regexp/syntax"
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
			var walk func(pc uint32)
			walk = func(pc uint32) {
				if seen[pc] == walks {
					return
				}
				seen[pc] = walks
				in := &prog.Inst[pc]
				switch in.Op {
				case syntax.InstAlt, syntax.InstAltMatch:
					walk(in.Out)
					walk(in.Arg)
				case syntax.InstCapture, syntax.InstNop:
					walk(in.Out)
				case syntax.InstEmptyWidth:
					if syntax.EmptyOp(in.Arg)&^c == 0 {
						walk(in.Out)
					}
				case syntax.InstMatch, syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
					set[pc/64] |= 1 << (pc % 64)
				}
			}
			walk(pc)
		}
	}
	n.accept = make([]uint64, utf8.RuneSelf*n.ws)
	for b := range utf8.RuneSelf {
		for pc := range prog.Inst {
			if n.runes.has(pc) && prog.Inst[pc].MatchRune(rune(b)) {
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
	np, ws := len(n.prog.Inst), n.ws
	var kern, cur pcSet
	kern.add(int(n.start))
	prev := rune(-1)
	for p := 0; ; {
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
	n.run(s, true, func(p int) bool {
		if lo < 0 {
			lo = p
		}
		hi = p
		return false
	})
	return lo, hi
}

// matchAnywhere reports whether the regexp matches somewhere in s.
func (n *exactNFA) matchAnywhere(s string) bool {
	found := false
	n.run(s, false, func(int) bool { found = true; return true })
	return found
}
