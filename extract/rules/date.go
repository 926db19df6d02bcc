package rules

import (
	"cmp"
	"fmt"
	"math/bits"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// civil is a calendar date.
type civil struct{ y, m, d int }

func (c civil) String() string { return fmt.Sprintf("%04d-%02d-%02d", c.y, c.m, c.d) }

// validDate reports whether y-m-d is a real calendar date in a plausible
// range for an invoice.
func validDate(y, m, d int) bool {
	if y < 1900 || y > 2199 || m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	t := time.Date(y, time.Month(m), d, 12, 0, 0, 0, time.UTC)
	return t.Year() == y && int(t.Month()) == m && t.Day() == d
}

var monthNames = map[int][]string{
	1:  {"january", "jan", "januar", "jänner", "janvier", "janv", "enero", "ene", "januari", "gennaio", "gen"},
	2:  {"february", "feb", "febr", "februar", "février", "févr", "fevrier", "fevr", "febrero", "februari", "febbraio"},
	3:  {"march", "mar", "märz", "maerz", "mär", "mars", "marzo", "maart", "mrt"},
	4:  {"april", "apr", "avril", "avr", "abril", "abr", "aprile"},
	5:  {"may", "mai", "mayo", "mei", "maggio", "mag"},
	6:  {"june", "jun", "juni", "juin", "junio", "giugno", "giu"},
	7:  {"july", "jul", "juli", "juillet", "juil", "julio", "luglio", "lug"},
	8:  {"august", "aug", "août", "aout", "agosto", "ago", "augustus"},
	9:  {"september", "sep", "sept", "septembre", "septiembre", "setiembre", "settembre", "set"},
	10: {"october", "oct", "oktober", "okt", "octobre", "octubre", "ottobre", "ott"},
	11: {"november", "nov", "novembre", "noviembre"},
	12: {"december", "dec", "dezember", "dez", "décembre", "diciembre", "dicembre", "dic"},
}

// monthByFold maps a folded month name to its number (built on first use).
var monthByFold = onFirstUse(func() map[string]int {
	m := map[string]int{}
	for n, names := range monthNames {
		for _, s := range names {
			m[foldString(s)] = n
		}
	}
	return m
})

// monthAlt is the regexp alternation of every folded month name, longest
// first (built on first use).
var monthAlt = onFirstUse(func() string {
	byFold := monthByFold()
	names := make([]string, 0, len(byFold))
	for s := range byFold {
		names = append(names, regexp.QuoteMeta(s))
	}
	sort.Slice(names, func(i, j int) bool {
		if len(names[i]) != len(names[j]) {
			return len(names[i]) > len(names[j])
		}
		return names[i] < names[j]
	})
	return `(` + strings.Join(names, "|") + `)`
})

// The date patterns are guarded (guard.go): a line without the bytes a
// match needs is answered without running the regexp, and findDates's own
// digit and month tests come on top.
var (
	reDateISO = mustGuardRE(`\b(\d{4})([-./])(\d{1,2})([-./])(\d{1,2})(?:\b|(t)\d)`)
	reDateNum = mustGuardRE(`\b(\d{1,2})\s?([./-])\s?(\d{1,2})\s?([./-])\s?(\d{4}|\d{2})\b`)
	reDateDMY = mustGuardREOf(func() string {
		return `\b(\d{1,2})(?:st|nd|rd|th|er|e|o)?\.?\s*(?:de\s+|-|/)?` + monthAlt() + `\b\.?(?:\s*,?\s*de\s+|[\s,\-/.']*)(\d{4}|\d{2})\b`
	})
	reDateMDY = mustGuardREOf(func() string {
		return `\b` + monthAlt() + `\b\.?\s*(\d{1,2})(?:st|nd|rd|th)?\b\s*,?\s*(\d{4})\b`
	})
	reDateCJK  = mustGuardRE(`(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日`)
	reSlashNum = mustGuardRE(`\b(\d{1,2})[/-](\d{1,2})[/-](\d{4}|\d{2})\b`)
)

// dateHit is a date found in folded text.
type dateHit struct {
	start, end int
	date       civil
}

func year2(s string) int {
	y, _ := strconv.Atoi(s)
	if len(s) == 2 {
		y += 2000
	}
	return y
}

// findDates lists the valid calendar dates of a folded string, in order.
// mdy says that an ambiguous "03/04/2026" is month first (US documents).
func findDates(f string, mdy bool) []dateHit {
	var hits []dateHit
	add := func(s, e, y, m, d int) {
		if validDate(y, m, d) {
			hits = append(hits, dateHit{s, e, civil{y, m, d}})
		}
	}
	// Every pattern needs some ASCII digits (\d): ISO and CJK six, MDY five,
	// Num four, DMY three; a pattern is not run on a string with fewer.
	// No test below asks for more than six: the count stops there (an
	// amount line has many more).
	digits := countDigitsTo(f, 6)
	if digits < 3 {
		return nil
	}
	// An ISO date needs six digits and four of them before a separator
	// (the cheaper test first: most lines of a receipt have fewer).
	var isoHits [][]int
	if digits >= 6 && hasDigitsThenSep(f, 4, "-./") {
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
	if !hasMonthWord(f) {
		// Both name scanners need a month name ending a word: most lines,
		// amount lines above all, have none.
		return finishDates(hits, f, digits)
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
	return finishDates(hits, f, digits)
}

// numDateMatches lists the reDateNum matches of f that may be dates: both
// separators alike, and a two-digit year after "-" only on a time stamp
// line ("12-01-19 21:13"; elsewhere "12-01-19" is as likely a code). A
// rejected match is searched again from its second number, so "REG #19-
// 10/03/2018" still finds "10/03/2018".
func numDateMatches(f string, digits int) [][]int {
	if digits < 4 || !mayNumDate(f) {
		return nil
	}
	var out [][]int
	for pos := 0; pos < len(f); {
		m := scanNumDate(f, pos)
		if m == nil {
			break
		}
		sep := f[m[4]:m[5]]
		// Reason: "REG #19- 10-03-18" spaces one separator and not the other:
		// a number before a date, not its day.
		unevenSpace := f[m[3]:m[6]] != sep && f[m[7]:m[10]] == f[m[8]:m[9]]
		if sep != f[m[8]:m[9]] || unevenSpace || len(f[m[10]:m[11]]) == 2 && sep != "." && sep != "/" && !hasClock(f) {
			pos = m[6]
			continue
		}
		out = append(out, m)
		pos = m[1]
	}
	return out
}

// finishDates adds the CJK dates to hits and orders them, dropping hits
// nested in an earlier, longer one.
func finishDates(hits []dateHit, f string, digits int) []dateHit {
	if len(hits) == 0 && (digits < 6 || !strings.Contains(f, "年")) {
		return hits // no date, and no CJK date to add (most lines)
	}
	add := func(s, e, y, m, d int) {
		if validDate(y, m, d) {
			hits = append(hits, dateHit{s, e, civil{y, m, d}})
		}
	}
	if digits < 6 || !strings.Contains(f, "年") {
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

// hasDigitsThenSep reports whether n ASCII digits are directly followed by
// one of seps and a digit somewhere in s: every numeric date has that, and
// a pattern is not run on text without it.
//
// n is at least 1 and seps holds no digit. The separators are looked for
// first, one byte at a time through strings.IndexByte (slashTally asks this
// of every line of the document, most of which hold no "/" or "-"), and
// only a separator with a digit after it counts the digits before it; a
// run of one separator ("-----") is passed over at once.
func hasDigitsThenSep(s string, n int, seps string) bool {
	if len(s) < 3 {
		return false // a digit, the separator and a digit
	}
	// A separator at p needs a digit at p-1 and at p+1: 1 <= p <= len(s)-2.
	inner := s[1 : len(s)-1]
	for k := 0; k < len(seps); k++ {
		c := seps[k]
		for from := 0; from < len(inner); {
			q := strings.IndexByte(inner[from:], c)
			if q < 0 {
				break
			}
			p := 1 + from + q // the separator's index in s
			if isDigit(s[p+1]) {
				if digitsBefore(s, p, n) {
					return true
				}
				from = p + 1 // s[p+1], a digit, is no separator
				continue
			}
			// s[p+1] is no digit: no separator up to the end of this run
			// of c has a digit before it.
			for p++; p < len(s) && s[p] == c; p++ {
			}
			from = p // inner[p] is s[p+1]: s[p], no c, is passed too
		}
	}
	return false
}

// countDigitsTo is min(countDigits(s), limit), eight bytes at a time, and
// stops counting at limit.
func countDigitsTo(s string, limit int) int {
	n, i := 0, 0
	for ; i+8 <= len(s) && n < limit; i += 8 {
		n += bits.OnesCount64(digitLanes(load8(s, i)))
	}
	for ; i < len(s) && n < limit; i++ {
		if isDigit(s[i]) {
			n++
		}
	}
	return min(n, limit)
}

// digitsBefore reports whether the n bytes before s[p] are ASCII digits.
func digitsBefore(s string, p, n int) bool {
	if p < n {
		return false
	}
	for k := p - n; k < p; k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return true
}

// byteIn is strings.IndexByte(set, c) >= 0 for a set of a few bytes,
// inlined: hasDigitsThenSep asks it at the end of every number of a line.
func byteIn(c byte, set string) bool {
	for k := 0; k < len(set); k++ {
		if set[k] == c {
			return true
		}
	}
	return false
}

// cjkMatches runs reDateCJK where it can match: a 年 and six digits.
func cjkMatches(f string, digits int) [][]int {
	if digits == 0 {
		return nil
	}
	return reDateCJK().FindAllStringSubmatchIndex(f, -1)
}

// monthLens are the lengths of the folded month names, shortest first.
var monthLens = onFirstUse(func() []int {
	seen := map[int]bool{}
	var out []int
	for s := range monthByFold() {
		if !seen[len(s)] {
			seen[len(s)] = true
			out = append(out, len(s))
		}
	}
	sort.Ints(out)
	return out
})

// monthsByEnd lists, by (a-z, a-z) pair, the folded month names ending
// with those two letters; a name shorter than two letters panics
// (hasMonthWord would miss it). A name with a byte other than a-z could
// never end a run of those letters, and is left out.
var monthsByEnd = onFirstUse(func() *[26 * 26][]string {
	var t [26 * 26][]string
	for s := range monthByFold() {
		if len(s) < 2 {
			panic("rules: month name shorter than two letters: " + s)
		}
		if strings.IndexFunc(s, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
			continue
		}
		k := int(s[len(s)-2]-'a')*26 + int(s[len(s)-1]-'a')
		t[k] = append(t[k], s)
	}
	return &t
})

// hasMonthWord reports whether some folded month name ends where a word
// ends (the "\b" after monthAlt in reDateDMY and reDateMDY): the letters of
// a run ending before a non-word byte, or at the end, end with a month.
// The ends of runs of a-z are found eight bytes at a time (seven ends per
// load), and only there are the names ending with the run's last two
// letters compared with its tail (most words: none).
func hasMonthWord(f string) bool {
	byEnd := monthsByEnd()
	e := 1 // the next end to look at: f[e-1] is a letter, f[e] none
	for ; e+7 <= len(f); e += 7 {
		// Lane t of the block is f[e-1+t]: it ends a run where lane t-1
		// is a letter and lane t is not.
		l := inRange7(load8(f, e-1), 'a', 'z')
		for m := l << 8 &^ l; m != 0; m &= m - 1 {
			// The run's last two letters first, inline: most runs end
			// with two no month name ends with.
			end := e - 1 + firstLane(m)
			if end < 2 || !isLowerASCII(f[end-2]) {
				continue
			}
			if names := byEnd[int(f[end-2]-'a')*26+int(f[end-1]-'a')]; len(names) > 0 && monthEndsAt(f, end, names) {
				return true
			}
		}
	}
	for ; e <= len(f); e++ {
		if isLowerASCII(f[e-1]) && (e == len(f) || !isLowerASCII(f[e])) && e >= 2 && isLowerASCII(f[e-2]) &&
			monthEndsAt(f, e, byEnd[int(f[e-2]-'a')*26+int(f[e-1]-'a')]) {
			return true
		}
	}
	return false
}

// monthEndsAt reports, for a run of a-z ending at e (f[e-1] and f[e-2] are
// letters, f[e] none), whether the run ends a word and one of names, the
// month names ending with its last two letters.
func monthEndsAt(f string, e int, names []string) bool {
	if e < len(f) && isREWordByte(f[e]) {
		return false
	}
	for _, name := range names {
		// The first letters first: most words ending as a month ("-er",
		// "-re", "-il") are none.
		if len(name) <= e && f[e-len(name)] == name[0] && f[e-len(name):e] == name {
			return true
		}
	}
	return false
}

// slashOrder looks at every numeric d/m/y date of the document: a first
// number above 12 proves day-first, a second above 12 proves month-first.
// It returns (mdy, decided).
func slashOrder(ftext string) (mdy bool, decided bool) {
	dmyN, mdyN, _ := slashTally(ftext)
	switch {
	case dmyN > 0 && mdyN == 0:
		return false, true
	case mdyN > 0 && dmyN == 0:
		return true, true
	}
	return false, false
}

// slashTally counts the document's numeric d/m/y dates that prove day-first
// (first number above 12), month-first (second above 12), and those that
// could be read either way (both at most 12 and different).
func slashTally(ftext string) (dmyN, mdyN, ambN int) {
	// The pattern cannot cross a line break ("\n" is a \b edge like the
	// text's ends), so it runs only on the lines where digits meet "/" or
	// "-", with the same matches. Those places are looked for in the whole
	// text, each separator's next one kept until the lines pass it (a
	// search per separator and line cost more than the lines' dates).
	nextSlash, nextDash := digitSepAt(ftext, 0, '/'), digitSepAt(ftext, 0, '-')
	for {
		p := min(uint(nextSlash), uint(nextDash)) // -1 is past every index
		if p >= uint(len(ftext)) {
			break
		}
		ls := strings.LastIndexByte(ftext[:p], '\n') + 1
		le := len(ftext)
		if k := strings.IndexByte(ftext[p:], '\n'); k >= 0 {
			le = int(p) + k
		}
		ln := ftext[ls:le]
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
		if nextSlash >= 0 && nextSlash < le {
			nextSlash = digitSepAt(ftext, le, '/')
		}
		if nextDash >= 0 && nextDash < le {
			nextDash = digitSepAt(ftext, le, '-')
		}
	}
	return dmyN, mdyN, ambN
}

// digitSepAt is the index of the first c in s at or after from with an
// ASCII digit on either side, or -1; a run of c is passed over at once.
func digitSepAt(s string, from int, c byte) int {
	for from < len(s) {
		q := strings.IndexByte(s[from:], c)
		if q < 0 {
			return -1
		}
		p := from + q
		if p+1 < len(s) && isDigit(s[p+1]) {
			if p > 0 && isDigit(s[p-1]) {
				return p
			}
			from = p + 2 // s[p+1], a digit, is no c
			continue
		}
		// No digit after: no c up to the end of this run has a digit
		// before it.
		for p++; p < len(s) && s[p] == c; p++ {
		}
		from = p + 1 // s[p] is no c
	}
	return -1
}
