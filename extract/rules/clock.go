package rules

// clockAt reports whether a clock time ("20:49", "5:23:26", "13 : 58")
// starts at byte i of s: one or two digits not preceded by a digit, a colon
// (spaces allowed around it), two digits not followed by another digit.
func clockAt(s string, i int) bool {
	if i > 0 && isDigitByte(s[i-1]) {
		return false
	}
	j := i
	for j < len(s) && j-i < 2 && isDigitByte(s[j]) {
		j++
	}
	if j == i || j < len(s) && isDigitByte(s[j]) {
		return false
	}
	if j < len(s) && s[j] == ' ' {
		j++
	}
	if j >= len(s) || s[j] != ':' {
		return false
	}
	j++
	if j < len(s) && s[j] == ' ' {
		j++
	}
	return j+1 < len(s) && isDigitByte(s[j]) && isDigitByte(s[j+1]) && (j+2 == len(s) || !isDigitByte(s[j+2]))
}

// hasClock reports whether s holds a clock time: a till slip prints its
// date beside the time of the sale.
func hasClock(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && i > 0 {
			// Walk back over at most two digits and a space to the start.
			for k := i - 1; k >= 0 && k >= i-3; k-- {
				if clockAt(s, k) {
					return true
				}
			}
		}
	}
	return false
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }
