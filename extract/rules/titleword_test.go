package rules

import (
	mathrand "math/rand"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/invx/invx/schema"
)

// titleKindRef is titleKind as it was before mayHoldTitle turned most
// cells away: the reference the filter is held to.
func titleKindRef(cf string) string {
	if len(cf) > 70 {
		return ""
	}
	if _, e, ok := reSubjectLabel.find(cf); ok {
		cf = cf[e:]
	}
	if t := trimLeftMarks(cf, " \t\n\f\r*#>-"); t == "" || !(t[0] >= 'a' && t[0] <= 'z' || t[0] >= '0' && t[0] <= '9') {
		return ""
	}
	f := cf
	if _, e, ok := reTitleOrdinal.find(cf); ok {
		f = cf[e:]
	}
	if t := strings.TrimLeft(f, " \t\n\f\r"); t == "" || t[0] < 'a' || t[0] > 'z' {
		return ""
	}
	for _, k := range titleKinds {
		ms, me, ok := k.re.find(f)
		if !ok || ms != 0 {
			continue
		}
		rest := strings.TrimSpace(f[me:])
		if k.kind == schema.DocProforma {
			return k.kind
		}
		dash := strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "|")
		if codedTitleRest(rest) {
			return k.kind
		}
		if !titleRestOK(rest) || !dash && sentenceWords(rest) > 4 {
			return ""
		}
		return k.kind
	}
	return ""
}

// titleTexts are the texts whose cells and lines the filter is held to:
// fixtures, development texts, the package's synthetic invoices and, where
// present, the local dev set and a bench corpus (go run ./bench/gen -out
// DIR, named by INVX_SYNTH_DIR); neither of the last two is committed.
func titleTexts(t *testing.T) []string {
	t.Helper()
	pats := []string{"../../fixtures/*/*.txt", "../../fixtures/*/*/*.txt", "testdata/*/*.txt", "testdata/*.txt",
		"/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt", "/tmp/devset/*/*.txt"}
	if dir := os.Getenv("INVX_SYNTH_DIR"); dir != "" {
		pats = append(pats, filepath.Join(dir, "*", "*.txt"))
	}
	texts := globTexts(t, pats...)
	if len(texts) < 100 {
		t.Fatalf("only %d texts found; the comparison would prove little", len(texts))
	}
	r := mathrand.New(mathrand.NewSource(17))
	for range 200 {
		text, _ := synthInvoice(r)
		texts = append(texts, text)
	}
	return texts
}

// genTitle writes a random text re matches, mostly: assertions are not
// checked, and classes give any of their runes.
func genTitle(b *strings.Builder, re *syntax.Regexp, r *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		k := r.IntN(len(re.Rune) / 2)
		lo, hi := re.Rune[2*k], min(re.Rune[2*k+1], re.Rune[2*k]+40)
		b.WriteRune(lo + rune(r.IntN(int(hi-lo)+1)))
	case syntax.OpCapture:
		genTitle(b, re.Sub[0], r)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			genTitle(b, sub, r)
		}
	case syntax.OpAlternate:
		genTitle(b, re.Sub[r.IntN(len(re.Sub))], r)
	case syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		lo, hi := 0, 2
		switch re.Op {
		case syntax.OpQuest:
			hi = 1
		case syntax.OpPlus:
			lo, hi = 1, 3
		case syntax.OpRepeat:
			lo, hi = re.Min, min(re.Min+4, max(re.Max, re.Min))
			if re.Max > hi && r.IntN(8) == 0 {
				hi = re.Max
			}
		}
		for range lo + r.IntN(hi-lo+1) {
			genTitle(b, re.Sub[0], r)
		}
	}
}

// titleMutants are random titles of every kind, each with a random
// opening (subject label, ordinal, marks), a random tail, and random case,
// space and accent edits and letters glued on.
func titleMutants(n int) []string {
	r := rand.New(rand.NewPCG(20261202, 3))
	heads := []string{"", "", "", " ", "  ", "* ", "• ", "- ", "> ", "#", "1 ", "1. ", "2nd ", "12 e ", "3 . rd ", "erste ", "last ",
		"final ", "betreff: ", "re : ", "objet :", "subject:  1. ", "betreff: 2nd ", "re: erste ", "oggetto : 3 . rd ", "x", "1", "-", "(", "a ", "zu ", "\t", "\u00a0", "é"}
	tails := []string{"", "", "", " ", ":", " nr. 7", " no 2024-1", " #5", " - copy", " | 7", " (380) nr 1", " for invoice 7",
		" zu rechnung 12", " 2024", "s", "x", "2", "_", "-", "é", " de 12/3", " of the month we sent to you last week",
		" - this is not a new invoice", " rechnung", " original", " a b c d e f", "\u00a0", " \t"}
	var out []string
	var srcs []*syntax.Regexp
	for _, k := range titleKinds {
		re, err := syntax.Parse(k.re.get().re.String(), syntax.Perl)
		if err != nil {
			panic(err)
		}
		srcs = append(srcs, re)
	}
	for i := range n {
		var b strings.Builder
		b.WriteString(heads[r.IntN(len(heads))])
		genTitle(&b, srcs[i%len(srcs)], r)
		b.WriteString(tails[r.IntN(len(tails))])
		s := b.String()
		switch r.IntN(8) {
		case 0:
			s = strings.ToUpper(s)
		case 1:
			s = strings.ReplaceAll(s, " ", "")
		case 2:
			s = strings.ReplaceAll(s, " ", "  ")
		case 3:
			s = strings.Replace(s, "e", "é", 1)
		case 4:
			p := r.IntN(len(s) + 1)
			for p > 0 && p < len(s) && !utf8.RuneStart(s[p]) {
				p--
			}
			s = s[:p] + string(rune('a'+r.IntN(26))) + s[p:]
		case 5:
			if p := r.IntN(len(s) + 1); p < len(s) && utf8.RuneStart(s[p]) {
				_, sz := utf8.DecodeRuneInString(s[p:])
				s = s[:p] + s[p+sz:]
			}
		}
		out = append(out, s)
	}
	return out
}

// TestTitleKindFilter holds titleKind, which asks mayHoldTitle first, to
// titleKindRef over every cell, line and line tail of the texts and over
// mutated titles of every kind.
func TestTitleKindFilter(t *testing.T) {
	t.Parallel()
	var in []string
	for _, text := range raceSample(titleTexts(t)) {
		d := newDocument(text)
		for _, ln := range d.lines {
			in = append(in, ln.f.s)
			for _, c := range ln.cells {
				in = append(in, ln.foldCell(c))
			}
			for i := 0; i < len(ln.f.s); i++ {
				if ln.f.s[i] == ' ' || ln.f.s[i] == ':' {
					in = append(in, ln.f.s[i+1:], strings.TrimLeft(ln.f.s[i:], " :"))
				}
			}
		}
	}
	in = append(in, titleMutants(atLeast(60000))...)
	kinds := map[string]int{}
	for _, s := range in {
		want := titleKindRef(s)
		if got := titleKind(s); got != want {
			t.Fatalf("titleKind(%q) = %q, titleKindRef says %q", s, got, want)
		}
		kinds[want]++
	}
	for _, k := range []string{"", schema.DocProforma, schema.DocCreditNote, schema.DocDebitNote, schema.DocReminder, schema.DocReceipt, schema.DocInvoice} {
		if kinds[k] < atLeast(200) {
			t.Errorf("only %d texts of kind %q: the comparison proves little for it", kinds[k], k)
		}
	}
}

// TestTitleWordsHoldEveryMatch holds mayHoldTitle and openingKinds to
// each kind's regexp directly: titleKind's later tests (the rest of the
// cell, an earlier kind's match) could hide a word the filter misses.
func TestTitleWordsHoldEveryMatch(t *testing.T) {
	t.Parallel()
	matched := map[string]int{}
	for _, s := range titleMutants(atLeast(60000)) {
		cf := s
		if _, e, ok := reSubjectLabel.find(cf); ok {
			cf = cf[e:]
		}
		f := cf
		if _, e, ok := reTitleOrdinal.find(cf); ok {
			f = cf[e:]
		}
		for i, k := range titleKinds {
			if ms, _, ok := k.re.find(f); ok && ms == 0 {
				matched[k.kind]++
				if !mayHoldTitle(s) {
					t.Fatalf("mayHoldTitle(%q) = false; %s matches %q", s, k.kind, f)
				}
				if openingKinds(f)&(1<<i) == 0 {
					t.Fatalf("openingKinds(%q) = %b lacks %s, which matches", f, openingKinds(f), k.kind)
				}
			}
		}
	}
	for _, k := range titleKinds {
		if matched[k.kind] < atLeast(1000) {
			t.Errorf("only %d mutants match %s", matched[k.kind], k.kind)
		}
	}
}
