package rules

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// goesOnWide reports whether the expression src, having read c, may match
// there or read a rune outside ASCII next: assertions are passed over as
// if they held, so the answer errs towards yes.
func goesOnWide(src string, c rune) bool {
	prog := compileProg(src)
	seen := make([]int, len(prog.Inst))
	var set []uint32
	add := func(pc uint32) { set = append(set, pc) }
	epsilonWalk(prog, uint32(prog.Start), seen, 1, passAny, add)
	start := set
	set = nil
	for _, pc := range start {
		if in := &prog.Inst[pc]; in.Op != syntax.InstMatch && in.Op != syntax.InstFail && in.MatchRune(c) {
			epsilonWalk(prog, in.Out, seen, 2, passAny, add)
		}
	}
	for _, pc := range set {
		if in := &prog.Inst[pc]; in.Op == syntax.InstMatch || mayMatchWide(in) {
			return true
		}
	}
	return false
}

// mayMatchWide reports whether a rune instruction accepts some rune above
// 0x7f, itself or by case folding.
func mayMatchWide(in *syntax.Inst) bool {
	switch in.Op {
	case syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		return true
	case syntax.InstRune, syntax.InstRune1:
	default:
		return false
	}
	fold := syntax.Flags(in.Arg)&syntax.FoldCase != 0
	rs := in.Rune
	if len(rs) == 1 {
		rs = []rune{rs[0], rs[0]}
	}
	for k := 0; k+1 < len(rs); k += 2 {
		lo, hi := rs[k], rs[k+1]
		if hi >= utf8.RuneSelf {
			return true
		}
		for r := lo; fold && r <= hi; r++ {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f >= utf8.RuneSelf {
					return true
				}
			}
		}
	}
	return false
}
