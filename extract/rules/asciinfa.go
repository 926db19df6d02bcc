package rules

import (
	"math/bits"
	"regexp/syntax"
	"unicode/utf8"
)

// asciiNFA runs a small regexp (no assertions) anchored at the start of a
// text, leftmost-longest, over ASCII bytes with bit sets of program
// counters, without the regexp package: Go's backtracker clears a bitmap
// the size of program times text on every call, and reLegalForm asked it
// about every "s", "a", "e" and "c" of a letterhead. The program is the one
// regexp compiles (syntax.Parse with Perl flags, Simplify, Compile), so on
// ASCII text the set of ends is regexp's. A byte above 0x7f where a thread
// still runs is a rune the matcher does not decode: longestAt then says
// so, and the caller asks the regexp.
type asciiNFA struct {
	// start is the closure of the start instruction over empty moves.
	start pcSet
	// accept[b] holds the rune instructions that accept byte b (< 0x80).
	accept [utf8.RuneSelf]pcSet
	// next[pc] is the closure of a rune instruction's out over empty moves.
	next []pcSet
	// match holds the match instruction(s); runes the rune instructions.
	match, runes pcSet
	// words is how many words of a pcSet the program uses: most programs
	// fit one or two of the eight, and longestAt reads no more.
	words int
	// dead2[b0] holds, as bits, the bytes b1 after which no thread is left
	// and none has matched: a text opening with b0 b1 has no match, known
	// without stepping (most texts a filter is asked about die there).
	dead2 [utf8.RuneSelf][2]uint64
	// dfa is the program's sets numbered once, for a program of more
	// than two words (longestAtN's); nil for the others and for one with
	// too many sets.
	dfa *asciiDFA
}

// maxNFA is how many instructions a pcSet holds.
const maxNFA = 512

// pcSet is a set of program counters.
type pcSet [maxNFA / 64]uint64

func (s *pcSet) add(pc int)      { s[pc/64] |= 1 << (pc % 64) }
func (s *pcSet) has(pc int) bool { return s[uint(pc)/64]&(1<<(uint(pc)%64)) != 0 }

// newASCIINFA compiles src; ok is false when the program uses what the
// matcher does not run (an assertion) or is too large: keep the regexp.
func newASCIINFA(src string) (*asciiNFA, bool) { return buildASCIINFA(src, false) }

// newASCIIFilter compiles src with its assertions (^, $, \b) passed over
// as if they held: it matches wherever src does and more, so where it
// finds no match at the start of a text, neither does src.
func newASCIIFilter(src string) (*asciiNFA, bool) { return buildASCIINFA(src, true) }

// compileProg is src's program as regexp compiles it (Perl syntax,
// simplified); src is the package's own, so an error is a bug.
func compileProg(src string) *syntax.Prog {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		panic("rules: " + err.Error())
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		panic("rules: " + err.Error())
	}
	return prog
}

func buildASCIINFA(src string, loose bool) (*asciiNFA, bool) {
	prog := compileProg(src)
	if len(prog.Inst) > maxNFA {
		return nil, false
	}
	n := &asciiNFA{next: make([]pcSet, len(prog.Inst)), words: (len(prog.Inst) + 63) / 64}
	ok := true
	// closure adds pc and what it reaches without reading a rune.
	var closure func(set *pcSet, pc uint32)
	closure = func(set *pcSet, pc uint32) {
		if set.has(int(pc)) {
			return
		}
		set.add(int(pc))
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			closure(set, in.Out)
			closure(set, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			closure(set, in.Out)
		case syntax.InstMatch:
			n.match.add(int(pc))
		case syntax.InstEmptyWidth:
			if loose {
				closure(set, in.Out)
			} else {
				ok = false
			}
		}
	}
	closure(&n.start, uint32(prog.Start))
	for pc := range prog.Inst {
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			closure(&n.next[pc], in.Out)
			n.runes.add(pc)
			for b := range utf8.RuneSelf {
				if in.MatchRune(rune(b)) {
					n.accept[b].add(pc)
				}
			}
		}
	}
	if !ok {
		return nil, false
	}
	n.fillDead2()
	if n.words > 2 {
		n.dfa = newASCIIDFA(n)
	}
	return n, true
}

// step returns the set cur reaches by reading the ASCII byte b.
func (n *asciiNFA) step(cur *pcSet, b byte) (nxt pcSet) {
	for pc := range n.next {
		if cur.has(pc) && n.accept[b].has(pc) {
			for k := range nxt {
				nxt[k] |= n.next[pc][k]
			}
		}
	}
	return nxt
}

// fillDead2 fills dead2 by stepping the program over every two ASCII
// bytes whose first one leaves a thread.
func (n *asciiNFA) fillDead2() {
	if meetsIn(&n.start, &n.match, len(n.start)) {
		return // the empty match at 0: no text is without a match
	}
	for b0 := range utf8.RuneSelf {
		c1 := n.step(&n.start, byte(b0))
		if c1 == (pcSet{}) {
			n.dead2[b0] = [2]uint64{^uint64(0), ^uint64(0)}
			continue
		}
		if meetsIn(&c1, &n.match, len(c1)) {
			continue
		}
		for b1 := range utf8.RuneSelf {
			if n.step(&c1, byte(b1)) == (pcSet{}) {
				n.dead2[b0][b1/64] |= 1 << (b1 % 64)
			}
		}
	}
}

// longestAt returns the end of the longest match at the start of s (-1
// for none), or ok false when a byte above 0x7f was reached by a live
// thread: the regexp must decide.
func (n *asciiNFA) longestAt(s string) (end int, ok bool) {
	if len(s) >= 2 && s[0] < utf8.RuneSelf && s[1] < utf8.RuneSelf && n.dead2[s[0]][s[1]/64]&(1<<(s[1]%64)) != 0 {
		return -1, true
	}
	if n.words <= 2 {
		return n.longestAt2(s)
	}
	if n.dfa != nil {
		return n.dfa.longestAt(s)
	}
	return n.longestAtN(s)
}

// longestAtN is longestAt for a program of any size.
func (n *asciiNFA) longestAtN(s string) (end int, ok bool) {
	end = -1
	ws := n.words
	cur := n.start
	for p := 0; ; p++ {
		if meetsIn(&cur, &n.match, ws) {
			end = p
		}
		if p == len(s) {
			return end, true
		}
		b := s[p]
		if b >= utf8.RuneSelf {
			// A thread still reading runes could take this one.
			if meetsIn(&cur, &n.runes, ws) {
				return 0, false
			}
			return end, true
		}
		acc := &n.accept[b]
		var nxt pcSet
		live := false
		for w := 0; w < ws; w++ {
			word := cur[w] & acc[w]
			for word != 0 {
				live = true
				i := bits.TrailingZeros64(word)
				word &^= 1 << i
				next := &n.next[w*64+i]
				for k := 0; k < ws; k++ {
					nxt[k] |= next[k]
				}
			}
		}
		if !live {
			return end, true
		}
		cur = nxt
	}
}

// meetsIn reports whether s and t share a member in their first ws words.
func meetsIn(s, t *pcSet, ws int) bool {
	var x uint64
	for i := 0; i < ws; i++ {
		x |= s[i] & t[i]
	}
	return x != 0
}

// longestAt2 is longestAt for a program of at most 128 instructions (most
// of them), its sets held in two words: copying and clearing the eight
// words of a pcSet at every byte was most of longestAt's time.
func (n *asciiNFA) longestAt2(s string) (end int, ok bool) {
	end = -1
	c0, c1 := n.start[0], n.start[1]
	m0, m1 := n.match[0], n.match[1]
	for p := 0; ; p++ {
		if c0&m0|c1&m1 != 0 {
			end = p
		}
		if p == len(s) {
			return end, true
		}
		b := s[p]
		if b >= utf8.RuneSelf {
			// A thread still reading runes could take this one.
			if c0&n.runes[0]|c1&n.runes[1] != 0 {
				return 0, false
			}
			return end, true
		}
		acc := &n.accept[b]
		w0, w1 := c0&acc[0], c1&acc[1]
		if w0|w1 == 0 {
			return end, true
		}
		var x0, x1 uint64
		for w0 != 0 {
			nx := &n.next[bits.TrailingZeros64(w0)]
			w0 &= w0 - 1
			x0 |= nx[0]
			x1 |= nx[1]
		}
		for w1 != 0 {
			nx := &n.next[64+bits.TrailingZeros64(w1)]
			w1 &= w1 - 1
			x0 |= nx[0]
			x1 |= nx[1]
		}
		c0, c1 = x0, x1
	}
}
