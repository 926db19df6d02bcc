package rules

import (
	"regexp"
	"regexp/syntax"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// startRE is a regexp anchored at the start of the text ("^..."), with the
// set of bytes a match can open with, taken from the compiled program: a
// text whose first byte is not in the set is answered without running the
// regexp. Go's backtracker clears a bitmap the size of program times text
// on every call, even one that fails at the first byte, and titleKind asks
// six such expressions about every heading cell.
type startRE struct {
	build func() *startTables // onFirstUse: builds the tables once
	// t holds build's answer after the first call: titleKind asks up to
	// eight of these per heading cell, and going through sync.OnceValue's
	// closure each time cost more than some of the filters it guards.
	t atomic.Pointer[startTables]
}

// get returns the tables, built on first use; safe for concurrent use.
func (x *startRE) get() *startTables {
	if t := x.t.Load(); t != nil {
		return t
	}
	t := x.build()
	x.t.Store(t)
	return t
}

type startTables struct {
	re    *regexp.Regexp
	first [256]bool
	empty bool // the expression may match without reading a byte only after an assertion, or is not anchored: no filter
	// emptyAt0: the expression matches the empty string at the start of
	// any text (a path to the match passes no assertion but "^"), so a
	// text whose first byte opens no longer match yields [0 0], not nil.
	emptyAt0 bool
	need     *needSet // strings one of which a non-empty match holds (guardedRE's), or nil
	// filter is the expression with its assertions passed over
	// (newASCIIFilter), where it is anchored on every path (not empty):
	// most texts it rejects within a few bytes, before need reads them.
	filter *asciiNFA
	// exact is the expression's program run with its assertions, where
	// every match starts at 0: a text whose matches all end at one place
	// is answered without the regexp (most heading cells the filter lets
	// through: "rechnung", "invoice date:"), the others by firstEnd.
	exact *exactNFA // nil unless every match starts at 0 (anchoredOnEveryPath)
}

// anchoredRegexp compiles src (which must start with "^") on first use,
// over folded text like foldedRegexp.
func anchoredRegexp(src string) *startRE {
	if src == "" || src[0] != '^' {
		panic("rules: anchoredRegexp needs a pattern anchored with ^: " + src)
	}
	re := foldedRegexp(src)
	x := &startRE{build: onFirstUse(func() *startTables { return newStartTables(re().Regexp) })}
	startREs = append(startREs, x)
	return x
}

// startREs lists every startRE, so a test can hold each to its regexp.
var startREs []*startRE

func newStartTables(re *regexp.Regexp) *startTables {
	t := &startTables{re: re}
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		panic("rules: " + err.Error())
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		panic("rules: " + err.Error())
	}
	// Each path is followed with whether it has passed the start-of-text
	// assertion (a rune reachable without it, "^a|b", turns the filter
	// off) and whether it has passed any other assertion (an empty match
	// after one, "^(?:$|x)", depends on the text: the filter is off too).
	seen := map[[3]uint32]bool{}
	var walk func(pc uint32, anchored, cond bool)
	walk = func(pc uint32, anchored, cond bool) {
		key := [3]uint32{pc, b2u(anchored), b2u(cond)}
		if seen[key] || t.empty {
			return
		}
		seen[key] = true
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			walk(in.Out, anchored, cond)
			walk(in.Arg, anchored, cond)
		case syntax.InstEmptyWidth:
			// Other assertions are passed over: the set only grows.
			op := syntax.EmptyOp(in.Arg)
			walk(in.Out, anchored || op&syntax.EmptyBeginText != 0, cond || op&^syntax.EmptyBeginText != 0)
		case syntax.InstCapture, syntax.InstNop:
			walk(in.Out, anchored, cond)
		case syntax.InstMatch:
			if cond {
				t.empty = true
				return
			}
			t.emptyAt0 = true
		case syntax.InstFail:
		default:
			if !anchored {
				t.empty = true
				return
			}
			t.addRunes(in)
		}
	}
	walk(uint32(prog.Start), false, false)
	if !t.emptyAt0 {
		t.need = newNeedSet(re.String())
	}
	if !t.empty {
		t.filter, _ = newASCIIFilter(re.String())
	}
	if anchoredOnEveryPath(prog) {
		t.exact, _ = newExactNFA(re.String())
	}
	return t
}

// anchoredOnEveryPath reports whether every path from the program's start
// to a rune or a match passes the start-of-text assertion: then every
// match starts at 0 ("^(?:$|...)" too, which the filter passes over).
func anchoredOnEveryPath(prog *syntax.Prog) bool {
	seen := make([]bool, len(prog.Inst))
	var walk func(pc uint32) bool
	walk = func(pc uint32) bool {
		if seen[pc] {
			return true
		}
		seen[pc] = true
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			return walk(in.Out) && walk(in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			return walk(in.Out)
		case syntax.InstEmptyWidth:
			return syntax.EmptyOp(in.Arg)&syntax.EmptyBeginText != 0 || walk(in.Out)
		case syntax.InstFail:
			return true
		}
		return false // a rune or the match, reached unanchored
	}
	return walk(uint32(prog.Start))
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// addRunes adds the first bytes of the runes a rune instruction accepts.
func (t *startTables) addRunes(in *syntax.Inst) {
	switch in.Op {
	case syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		for c := range t.first {
			t.first[c] = true
		}
		return
	}
	fold := syntax.Flags(in.Arg)&syntax.FoldCase != 0
	rs := in.Rune
	if in.Op == syntax.InstRune1 || len(rs) == 1 {
		rs = []rune{rs[0], rs[0]}
	}
	for k := 0; k+1 < len(rs); k += 2 {
		lo, hi := rs[k], rs[k+1]
		if hi >= utf8.RuneSelf || fold {
			// Any multi-byte rune (or a case fold to one) may open it.
			for c := utf8.RuneSelf; c < 256; c++ {
				t.first[c] = true
			}
		}
		for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
			t.first[r] = true
			if fold {
				t.first[unicode.ToLower(r)] = true
				t.first[unicode.ToUpper(r)] = true
			}
		}
	}
}

// FindStringIndex is regexp's.
func (x *startRE) FindStringIndex(s string) []int {
	if ms, me, ok := x.find(s); ok {
		return []int{ms, me}
	}
	return nil
}

// find is FindStringIndex without the slice: the empty match most heading
// cells get ([0 0]) was the extractor's most frequent allocation.
func (x *startRE) find(s string) (int, int, bool) {
	t := x.get()
	if !t.empty && (s == "" || !t.first[s[0]]) {
		if t.emptyAt0 {
			return 0, 0, true
		}
		return 0, 0, false
	}
	if t.filter != nil {
		// Anchored on every path: only a match at 0 counts, and the
		// filter has none there where the expression has none, and
		// none longer than the expression's longest.
		if end, ok := t.filter.longestAt(s); ok && end < 0 {
			return 0, 0, false
		} else if ok && end == 0 && t.emptyAt0 {
			return 0, 0, true // "^\s*(?:...)?" on most cells: only the empty match
		}
	}
	if t.need != nil && !t.need.in(s) {
		return 0, 0, false
	}
	if t.exact != nil {
		// Every match starts at 0, and the regexp returns one of them:
		// where they all end at one place, that is its answer; where
		// not, firstEnd picks the one the regexp prefers.
		if lo, hi := t.exact.anchoredEnds(s); lo < 0 {
			return 0, 0, false
		} else if lo == hi {
			return 0, lo, true
		}
		return 0, t.exact.firstEnd(s), true
	}
	if m := t.re.FindStringIndex(s); m != nil {
		return m[0], m[1], true
	}
	return 0, 0, false
}

// MatchString is regexp's.
func (x *startRE) MatchString(s string) bool { _, _, ok := x.find(s); return ok }
