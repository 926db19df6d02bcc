package rules

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// legalScan is reLegalForm's FindAllStringIndex for the supplier scan,
// which asks it of every line: the same matches, and firstByteTables.find's
// loop but for one table. find hands a letter followed by an accented one
// ("Informática", "Alcalá") to the NFA, which stops at the byte above 0x7f
// and asks the regexp: a tenth of the legal-form search on European
// letterheads, though no legal form goes on that way; wideDead says so.
type legalScan struct {
	t *firstByteTables
	// wideDead[c]: no match starts at c followed by a byte above 0x7f
	// (no form is c alone, and none goes on from c with a rune outside
	// ASCII, in any case).
	wideDead [utf8.RuneSelf]bool
}

// legalForms returns the supplier scan's legal-form search, built once.
var legalForms = onFirstUse(func() *legalScan { return newLegalScan(reLegalForm.tables()) })

func newLegalScan(t *firstByteTables) *legalScan {
	x := &legalScan{t: t}
	for c := range utf8.RuneSelf {
		if t.skip[c] {
			x.wideDead[c] = true
			continue
		}
		if re := t.byFirst[lowerByte(byte(c))]; re != nil {
			x.wideDead[c] = !goesOnWide(re.String(), rune(c))
		}
	}
	return x
}

// goesOnWide reports whether the expression src, having read c, may match
// there or read a rune outside ASCII next: assertions are passed over as
// if they held, so the answer errs towards yes.
func goesOnWide(src string, c rune) bool {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		panic("rules: " + err.Error())
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		panic("rules: " + err.Error())
	}
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

// FindAllStringIndex is reLegalForm.FindAllStringIndex(s, -1).
func (x *legalScan) FindAllStringIndex(s string) [][]int {
	var out [][]int
	var spans []int
	for pos := 0; ; {
		a, b, ok := x.find(s, pos)
		if !ok {
			return out
		}
		var m []int
		m, spans = newSpan(spans, a, b)
		out = append(out, m)
		pos = b
	}
}

// find is firstByteTables.find with wideDead's rejections; where a match
// may start it asks what find asks, in order.
func (x *legalScan) find(s string, from int) (int, int, bool) {
	t := x.t
	for i := from; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			// Most bytes (spaces, digits, punctuation) open no form: one
			// table read, before the pair's.
			if t.skip[c] {
				continue
			}
			if i+1 < len(s) {
				if d := s[i+1]; d < utf8.RuneSelf {
					if t.dead2[c][d>>6]&(1<<(d&63)) != 0 {
						continue
					}
				} else if x.wideDead[c] {
					continue
				}
			}
		} else {
			r, _ := utf8.DecodeRuneInString(s[i:])
			k, ok := t.foldsTo[r]
			if !ok {
				continue
			}
			c = k
		}
		lc := lowerByte(c)
		re := t.byFirst[lc]
		if re == nil || s[i] < utf8.RuneSelf && t.nfa[lc] == nil && !t.mayStartAt(s, i, lc) {
			continue
		}
		if lits := t.lits[lc]; lits != nil && s[i] < utf8.RuneSelf {
			if end, ok := longestLit(lits, s, i); ok {
				if end > i {
					return i, end, true
				}
				continue
			}
		}
		if n := t.nfa[lc]; n != nil && s[i] < utf8.RuneSelf {
			if end, ok := n.longestAt(s[i:]); ok {
				if end >= 0 {
					return i, i + end, true
				}
				continue
			}
		}
		if m := re.FindStringIndex(s[i:]); m != nil {
			return i, i + m[1], true
		}
	}
	return 0, 0, false
}
