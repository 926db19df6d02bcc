package rules

// identTail reports whether the three capitals ending at raw[j] open an
// identifier rather than name a currency: digits glued to them that go on
// into letters ("AOA1-ADI", a coupon code; "EUR1.234,56" goes on into
// none), or a comma glued to them and to the next word ("SEK,U3", a
// street address's abbreviations run together).
func identTail(raw string, j int) bool {
	k := j
	if k < len(raw) && isDigit(raw[k]) {
		for k < len(raw) && isDigit(raw[k]) {
			k++
		}
		if k < len(raw) && raw[k] == '-' {
			k++
		}
		return k < len(raw) && isASCIILetter(raw[k])
	}
	return k+1 < len(raw) && raw[k] == ',' && isASCIILetter(raw[k+1])
}
