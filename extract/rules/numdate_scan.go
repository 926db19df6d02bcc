package rules

// Byte scanners for the numeric date patterns. Each answers exactly what
// its regexp answers (leftmost match, and at that start the alternatives
// in the regexp's order of preference: greedy counts first, "\d{4}" before
// "\d{2}"), with the submatch indexes FindStringSubmatchIndex gives; the
// equivalence tests in numdate_scan_test.go hold them to the regexps. They
// replace regexps that ran on every line holding digits and separators.

// digitsAt reports whether f[i:i+n] is n ASCII digits.
func digitsAt(f string, i, n int) bool {
	if i+n > len(f) {
		return false
	}
	for k := i; k < i+n; k++ {
		if !isDigitByte(f[k]) {
			return false
		}
	}
	return true
}

// isDateSep is [./-] (and [-./]).
func isDateSep(c byte) bool { return c == '.' || c == '/' || c == '-' }

// optSpace lists the ends of "\s?" at i, greedy first: i+1 when f[i] is a
// space, then i. An array, not a slice, so the scanners do not allocate.
func optSpace(f string, i int) ([2]int, int) {
	if i < len(f) && isRESpace(f[i]) {
		return [2]int{i + 1, i}, 2
	}
	return [2]int{i, i}, 1
}

// wordEnd reports "\b" at i after a digit: the text ends or a non-word byte
// follows.
func wordEnd(f string, i int) bool { return i == len(f) || !isREWordByte(f[i]) }

// The ...At scanners match at p, a digit where "\b" holds (the caller's
// loop tests it).

// numDateAt is reDateNum anchored at p:
// \b(\d{1,2})\s?([./-])\s?(\d{1,2})\s?([./-])\s?(\d{4}|\d{2})\b
func numDateAt(f string, p int) ([]int, bool) {
	for _, la := range [2]int{2, 1} {
		if !digitsAt(f, p, la) {
			continue
		}
		is, ni := optSpace(f, p+la)
		for _, i := range is[:ni] {
			if i >= len(f) || !isDateSep(f[i]) {
				continue
			}
			js, nj := optSpace(f, i+1)
			for _, j := range js[:nj] {
				for _, lb := range [2]int{2, 1} {
					if !digitsAt(f, j, lb) {
						continue
					}
					ks, nk := optSpace(f, j+lb)
					for _, k := range ks[:nk] {
						if k >= len(f) || !isDateSep(f[k]) {
							continue
						}
						ys, ny := optSpace(f, k+1)
						for _, y := range ys[:ny] {
							for _, ly := range [2]int{4, 2} {
								if digitsAt(f, y, ly) && wordEnd(f, y+ly) {
									return []int{p, y + ly, p, p + la, i, i + 1, j, j + lb, k, k + 1, y, y + ly}, true
								}
							}
						}
					}
				}
			}
		}
	}
	return nil, false
}

// scanNumDate is reDateNum().FindStringSubmatchIndex(f[from:]), its
// indexes into f. A match starts on a digit after a non-word byte; "\b"
// at from is the start of the slice the regexp saw.
func scanNumDate(f string, from int) []int {
	s := f[from:]
	for p := 0; p < len(s); p++ {
		if !isDigitByte(s[p]) || p > 0 && isREWordByte(s[p-1]) {
			continue
		}
		if m, ok := numDateAt(s, p); ok {
			for k := range m {
				m[k] += from
			}
			return m
		}
	}
	return nil
}

// isoDateAt is reDateISO anchored at p:
// \b(\d{4})([-./])(\d{1,2})([-./])(\d{1,2})\b
func isoDateAt(f string, p int) ([]int, bool) {
	if !digitsAt(f, p, 4) || p+4 >= len(f) || !isDateSep(f[p+4]) {
		return nil, false
	}
	for _, lm := range [2]int{2, 1} {
		j := p + 5
		if !digitsAt(f, j, lm) || j+lm >= len(f) || !isDateSep(f[j+lm]) {
			continue
		}
		k := j + lm + 1
		for _, ld := range [2]int{2, 1} {
			if digitsAt(f, k, ld) && isoDateEnd(f, k+ld) {
				return []int{p, k + ld, p, p + 4, p + 4, p + 5, j, j + lm, j + lm, j + lm + 1, k, k + ld}, true
			}
		}
	}
	return nil, false
}

// isoDateEnd reports whether an ISO date may end at i: at a word's end,
// or where ISO 8601 goes on with the time ("2026-11-03T10:42:17", folded
// to "t1...").
func isoDateEnd(f string, i int) bool {
	return wordEnd(f, i) || f[i] == 't' && i+1 < len(f) && isDigitByte(f[i+1])
}

// scanISODates is reDateISO().FindAllStringSubmatchIndex(f, -1), the
// time's "t" and first digit, which the expression matches, left out.
func scanISODates(f string) [][]int {
	var out [][]int
	for p := 0; p < len(f); p++ {
		if !isDigitByte(f[p]) || p > 0 && isREWordByte(f[p-1]) {
			continue
		}
		if m, ok := isoDateAt(f, p); ok {
			out = append(out, m)
			p = m[1] - 1
		}
	}
	return out
}

// slashNumAt is reSlashNum anchored at p:
// \b(\d{1,2})[/-](\d{1,2})[/-](\d{4}|\d{2})\b
func slashNumAt(f string, p int) ([]int, bool) {
	slash := func(i int) bool { return i < len(f) && (f[i] == '/' || f[i] == '-') }
	for _, la := range [2]int{2, 1} {
		if !digitsAt(f, p, la) || !slash(p+la) {
			continue
		}
		j := p + la + 1
		for _, lb := range [2]int{2, 1} {
			if !digitsAt(f, j, lb) || !slash(j+lb) {
				continue
			}
			y := j + lb + 1
			for _, ly := range [2]int{4, 2} {
				if digitsAt(f, y, ly) && wordEnd(f, y+ly) {
					return []int{p, y + ly, p, p + la, j, j + lb, y, y + ly}, true
				}
			}
		}
	}
	return nil, false
}

// scanSlashNums is reSlashNum().FindAllStringSubmatchIndex(f, -1).
func scanSlashNums(f string) [][]int {
	var out [][]int
	for p := 0; p < len(f); p++ {
		if !isDigitByte(f[p]) || p > 0 && isREWordByte(f[p-1]) {
			continue
		}
		if m, ok := slashNumAt(f, p); ok {
			out = append(out, m)
			p = m[1] - 1
		}
	}
	return out
}
