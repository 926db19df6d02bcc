package rules

// mayNumDate reports whether reDateNum could match in f: a match holds two
// separators (".", "/" or "-"), each with a digit on both sides (one \s
// allowed between), two to five bytes apart (\s? \d{1,2} \s? between them).
// Receipt lines are full of prices ("12.50   25.00") whose dots are too
// far apart; the regexp is not run on them.
func mayNumDate(f string) bool {
	last := -10 // the last separator with digits around it
	for p := 1; p+1 < len(f); p++ {
		if p+8 <= len(f) {
			// Eight bytes at a time past those that are no separator.
			x := load8(f, p)
			m := byteLanes(x, '.') | byteLanes(x, '/') | byteLanes(x, '-')
			if m == 0 {
				p += 7 // the loop steps to p+8
				continue
			}
			if p += firstLane(m); p+1 >= len(f) {
				break // the last byte: no digit can follow it
			}
		}
		if c := f[p]; c != '.' && c != '/' && c != '-' {
			continue
		}
		if !(isDigitByte(f[p-1]) || p >= 2 && isRESpace(f[p-1]) && isDigitByte(f[p-2])) {
			continue
		}
		if !(isDigitByte(f[p+1]) || p+2 < len(f) && isRESpace(f[p+1]) && isDigitByte(f[p+2])) {
			continue
		}
		if p-last >= 2 && p-last <= 5 {
			return true
		}
		last = p
	}
	return false
}
