package rules

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// findDatesRef is findDates as on 62a56b4, before the digit count stopped
// at six, the separator and month-word tests took their present forms and
// finishDates returned early for a line with no date: its own copy of
// finishDates, and the references of hasDigitsThenSep and hasMonthWord.
func findDatesRef(f string, mdy bool) []dateHit {
	var hits []dateHit
	add := func(s, e, y, m, d int) {
		if validDate(y, m, d) {
			hits = append(hits, dateHit{s, e, civil{y, m, d}})
		}
	}
	// Every pattern needs some ASCII digits (\d): ISO and CJK six, MDY five,
	// Num four, DMY three; a pattern is not run on a string with fewer.
	digits := countDigits(f)
	if digits < 3 {
		return nil
	}
	// An ISO date needs six digits and four of them before a separator
	// (the cheaper test first: most lines of a receipt have fewer).
	var isoHits [][]int
	if digits >= 6 && hasDigitsThenSepRef(f, 4, "-./") {
		isoHits = scanISODates(f)
	}
	for _, m := range isoHits {
		if f[m[4]:m[5]] != f[m[8]:m[9]] {
			continue
		}
		y, _ := strconv.Atoi(f[m[2]:m[3]])
		mo, _ := strconv.Atoi(f[m[6]:m[7]])
		d, _ := strconv.Atoi(f[m[10]:m[11]])
		add(m[0], m[1], y, mo, d)
	}
	for _, m := range numDateMatches(f, digits) {
		sep := f[m[4]:m[5]]
		a, _ := strconv.Atoi(f[m[2]:m[3]])
		b, _ := strconv.Atoi(f[m[6]:m[7]])
		y := year2(f[m[10]:m[11]])
		switch {
		case a > 12 && b <= 12:
			add(m[0], m[1], y, b, a)
		case b > 12 && a <= 12:
			add(m[0], m[1], y, a, b)
		case mdy && sep != ".":
			add(m[0], m[1], y, a, b)
		default:
			add(m[0], m[1], y, b, a)
		}
	}
	if !hasMonthWordRef(f) {
		// Both name scanners need a month name ending a word: most lines,
		// amount lines above all, have none.
		return finishDatesRef(hits, f, digits)
	}
	var dmyHits, mdyHits [][]int
	if digits >= 3 {
		dmyHits = scanDMYDates(f)
	}
	if digits >= 5 {
		mdyHits = scanMDYDates(f)
	}
	for _, m := range dmyHits {
		d, _ := strconv.Atoi(f[m[2]:m[3]])
		mo := monthByFold()[f[m[4]:m[5]]]
		add(m[0], m[1], year2(f[m[6]:m[7]]), mo, d)
	}
	for _, m := range mdyHits {
		mo := monthByFold()[f[m[2]:m[3]]]
		d, _ := strconv.Atoi(f[m[4]:m[5]])
		y, _ := strconv.Atoi(f[m[6]:m[7]])
		add(m[0], m[1], y, mo, d)
	}
	return finishDatesRef(hits, f, digits)
}

// finishDatesRef is finishDates as on 62a56b4.
func finishDatesRef(hits []dateHit, f string, digits int) []dateHit {
	add := func(s, e, y, m, d int) {
		if validDate(y, m, d) {
			hits = append(hits, dateHit{s, e, civil{y, m, d}})
		}
	}
	if !strings.Contains(f, "年") || digits < 6 {
		digits = 0
	}
	for _, m := range cjkMatches(f, digits) {
		y, _ := strconv.Atoi(f[m[2]:m[3]])
		mo, _ := strconv.Atoi(f[m[4]:m[5]])
		d, _ := strconv.Atoi(f[m[6]:m[7]])
		add(m[0], m[1], y, mo, d)
	}
	// slices' stable sort: sort.SliceStable allocated on every line.
	slices.SortStableFunc(hits, func(a, b dateHit) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(b.end, a.end)
	})
	// Drop hits nested in an earlier, longer one.
	out := hits[:0]
	lastEnd := -1
	for _, h := range hits {
		if h.start < lastEnd {
			continue
		}
		out = append(out, h)
		lastEnd = h.end
	}
	return out
}

// TestFindDatesMatchesReference holds findDates to the reference, in both
// date orders, on every folded corpus line and on random lines of dates'
// pieces: digits in runs of every length up to seven, separators, month
// names and their pieces, ordinals and the CJK date marks.
func TestFindDatesMatchesReference(t *testing.T) {
	t.Parallel()
	var lines []string
	for _, ln := range equivLines(t, false, 3000) {
		lines = append(lines, foldString(ln))
	}
	parts := []string{" ", "  ", "1", "7", "03", "12", "31", "2026", "1999", "0417", "12345", "1234567", "/", "-", ".", ",",
		"'", "de ", "st", "th", "er", "年", "月", "日", "a", "x", "total", "12:30", "_"}
	// Whole dates, so that many lines hold one or more.
	whole := []string{"03/04/2026", "2026-03-04", "3 march 2026", "march 3, 2026", "2026年3月4日", "12.05.26", "31-12-2025", "1. mai 2026"}
	for s := range monthByFold() {
		parts = append(parts, s, s[:len(s)/2])
	}
	for range 20 {
		parts = append(parts, whole...)
	}
	lines = scannerTexts(lines, parts, 41, 30000)
	found := 0
	for _, f := range lines {
		for _, mdy := range []bool{false, true} {
			want, got := findDatesRef(f, mdy), findDates(f, mdy)
			if !slices.Equal(want, got) {
				t.Fatalf("findDates(%q, %v) = %v, reference %v", f, mdy, got, want)
			}
			found += len(want)
		}
	}
	if found < atLeast(12000) {
		t.Fatalf("only %d dates: the comparison proves little", found)
	}
}

// TestCountDigitsTo holds countDigitsTo to countDigits capped, for every
// limit findDates could ask and more, on corpus lines and lines of digits
// and letters of every length past two blocks.
func TestCountDigitsTo(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 0)
	for n := range 24 {
		lines = append(lines, strings.Repeat("1", n), strings.Repeat("a1", n), strings.Repeat("ab1", n))
	}
	for _, s := range lines {
		for limit := 0; limit <= 9; limit++ {
			if got, want := countDigitsTo(s, limit), min(countDigits(s), limit); got != want {
				t.Fatalf("countDigitsTo(%q, %d) = %d, want %d", s, limit, got, want)
			}
		}
	}
}

// slashTallyRef is slashTally as on 62a56b4: a search per line, with the
// reference of hasDigitsThenSep.
func slashTallyRef(ftext string) (dmyN, mdyN, ambN int) {
	// The pattern cannot cross a line break ("\n" is a \b edge like the
	// text's ends), so it runs only on the lines where digits meet "/" or
	// "-", with the same matches.
	for rest := ftext; rest != ""; {
		ln := rest
		if k := strings.IndexByte(rest, '\n'); k >= 0 {
			ln, rest = rest[:k], rest[k+1:]
		} else {
			rest = ""
		}
		if !hasDigitsThenSepRef(ln, 1, "/-") {
			continue
		}
		for _, m := range scanSlashNums(ln) {
			a, _ := strconv.Atoi(ln[m[2]:m[3]])
			b, _ := strconv.Atoi(ln[m[4]:m[5]])
			switch {
			case a > 12 && b <= 12:
				dmyN++
			case b > 12 && a <= 12:
				mdyN++
			case a != b && a <= 12 && b <= 12:
				ambN++
			}
		}
	}
	return dmyN, mdyN, ambN
}

// TestSlashTallyMatchesReference holds slashTally to the reference on
// every corpus text, folded, and on random texts of lines of numeric dates'
// pieces, separator runs and blank lines.
func TestSlashTallyMatchesReference(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, s := range globTexts(t, "../../fixtures/*/*.txt", "../../fixtures/*/*/*.txt", "testdata/dev/*.txt",
		"/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt") {
		texts = append(texts, foldString(s))
	}
	parts := []string{" ", "1", "7", "03", "12", "13", "31", "2026", "26", "/", "-", "--", "-----", "//", ".", "a", "x",
		"\n", "\n", "\n\n", "03/04/2026", "13-04-26", "04/13/2026", "12:30"}
	lines := scannerTexts(nil, parts, 47, 40000)
	for i := 0; i+20 <= len(lines); i += 20 {
		texts = append(texts, strings.Join(lines[i:i+20], "\n"))
	}
	texts = append(texts, "", "\n", "1/2", "1/2\n", "\n1/2/26", "-1/2-", "1-2\n3/4\n5-6")
	dated := 0
	for _, s := range texts {
		d, m, a := slashTally(s)
		wd, wm, wa := slashTallyRef(s)
		if d != wd || m != wm || a != wa {
			t.Fatalf("slashTally(%q) = %d, %d, %d, reference %d, %d, %d", s, d, m, a, wd, wm, wa)
		}
		if wd+wm+wa > 0 {
			dated++
		}
	}
	if dated < atLeast(1500) {
		t.Fatalf("only %d texts hold a numeric date: the comparison proves little", dated)
	}
}

// TestDigitSepAtMatchesNaive holds digitSepAt to a byte-by-byte search from
// every offset of random strings of digits, separator runs and letters
// (slashTally could miss one of a date's two separators unseen).
func TestDigitSepAtMatchesNaive(t *testing.T) {
	t.Parallel()
	naive := func(s string, from int, c byte) int {
		for p := max(from, 1); p+1 < len(s); p++ {
			if s[p] == c && isDigit(s[p-1]) && isDigit(s[p+1]) {
				return p
			}
		}
		return -1
	}
	parts := []string{"1", "2", "26", "/", "-", "--", "---", "//", "a", " ", "\n"}
	for _, s := range scannerTexts(nil, parts, 53, 20000) {
		for from := 0; from <= len(s); from++ {
			for _, c := range []byte{'/', '-'} {
				if got, want := digitSepAt(s, from, c), naive(s, from, c); got != want {
					t.Fatalf("digitSepAt(%q, %d, %q) = %d, want %d", s, from, c, got, want)
				}
			}
		}
	}
}
