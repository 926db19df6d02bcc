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
	seen := make([]bool, len(prog.Inst))
	var set []uint32
	var closure func(pc uint32)
	closure = func(pc uint32) {
		if seen[pc] {
			return
		}
		seen[pc] = true
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			closure(in.Out)
			closure(in.Arg)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			closure(in.Out)
		default:
			set = append(set, pc)
		}
	}
	closure(uint32(prog.Start))
	start := set
	set, seen = nil, make([]bool, len(prog.Inst))
	for _, pc := range start {
		if in := &prog.Inst[pc]; in.Op != syntax.InstMatch && in.Op != syntax.InstFail && in.MatchRune(c) {
			closure(in.Out)
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
