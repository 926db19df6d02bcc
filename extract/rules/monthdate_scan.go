package rules

import (
	"slices"
	"strings"
)

// Byte scanners for the month-name date patterns, reDateDMY and reDateMDY:
// the month alternation made the backtracker try some ninety names at
// every position of a line holding a month word, a twentieth of the
// extractor's time. Each scanner answers exactly what its regexp answers
// (leftmost match; at that start the first way through the pattern in the
// regexp's order of preference: greedy counts longest first, alternatives
// left to right, optional parts taken before skipped), with the submatch
// indexes FindAllStringSubmatchIndex gives; TestMonthDateScannersMatchRegexp
// holds them to the regexps. Each step calls its continuation k with the
// ends it can reach, in order, and stops at the first that leads to a
// match; nothing is recorded before the whole match succeeds.

// monthNamesByFirst lists the folded month names by first byte, each list
// in monthAlt's order (longest first, then alphabetical).
var monthNamesByFirst = onFirstUse(func() *[256][]string {
	names := make([]string, 0, len(monthByFold()))
	for s := range monthByFold() {
		names = append(names, s)
	}
	slices.SortFunc(names, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	var t [256][]string
	for _, s := range names {
		t[s[0]] = append(t[s[0]], s)
	}
	return &t
})

// monthAt is the month alternation at i.
func monthAt(f string, i int, k func(int) bool) bool {
	if i >= len(f) {
		return false
	}
	for _, name := range monthNamesByFirst()[f[i]] {
		if strings.HasPrefix(f[i:], name) && k(i+len(name)) {
			return true
		}
	}
	return false
}

// spaceEnd returns the end of the run of \s from i.
func spaceEnd(f string, i int) int {
	for i < len(f) && isRESpace(f[i]) {
		i++
	}
	return i
}

// spacesAt is \s* at i.
func spacesAt(f string, i int, k func(int) bool) bool {
	for q := spaceEnd(f, i); q >= i; q-- {
		if k(q) {
			return true
		}
	}
	return false
}

// optByteAt is c? at i.
func optByteAt(f string, i int, c byte, k func(int) bool) bool {
	if i < len(f) && f[i] == c && k(i+1) {
		return true
	}
	return k(i)
}

// daysAt is (\d{1,2}) at i.
func daysAt(f string, i int, k func(int) bool) bool {
	if digitsAt(f, i, 2) && k(i+2) {
		return true
	}
	return digitsAt(f, i, 1) && k(i+1)
}

// optWordAt is (?:w1|w2|...)? at i.
func optWordAt(f string, i int, words []string, k func(int) bool) bool {
	for _, w := range words {
		if strings.HasPrefix(f[i:], w) && k(i+len(w)) {
			return true
		}
	}
	return k(i)
}

// deSpacesAt is de\s+ at i.
func deSpacesAt(f string, i int, k func(int) bool) bool {
	if !strings.HasPrefix(f[i:], "de") {
		return false
	}
	for q := spaceEnd(f, i+2); q > i+2; q-- {
		if k(q) {
			return true
		}
	}
	return false
}

var (
	dmyOrdinals = []string{"st", "nd", "rd", "th", "er", "e", "o"}
	mdyOrdinals = []string{"st", "nd", "rd", "th"}
)

// dmyAt is reDateDMY anchored at p, a digit where \b holds:
// \b(\d{1,2})(?:st|nd|rd|th|er|e|o)?\.?\s*(?:de\s+|-|/)?(month)\b\.?(?:\s*,?\s*de\s+|[\s,\-/.']*)(\d{4}|\d{2})\b
func dmyAt(f string, p int) (m [8]int, ok bool) {
	ok = daysAt(f, p, func(d int) bool {
		return optWordAt(f, d, dmyOrdinals, func(i int) bool {
			return optByteAt(f, i, '.', func(i int) bool {
				return spacesAt(f, i, func(i int) bool {
					// (?:de\s+|-|/)?
					next := func(ms int) bool {
						return monthAt(f, ms, func(me int) bool {
							if !atBoundary(f, me) {
								return false
							}
							return optByteAt(f, me, '.', func(i int) bool {
								return dmyYearSepAt(f, i, func(ys int) bool {
									ye := -1
									if digitsAt(f, ys, 4) && wordEnd(f, ys+4) {
										ye = ys + 4
									} else if digitsAt(f, ys, 2) && wordEnd(f, ys+2) {
										ye = ys + 2
									}
									if ye < 0 {
										return false
									}
									m = [8]int{p, ye, p, d, ms, me, ys, ye}
									return true
								})
							})
						})
					}
					if deSpacesAt(f, i, next) {
						return true
					}
					if i < len(f) && (f[i] == '-' || f[i] == '/') && next(i+1) {
						return true
					}
					return next(i)
				})
			})
		})
	})
	return m, ok
}

// isDMYYearSep is [\s,\-/.'].
func isDMYYearSep(c byte) bool {
	return isRESpace(c) || c == ',' || c == '-' || c == '/' || c == '.' || c == '\''
}

// dmyYearSepAt is (?:\s*,?\s*de\s+|[\s,\-/.']*) at i. Of the first
// alternative's ways, only those with "de" right after the spaces can go
// on, so its \s* are tried at their full runs alone (where a shorter run
// stops, a space stands where "," or "de" must); the ways that repeat an
// end already tried are left out.
func dmyYearSepAt(f string, i int, k func(int) bool) bool {
	r := spaceEnd(f, i)
	if r < len(f) && f[r] == ',' && deSpacesAt(f, spaceEnd(f, r+1), k) {
		return true
	}
	if deSpacesAt(f, r, k) {
		return true
	}
	e := i
	for e < len(f) && isDMYYearSep(f[e]) {
		e++
	}
	for q := e; q >= i; q-- {
		if k(q) {
			return true
		}
	}
	return false
}

// mdyAt is reDateMDY anchored at p, where \b holds:
// \b(month)\b\.?\s*(\d{1,2})(?:st|nd|rd|th)?\b\s*,?\s*(\d{4})\b
func mdyAt(f string, p int) (m [8]int, ok bool) {
	ok = monthAt(f, p, func(me int) bool {
		if !atBoundary(f, me) {
			return false
		}
		return optByteAt(f, me, '.', func(i int) bool {
			return spacesAt(f, i, func(ds int) bool {
				return daysAt(f, ds, func(de int) bool {
					return optWordAt(f, de, mdyOrdinals, func(i int) bool {
						if !atBoundary(f, i) {
							return false
						}
						// \s*,?\s* before \d{4}: only a way that ends on a
						// digit goes on, so the runs are tried whole (as in
						// dmyYearSepAt).
						r := spaceEnd(f, i)
						ys := -1
						if r < len(f) && f[r] == ',' && digitsAt(f, spaceEnd(f, r+1), 4) && wordEnd(f, spaceEnd(f, r+1)+4) {
							ys = spaceEnd(f, r+1)
						} else if digitsAt(f, r, 4) && wordEnd(f, r+4) {
							ys = r
						}
						if ys < 0 {
							return false
						}
						m = [8]int{p, ys + 4, p, me, ds, de, ys, ys + 4}
						return true
					})
				})
			})
		})
	})
	return m, ok
}

// scanMonthDates is FindAllStringSubmatchIndex(f, -1) of the pattern at
// is anchored at each start where \b holds and may opens a match.
func scanMonthDates(f string, may func(c byte) bool, at func(string, int) ([8]int, bool)) [][]int {
	var out [][]int
	for p := 0; p < len(f); p++ {
		if !may(f[p]) || !atBoundary(f, p) {
			continue
		}
		m, ok := at(f, p)
		if !ok {
			continue
		}
		out = append(out, m[:])
		p = m[1] - 1
	}
	return out
}

// scanDMYDates is reDateDMY().FindAllStringSubmatchIndex(f, -1).
func scanDMYDates(f string) [][]int { return scanMonthDates(f, isDigitByte, dmyAt) }

// scanMDYDates is reDateMDY().FindAllStringSubmatchIndex(f, -1).
func scanMDYDates(f string) [][]int {
	names := monthNamesByFirst()
	return scanMonthDates(f, func(c byte) bool { return names[c] != nil }, mdyAt)
}
