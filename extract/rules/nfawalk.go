package rules

import "regexp/syntax"

// epsilonWalk calls leaf for each instruction reachable from pc along the
// program's empty edges (alternations, captures, no-ops, and the
// empty-width assertions pass admits) that consumes a rune or ends the
// match: Rune, Rune1, RuneAny, RuneAnyNotNL, Match and Fail. seen[pc] ==
// mark marks an instruction this walk has visited; a caller starting a new
// walk over the same slice uses a new mark.
func epsilonWalk(prog *syntax.Prog, pc uint32, seen []int, mark int, pass func(syntax.EmptyOp) bool, leaf func(pc uint32)) {
	var walk func(pc uint32)
	walk = func(pc uint32) {
		if seen[pc] == mark {
			return
		}
		seen[pc] = mark
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			walk(in.Out)
			walk(in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			walk(in.Out)
		case syntax.InstEmptyWidth:
			if pass(syntax.EmptyOp(in.Arg)) {
				walk(in.Out)
			}
		default:
			leaf(pc)
		}
	}
	walk(pc)
}

// passAny admits every empty-width assertion: the walk over-approximates
// what may follow, whatever the context.
func passAny(syntax.EmptyOp) bool { return true }
