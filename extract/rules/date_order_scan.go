package rules

// The date-order cues reUSContact and reCanadaPost were asked of every
// document with an ambiguous numeric date, over its whole text, and their
// backtrackers were 7 % of a document's work. Both are plain ASCII
// patterns without alternatives that could overlap, so a byte scanner
// that tries each of them only where its first byte can start a match
// answers their MatchString exactly (TestDateOrderScannersMatchRegexp).

// usStateTab and caProvinceTab hold reUSContact's state codes and
// canadaPostPattern's province codes, indexed by their two capitals.
var usStateTab, caProvinceTab = onFirstUse(func() *[26][26]bool {
	return codePairs("AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY")
}), onFirstUse(func() *[26][26]bool {
	return codePairs("AB BC MB NB NL NS NT NU ON PE QC SK YT")
})

// codePairs reads space-separated two-capital codes into a table.
func codePairs(codes string) *[26][26]bool {
	var t [26][26]bool
	for i := 0; i+1 < len(codes); i += 3 {
		t[codes[i]-'A'][codes[i+1]-'A'] = true
	}
	return &t
}

// usContactIn is reUSContact().MatchString(s).
func usContactIn(s string) bool {
	states := usStateTab()
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(':
			// `\([2-9]\d{2}\)[ \t]?[2-9]\d{2}[-. ]\d{4}\b`
			j := phoneDigitsAt(s, i+1, 3, '2')
			if j < 0 || j >= len(s) || s[j] != ')' {
				continue
			}
			j++
			if j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j = phoneDigitsAt(s, j, 3, '2'); j >= 0 && byteAtIn(s, j, " -.") && digitsEndAt(s, j+1, 4) {
				return true
			}
		case c == '+':
			// `\+1[ \t.-]?[2-9]\d{2}[ \t.-][2-9]\d{2}[ \t.-]\d{4}\b`
			if i+1 >= len(s) || s[i+1] != '1' {
				continue
			}
			j := i + 2
			if byteAtIn(s, j, " \t.-") {
				j++
			}
			if j = phoneDigitsAt(s, j, 3, '2'); j < 0 || !byteAtIn(s, j, " \t.-") {
				continue
			}
			if j = phoneDigitsAt(s, j+1, 3, '2'); j >= 0 && byteAtIn(s, j, " \t.-") && digitsEndAt(s, j+1, 4) {
				return true
			}
		case c >= '2' && c <= '9':
			// `\b[2-9]\d{2}[-.][2-9]\d{2}[-.]\d{4}\b`
			if i > 0 && isREWordByte(s[i-1]) {
				continue
			}
			j := phoneDigitsAt(s, i, 3, '2')
			if j < 0 || !byteAtIn(s, j, "-.") {
				continue
			}
			if j = phoneDigitsAt(s, j+1, 3, '2'); j >= 0 && byteAtIn(s, j, "-.") && digitsEndAt(s, j+1, 4) {
				return true
			}
		case c >= 'A' && c <= 'Z':
			// `\b(?:STATE)\.?[ \t]+\d{5}(?:-\d{4})?\b`: after five digits
			// the optional group never decides, as "-" already ends a word.
			if i > 0 && isREWordByte(s[i-1]) || i+1 >= len(s) || s[i+1] < 'A' || s[i+1] > 'Z' || !states[c-'A'][s[i+1]-'A'] {
				continue
			}
			j := i + 2
			if j < len(s) && s[j] == '.' {
				j++
			}
			if j = blanksAt(s, j); j >= 0 && digitsEndAt(s, j, 5) {
				return true
			}
		}
	}
	return false
}

// canadaPostIn is the regexp canadaPostPattern's MatchString.
func canadaPostIn(s string) bool {
	i, _ := canadaPostAt(s)
	return i >= 0
}

// canadaPostAt is the span of the regexp canadaPostPattern's leftmost match,
// -1, -1 when none:
// `\b(?:PROVINCE)\.?,?[ \t]+[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ \t-]?\d[ABCEGHJ-NPRSTV-Z]\d\b`.
// Each optional part is taken when its byte is there: leaving it out needs
// the next part to match that byte, which none can, so the first start
// that matches has one end.
func canadaPostAt(s string) (int, int) {
	provinces := caProvinceTab()
	for i := 0; i+1 < len(s); i++ {
		c, d := s[i], s[i+1]
		if c < 'A' || c > 'Z' || d < 'A' || d > 'Z' || !provinces[c-'A'][d-'A'] || i > 0 && isREWordByte(s[i-1]) {
			continue
		}
		j := i + 2
		if j < len(s) && s[j] == '.' {
			j++
		}
		if j < len(s) && s[j] == ',' {
			j++
		}
		if j = blanksAt(s, j); j < 0 || j+3 > len(s) || !postLetter(s[j], true) || !isDigitByte(s[j+1]) || !postLetter(s[j+2], false) {
			continue
		}
		j += 3
		if byteAtIn(s, j, " \t-") {
			j++
		}
		if j+3 <= len(s) && isDigitByte(s[j]) && postLetter(s[j+1], false) && isDigitByte(s[j+2]) && (j+3 == len(s) || !isREWordByte(s[j+3])) {
			return i, j + 3
		}
	}
	return -1, -1
}

// postLetter reports whether c is a letter Canada Post uses in a postal
// code: [ABCEGHJ-NPRSTVXY] first, [ABCEGHJ-NPRSTV-Z] elsewhere (W and Z
// only there).
func postLetter(c byte, first bool) bool {
	switch c {
	case 'A', 'B', 'C', 'E', 'G', 'H', 'J', 'K', 'L', 'M', 'N', 'P', 'R', 'S', 'T', 'V', 'X', 'Y':
		return true
	case 'W', 'Z':
		return !first
	}
	return false
}

// phoneDigitsAt returns the end of n ASCII digits at s[i:], the first of
// them at least lo, or -1.
func phoneDigitsAt(s string, i, n int, lo byte) int {
	if i < 0 || i+n > len(s) || s[i] < lo || !digitsAt(s, i, n) {
		return -1
	}
	return i + n
}

// digitsEndAt reports whether n ASCII digits at s[i:] end a word (`\d{n}\b`).
func digitsEndAt(s string, i, n int) bool {
	j := phoneDigitsAt(s, i, n, '0')
	return j >= 0 && (j == len(s) || !isREWordByte(s[j]))
}

// blanksAt returns the end of one or more spaces or tabs at s[i:], or -1.
func blanksAt(s string, i int) int {
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// byteAtIn reports whether s[i] exists and is one of set's bytes.
func byteAtIn(s string, i int, set string) bool {
	return i >= 0 && i < len(s) && byteIn(s[i], set)
}
