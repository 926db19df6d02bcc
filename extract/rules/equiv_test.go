package rules

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// equivLines lists the lines a fast scanner is held to its reference on:
// every line of the fixtures and development texts (and of the local dev
// set when present; its texts are never committed), each line upper- and
// lower-cased if cased, and random lines drawn from an alphabet rich in currency
// symbols, letters, digits and separators.
func equivLines(t *testing.T, cased bool, random int) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../../fixtures/*/*.txt", "../../fixtures/*/*/*.txt", "testdata/dev/*.txt",
		"/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatalf("glob %s: %v", pat, err)
		}
		files = append(files, m...)
	}
	if len(files) < 100 {
		t.Fatalf("only %d texts found; the comparison would prove little", len(files))
	}
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		for _, ln := range strings.Split(normalizeText(b), "\n") {
			lines = append(lines, ln)
			if cased {
				lines = append(lines, strings.ToUpper(ln), strings.ToLower(ln))
			}
		}
	}
	alphabet := []string{"a", "e", "i", "l", "r", "s", "k", "m", "t", "R", "M", "S", "D", "B", "H", "K", "U", "E",
		"Z", "Ł", "ł", "č", "Č", "$", "€", "£", "¥", "￥", "₹", "＄", "(", ")", ".", ",", "-", "/", " ", "  ", "\t",
		"0", "1", "5", "9", "sdn", "SDN", "BHD", "EUR", "eur", "usd", "RM", "Rs.", "kr.", "SFr.", "US$", "in ", "AMT(",
		"AMOUNT(", "é", "ß", "ltd", "LTD", "Ltd.", "inc", "INC.", "SA", "S.A.", "GmbH", "gmbh & co", "&", "AG", "Oy",
		"sdn", "a/s", "kft", "\u212a", "\u017f", "aps", "sas", "\u00a0", "\u200b", "|", "¦", "│", "Ä", "ñ", "K", "ſ", "i̇", "元", "円"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range random {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		lines = append(lines, b.String())
	}
	slices.Sort(lines)
	return raceSample(slices.Compact(lines))
}

// TestGuardsNeverHideAMatch holds every guarded regexp's cheap test to its
// regexp: wherever the guard says no, the regexp finds nothing, on raw and
// folded lines.
func TestGuardsNeverHideAMatch(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 5000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	if len(guardedREs) < 10 {
		t.Fatalf("only %d guarded regexps registered", len(guardedREs))
	}
	guarded := 0
	for _, get := range guardedREs {
		g := get()
		if g.need != nil {
			guarded++
		}
		said := 0
		for _, ln := range lines {
			if g.may(ln) {
				continue
			}
			said++
			if g.Regexp.MatchString(ln) {
				t.Errorf("%s: guard says no on %q, the regexp matches", g.Regexp, ln)
				break
			}
		}
		if g.need != nil && said == 0 {
			t.Errorf("%s: the guard never said no", g.Regexp)
		}
	}
	if guarded < len(guardedREs)/2 {
		t.Errorf("only %d of %d regexps have a guard", guarded, len(guardedREs))
	}
}

// TestNeedSet pins what the guard reads off a pattern.
func TestNeedSet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		want string // the set's strings, sorted, joined by "|"; "-" for no guard
	}{
		{`\b(?:incl|inkl)\b[^()]{0,30}?\b(?:vat|tax|taxes)\b`, "tax|vat"},
		{`\bttc\b|\bivato\b`, "ivato|ttc"},
		{`(?i)\bbank\b`, "ban"},
		{`(?i)\b(?:ks)\b`, "-"},
		{`\d\s*$`, "-"},
		{`a?b*`, "-"},
		{`^(?:due|fallig)`, "due|faiiig"},
		{`x[./-]y`, "-"},
		{`\d+[./-]\d+`, "-|.|/"},
		{`(?:foo|)bar`, "bar"},
		{`(?:foo|)`, "-"},
		{`é+t`, "é"},
	} {
		src := strings.ReplaceAll(tc.src, "l", "i")
		n := newNeedSet(src)
		got := "-"
		if n != nil {
			var lits []string
			for _, b := range n.byFirst {
				for _, l := range b {
					lits = append(lits, l.lit)
				}
			}
			slices.Sort(lits)
			got = strings.Join(lits, "|")
		}
		if got != tc.want {
			t.Errorf("%s: need %q, want %q", src, got, tc.want)
		}
	}
}

// TestMayFindNeverHidesALabel holds the per-line key test to the lexicons'
// search: wherever it says no, the lexicon finds nothing on the line.
func TestMayFindNeverHidesALabel(t *testing.T) {
	t.Parallel()
	var lines []string
	for _, ln := range equivLines(t, false, 5000) {
		lines = append(lines, foldString(ln))
	}
	said, tried := 0, 0
	for _, lx := range lexicons {
		tb := lx.tables()
		if tb.full {
			continue
		}
		tried++
		for _, f := range lines {
			if lk, _ := newLineKeys(f, nil); tb.mayFind(&lk) {
				continue
			}
			said++
			if m := lx.FindStringIndex(f); m != nil {
				t.Fatalf("%s: mayFind says no on %q, the lexicon finds %q", tb.re(), f, f[m[0]:m[1]])
			}
		}
	}
	if tried < 20 || said < atLeast(1000) {
		t.Fatalf("only %d lexicons and %d refusals: the comparison proves little", tried, said)
	}
}

// TestLegalFormLiteralsMatchRegexp holds reLegalForm's search, whose plain
// alternatives are matched without the regexp, to its full expression.
func TestLegalFormLiteralsMatchRegexp(t *testing.T) {
	t.Parallel()
	full := reLegalForm.tables().Regexp
	hits := 0
	for _, ln := range equivLines(t, true, 20000) {
		want, got := full.FindAllStringIndex(ln, -1), reLegalForm.FindAllStringIndex(ln, -1)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%q: got %v, want %v", ln, got, want)
		}
		hits += len(want)
	}
	if hits < atLeast(1000) {
		t.Fatalf("only %d legal forms found; the comparison proves little", hits)
	}
}

// TestLongestLit pins the plain-literal match: longest wins, case as
// marked, and a byte above 0x7f hands the decision to the regexp.
func TestLongestLit(t *testing.T) {
	t.Parallel()
	lits := []litPrefix{{"inc", true}, {"inc.", true}, {"incorporated", true}, {"SaS", false}}
	for _, tc := range []struct {
		s      string
		i, end int
		ok     bool
	}{
		{"Acme Inc. x", 5, 9, true},
		{"Acme INCORPORATED", 5, 17, true},
		{"Acme Inc", 5, 8, true},
		{"Acme In", 5, -1, true},
		{"SaS", 0, 3, true},
		{"sas", 0, -1, true},
		{"Sa\u017f", 0, 0, false},
		{"in\u212a", 0, 0, false},
	} {
		end, ok := longestLit(lits, tc.s, tc.i)
		if end != tc.end || ok != tc.ok {
			t.Errorf("%q at %d: got %d %v, want %d %v", tc.s, tc.i, end, ok, tc.end, tc.ok)
		}
	}
}
