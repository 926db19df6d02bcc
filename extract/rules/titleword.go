package rules

import (
	"regexp/syntax"
	"strings"
	"sync/atomic"
)

// A title kind matches at the start of f, which opens a run of a-z letters
// that is whole in the cell: before f there is only the cell's start, a
// subject label's colon or blank, or an ordinal ending in blanks or marks.
// The match reads that run to its end (every kind ends with \b). So a cell
// none of whose runs is a word a title can open with has no title, and
// titleKind answers it without its eight regexps: most heading cells
// (names, addresses, amounts, item lines). The words are read off the
// kinds' own patterns, so a title added there is never filtered out.
type titleWords struct {
	// exact holds each word's kinds, as bits of titleKinds' indexes.
	exact map[string]uint8
	// suffixes are the words that may follow any letters in the run
	// ("[a-z]{0,24}rechnung": "Schlussrechnung"), with their kinds.
	suffixes []titleSuffix
	// lens[lensAt(r)] has bit n set when a word of n letters (63: any
	// longer) opens with r's first two letters, and lastOf[c] is set
	// when a suffix ends with c: most runs are turned away on their
	// first two letters and their last.
	lens   [1024]uint64
	lastOf [256]bool
}

// lensAt is the lens index of a run or word of a-z letters: five bits
// of each of its first two letters (none for a word of one letter),
// masked so that reading lens needs no bounds check.
func lensAt(r string) int {
	var second byte
	if len(r) > 1 {
		second = r[1]
	}
	return (int(r[0]&31)<<5 | int(second&31)) & 1023
}

// titleWordsPtr holds the words once built: titleKind asks for them on
// every heading cell, and sync.OnceValue's closure cost more than some of
// the runs it turns away.
var titleWordsPtr atomic.Pointer[titleWords]

var buildTitleWords = onFirstUse(func() *titleWords {
	srcs := make([]string, len(titleKinds))
	for i, k := range titleKinds {
		srcs[i] = k.re.get().re.String()
	}
	return newTitleWords(srcs)
})

func getTitleWords() *titleWords {
	if w := titleWordsPtr.Load(); w != nil {
		return w
	}
	w := buildTitleWords()
	titleWordsPtr.Store(w)
	return w
}

// titleRuns is how many runs of letters may open a cell before its
// title: one of a subject label ("betreff:") and one of an ordinal
// ("erste", "2nd"); marks and blanks hold none.
const titleRuns = 3

// mayHoldTitle reports whether one of cf's first titleRuns runs of
// letters is a word a title kind can open with; false means
// titleKind(cf) is "".
func mayHoldTitle(cf string) bool {
	w := getTitleWords()
	runs := 0
	for i := 0; i < len(cf); i++ {
		// Unsigned: one comparison tells a-z from every other byte.
		if cf[i]-'a' > 'z'-'a' {
			continue
		}
		j := i + 1
		for j < len(cf) && cf[j]-'a' <= 'z'-'a' {
			j++
		}
		if w.kinds(cf[i:j]) != 0 {
			return true
		}
		if runs++; runs == titleRuns {
			return false
		}
		i = j // cf[j] is no letter: the loop steps past it
	}
	return false
}

type titleSuffix struct {
	word  string
	kinds uint8
}

// kinds returns the title kinds (bits of titleKinds' indexes) that may
// open with the run r of a-z letters: none for most runs.
func (w *titleWords) kinds(r string) uint8 {
	n := len(r)
	var k uint8
	if w.lens[lensAt(r)]&(1<<min(n, 63)) != 0 {
		k = w.exact[r]
	}
	if w.lastOf[r[n-1]] {
		k |= w.suffixKinds(r)
	}
	return k
}

// suffixKinds is the kinds of the suffixes r ends with.
func (w *titleWords) suffixKinds(r string) uint8 {
	var k uint8
	for _, s := range w.suffixes {
		if strings.HasSuffix(r, s.word) {
			k |= s.kinds
		}
	}
	return k
}

// openingKinds returns the title kinds that may match at the start of f:
// the kinds of its first run of letters, after blanks (a credit note's
// pattern skips them).
func openingKinds(f string) uint8 {
	i := 0
	for i < len(f) && (f[i] == ' ' || f[i] == '\t' || f[i] == '\n' || f[i] == '\f' || f[i] == '\r') {
		i++
	}
	j := i
	for j < len(f) && f[j]-'a' <= 'z'-'a' {
		j++
	}
	if j == i {
		return 0
	}
	return getTitleWords().kinds(f[i:j])
}

// newTitleWords reads the words off the patterns; it panics on a pattern
// whose opening run it cannot bound (the filter would then hide titles).
func newTitleWords(srcs []string) *titleWords {
	if len(srcs) > 8 {
		panic("rules: more title kinds than bits in a mask")
	}
	w := &titleWords{exact: map[string]uint8{}}
	for i, src := range srcs {
		bit := uint8(1) << i
		re, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			panic("rules: " + err.Error())
		}
		for st := range runStates(re, map[runState]bool{{}: true}) {
			if st.phase != runClosed {
				panic("rules: title pattern may match without ending a run of letters: " + src)
			}
			if st.anyPrefix {
				w.suffixes = append(w.suffixes, titleSuffix{st.word, bit})
				w.lastOf[st.word[len(st.word)-1]] = true
				continue
			}
			w.exact[st.word] |= bit
			w.lens[lensAt(st.word)] |= 1 << min(len(st.word), 63)
		}
	}
	return w
}

const (
	runBefore = iota // no letter read yet
	runOpen          // reading the run's letters
	runClosed        // the run has ended
)

// runState is where a path through a pattern stands in reading the first
// run of letters: the letters read (after any letters, if anyPrefix).
type runState struct {
	word      string
	anyPrefix bool
	phase     int
}

func isRunLetter(r rune) bool { return r >= 'a' && r <= 'z' }

// runStates steps every state in over re.
func runStates(re *syntax.Regexp, in map[runState]bool) map[runState]bool {
	out := map[runState]bool{}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpBeginLine, syntax.OpNoWordBoundary:
		return in
	case syntax.OpWordBoundary, syntax.OpEndText, syntax.OpEndLine:
		// A letter after the run would be a word character: it ends here.
		for st := range in {
			if st.phase == runOpen {
				st.phase = runClosed
			}
			out[st] = true
		}
	case syntax.OpCapture:
		return runStates(re.Sub[0], in)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			in = runStates(sub, in)
		}
		return in
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			for st := range runStates(sub, in) {
				out[st] = true
			}
		}
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			panic("rules: title pattern folds case: " + re.String())
		}
		for _, r := range re.Rune {
			in = stepRune(in, r)
		}
		return in
	case syntax.OpCharClass:
		letters, others := classParts(re.Rune)
		for st := range in {
			if others {
				stepOther(out, st)
			}
			for _, r := range letters {
				out[stepLetter(st, r)] = true
			}
		}
	case syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		return runRepeat(re, in)
	default:
		panic("rules: title pattern has what the word filter cannot read: " + re.String())
	}
	return out
}

// runRepeat steps in over a repetition. Repeated letters of a class
// ("[a-z]{0,24}") opening the run make it any letters; otherwise the
// states reach a fixed point within a few rounds, as a run only grows by
// the pattern's literal letters.
func runRepeat(re *syntax.Regexp, in map[runState]bool) map[runState]bool {
	lo, hi := 0, -1
	switch re.Op {
	case syntax.OpQuest:
		hi = 1
	case syntax.OpPlus:
		lo = 1
	case syntax.OpRepeat:
		lo, hi = re.Min, re.Max
	}
	sub := re.Sub[0]
	if sub.Op == syntax.OpCharClass {
		if letters, others := classParts(sub.Rune); len(letters) > 1 && !others {
			out := map[runState]bool{}
			for st := range in {
				if st.phase != runBefore || st.word != "" {
					panic("rules: letters of a class inside a title word: " + re.String())
				}
				out[runState{anyPrefix: true, phase: runOpen}] = true
				if lo == 0 {
					out[st] = true
				}
			}
			return out
		}
	}
	cur := in
	for range lo {
		cur = runStates(sub, cur)
	}
	out := map[runState]bool{}
	for st := range cur {
		out[st] = true
	}
	for i := 0; hi < 0 || i < hi-lo; i++ {
		if i > 64 {
			panic("rules: a repeated group grows a title word without end: " + re.String())
		}
		cur = runStates(sub, cur)
		grew := false
		for st := range cur {
			if !out[st] {
				out[st] = true
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	return out
}

// classParts splits a class's ranges into its a-z letters and whether it
// holds anything else.
func classParts(ranges []rune) (letters []rune, others bool) {
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for r := max(lo, 'a'); r <= min(hi, 'z'); r++ {
			letters = append(letters, r)
		}
		if lo < 'a' || hi > 'z' {
			others = true
		}
	}
	return letters, others
}

func stepRune(in map[runState]bool, r rune) map[runState]bool {
	out := map[runState]bool{}
	for st := range in {
		if isRunLetter(r) {
			out[stepLetter(st, r)] = true
		} else {
			stepOther(out, st)
		}
	}
	return out
}

func stepLetter(st runState, r rune) runState {
	if st.phase != runClosed {
		st.word += string(r)
		st.phase = runOpen
	}
	return st
}

func stepOther(out map[runState]bool, st runState) {
	if st.phase == runOpen {
		st.phase = runClosed
	}
	out[st] = true
}
