package rules

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// checkExactNFA holds n, compiled from src, to src's regexp on text: the
// ends anchoredEnds reports bracket the leftmost-first match at 0, the
// longest is the leftmost-longest one's and firstEnd is the first's;
// matchAnywhere is MatchString.
func checkExactNFA(t *testing.T, src string, n *exactNFA, first, longest, anywhere *regexp.Regexp, text string) {
	t.Helper()
	lo, hi := n.anchoredEnds(text)
	mf, ml := first.FindStringIndex(text), longest.FindStringIndex(text)
	if (lo < 0) != (mf == nil) || (hi < 0) != (ml == nil) {
		t.Fatalf("%s on %q: ends %d..%d, regexp %v (longest %v)", src, text, lo, hi, mf, ml)
	}
	if mf != nil && (mf[1] < lo || mf[1] > hi || ml[1] != hi || lo == hi && mf[1] != lo) || mf == nil && ml != nil {
		t.Fatalf("%s on %q: ends %d..%d, regexp %v (longest %v)", src, text, lo, hi, mf, ml)
	}
	if end := n.firstEnd(text); mf == nil && end >= 0 || mf != nil && end != mf[1] {
		t.Fatalf("%s on %q: firstEnd %d, regexp %v", src, text, end, mf)
	}
	if anywhere == nil {
		return // an anchored regexp's: matchAnywhere is lo >= 0
	}
	if got, want := n.matchAnywhere(text), anywhere.MatchString(text); got != want {
		t.Fatalf("%s on %q: matchAnywhere %v, regexp %v", src, text, got, want)
	}
	// The NFA the DFAs stand in for (past their size, and from a byte
	// above 0x7f on) answers alike.
	nlo, nhi := -1, -1
	n.run(text, true, func(p int) bool {
		if nlo < 0 {
			nlo = p
		}
		nhi = p
		return false
	})
	found := false
	n.run(text, false, func(int) bool { found = true; return true })
	if nlo != lo || nhi != hi || found != (anywhere.MatchString(text)) {
		t.Fatalf("%s on %q: the NFA says ends %d..%d and %v, the DFAs %d..%d", src, text, nlo, nhi, found, lo, hi)
	}
}

// exactChecker compiles src both ways for checkExactNFA; anchored: src
// starts every match at 0, and matchAnywhere is not asked.
func exactChecker(t *testing.T, src string, anchored bool) (*exactNFA, func(string)) {
	t.Helper()
	n, ok := newExactNFA(src)
	if !ok {
		t.Fatalf("%s: no program", src)
	}
	first := regexp.MustCompile(`^(?:` + src + `)`)
	longest := regexp.MustCompile(`^(?:` + src + `)`)
	longest.Longest()
	var anywhere *regexp.Regexp
	if !anchored {
		anywhere = regexp.MustCompile(src)
	}
	return n, func(text string) { checkExactNFA(t, src, n, first, longest, anywhere, text) }
}

// TestExactNFAAnswersAsRegexp holds the program runner to the regexp on
// the assertions, case folds and runes above 0x7f it must decode as
// regexp does, on every suffix of texts built from their pieces.
func TestExactNFAAnswersAsRegexp(t *testing.T) {
	t.Parallel()
	srcs := []string{
		`\bab\b`, `ab\B`, `^a|b$`, `(?:a|ab)(?:c|bcd)?`, `a*?`, `(?i)k\b`, `(?i)s+`, `[^\d\n]{0,3}?(?:\bn\b\.?|#)`,
		`é\w*`, `(?:ä|ae|a)b`, `x.y`, `(?s)x.y`, `(?m)^b$`, `\s*$`, `[\x{80}-\x{10FFFF}]`, `\x{FFFD}`, `(?:$|:|\d)`,
	}
	parts := []string{"a", "b", "A", "B", "c", "d", "ab", "k", "K", "\u212a", "s", "S", "\u017f", "n", "N", ".", "#",
		" ", "\n", "\t", "1", "é", "ä", "ae", "x", "y", "_", ":", "\xc3", "\xff", "\xe2\x82", "\u00a0", "€"}
	rng := rand.New(rand.NewPCG(3, 4))
	var texts []string
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		texts = append(texts, b.String())
	}
	for _, src := range srcs {
		n, check := exactChecker(t, src, false)
		for _, text := range texts {
			for i := range len(text) + 1 {
				check(text[i:])
			}
		}
		// Past dfaAfter runs the DFAs answered: both were held above.
		if n.dfas[0].d.Load() == nil || n.dfas[1].d.Load() == nil {
			t.Fatalf("%s: a DFA was not built", src)
		}
	}
}

// TestStartREExactMatchesRegexp holds each anchored regexp's program
// runner to the regexp on every folded corpus line and cell that the
// filter and need set let through (the texts find asks it about), and
// find to the regexp there.
func TestStartREExactMatchesRegexp(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, ln := range equivLines(t, false, 5000) {
		f := foldString(ln)
		texts = append(texts, f)
		for _, c := range splitCells(f) {
			texts = append(texts, f[c.start:c.end])
		}
	}
	slices.Sort(texts)
	texts = slices.Compact(texts)
	programs, tried, decided := 0, 0, 0
	for _, x := range startREs {
		tb := x.get()
		if tb.exact == nil {
			continue
		}
		programs++
		src := tb.re.String()
		_, check := exactChecker(t, src, true)
		for _, text := range texts {
			if !tb.empty && (text == "" || !tb.first[text[0]]) || tb.need != nil && !tb.need.in(text) {
				continue
			}
			if tb.filter != nil {
				if end, ok := tb.filter.longestAt(text); ok && end < 0 {
					continue
				}
			}
			tried++
			check(text)
			if lo, hi := tb.exact.anchoredEnds(text); lo == hi {
				decided++
			}
			want := tb.re.FindStringIndex(text)
			a, b, ok := x.find(text)
			if ok != (want != nil) || ok && (a != want[0] || b != want[1]) {
				t.Fatalf("%s on %q: find %d %d %v, regexp %v", src, text, a, b, ok, want)
			}
		}
	}
	if programs < len(startREs)/2 || tried < atLeast(5000) || decided < tried/2 {
		t.Fatalf("%d of %d with a program, %d texts tried, %d decided: the comparison proves little", programs, len(startREs), tried, decided)
	}
	t.Logf("%d of %d with a program, %d texts tried, %d decided", programs, len(startREs), tried, decided)
}

// TestGuardedREProgramMatchesRegexp holds every guarded regexp's
// MatchString, answered by its program, to the regexp on every raw and
// folded corpus line the guard lets through (the anchored regexps' own
// are held where find asks them).
func TestGuardedREProgramMatchesRegexp(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 5000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	anchored := map[*regexp.Regexp]bool{} // the anchored regexps', held by TestStartREExactMatchesRegexp
	for _, x := range startREs {
		anchored[x.get().re] = true
	}
	programs, tried, matched := 0, 0, 0
	for _, get := range guardedREs {
		g := get()
		n := g.prog()
		if n == nil || anchored[g.Regexp] {
			continue
		}
		programs++
		for _, ln := range lines {
			if !g.may(ln) {
				continue
			}
			tried++
			want := g.Regexp.MatchString(ln)
			if want {
				matched++
			}
			if got := n.matchAnywhere(ln); got != want {
				t.Fatalf("%s on %q: program %v, regexp %v", g.Regexp, ln, got, want)
			}
			if got := g.MatchString(ln); got != want {
				t.Fatalf("%s on %q: MatchString %v, regexp %v", g.Regexp, ln, got, want)
			}
		}
	}
	if programs < (len(guardedREs)-len(anchored))*9/10 || tried < atLeast(20000) || matched < atLeast(2000) {
		t.Fatalf("%d of %d with a program, %d lines tried, %d matched: the comparison proves little", programs, len(guardedREs), tried, matched)
	}
	t.Logf("%d of %d with a program, %d lines tried, %d matched", programs, len(guardedREs), tried, matched)
}

// TestLegalFormExactMatchesRegexp holds reLegalForm's per-letter program
// runners to the anchored regexps they stand in for, at every position of
// the corpus lines (cased) and of strings built from the forms' pieces
// whose byte or folded rune opens an alternative: wide letters included,
// where the ASCII matcher hands over.
func TestLegalFormExactMatchesRegexp(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, true, 0)
	parts := []string{"s", "S", "a", "à", "À", "r", "l", "u", ".", ". ", " ", "\t", "/", "b", "d", "n", "h",
		"gmbh", "& co", "ltd", "kg", "ug", "UG", " (haftungsbeschr", "ä", "Ä", "ae", "nkt)", "sp. z o.o.",
		"SpA", "Sas", "\u212a", "\u017f", "é", "x", "UG (haftungsbeschränkt)", "ug (haftungsbeschraenkt)", "Sàrl", "s.à r.l.",
		"S. À R.L.", "\u212ag", "\u017f.a."}
	rng := rand.New(rand.NewPCG(9, 10))
	for range atLeast(20000) {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	x := reLegalForm.tables()
	programs, wide, matched := 0, 0, 0
	for c, get := range x.exact {
		if get == nil {
			continue
		}
		n := get()
		if n == nil {
			t.Fatalf("%q: no program", rune(c))
		}
		programs++
		re := x.byFirst[c]
		for k, ln := range lines {
			ascii := isASCIIText(ln)
			for i := 0; i < len(ln); i++ {
				if b := ln[i]; b >= utf8.RuneSelf {
					r, _ := utf8.DecodeRuneInString(ln[i:])
					if f, ok := x.foldsTo[r]; !ok || f != byte(c) {
						continue
					}
				} else if lowerByte(b) != byte(c) || ascii && (k+i)%3 != 0 {
					continue // an ASCII line: a third of its places
				}
				_, end := n.anchoredEnds(ln[i:])
				want := -1
				if m := re.FindStringIndex(ln[i:]); m != nil {
					want = m[1]
					matched++
					if !isASCIIText(ln[i : i+want]) {
						wide++
					}
				}
				if end != want {
					t.Fatalf("%q at %d (%q): program says %d, regexp %d", ln, i, rune(c), end, want)
				}
			}
		}
	}
	if programs != countNonNil(x.byFirst[:]) || matched < atLeast(5000) || wide < atLeast(100) {
		t.Fatalf("%d programs for %d letters, %d matches, %d over a wide rune: the comparison proves little", programs, countNonNil(x.byFirst[:]), matched, wide)
	}
	t.Logf("%d programs, %d matches, %d over a wide rune", programs, matched, wide)
}

func isASCIIText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// TestExactNFAConcurrent runs one program from several goroutines while
// its DFAs are built (go test -race): every answer is the first
// goroutine-free one.
func TestExactNFAConcurrent(t *testing.T) {
	t.Parallel()
	src := `(?i)\b(?:nr|no)\b\.?|#\d+`
	texts := []string{"invoice nr. 7", "no", "#12", "nor", "n\u00e9 #", "", "NR.NR"}
	ref, _ := newExactNFA(src)
	type answer struct {
		lo, hi int
		any    bool
	}
	want := make([]answer, len(texts))
	for i, s := range texts {
		want[i].lo, want[i].hi = -1, -1
		ref.run(s, true, func(p int) bool {
			if want[i].lo < 0 {
				want[i].lo = p
			}
			want[i].hi = p
			return false
		})
		ref.run(s, false, func(int) bool { want[i].any = true; return true })
	}
	n, _ := newExactNFA(src)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 4 * dfaAfter {
				i := k % len(texts)
				lo, hi := n.anchoredEnds(texts[i])
				if got := (answer{lo, hi, n.matchAnywhere(texts[i])}); got != want[i] {
					t.Errorf("%q: got %v, want %v", texts[i], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	if n.dfas[0].d.Load() == nil || n.dfas[1].d.Load() == nil {
		t.Fatal("the DFAs were not built")
	}
}
