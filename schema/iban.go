package schema

import "sync"

// ibanLengths maps each country of the SWIFT IBAN registry (release 99,
// 2025) to the length of its IBANs. Countries that use IBANs only
// informally (not in the registry) are left out: a payment to them is rare
// enough on a supplier invoice that a clerk should look at it. Built on
// first use.
var ibanLengths = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
		"BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24,
		"DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
		"FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27,
		"GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
		"IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
		"LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
		"MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
		"PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
		"SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
		"SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
		"YE": 30,
	}
})

// checkIBAN checks supplier_iban: electronic form (upper-case letters and
// digits, no spaces), a registry country with its length, and the ISO 13616
// mod-97 checksum, which catches every single-character error and every
// swap of two adjacent characters, the typos that send a payment astray.
func checkIBAN(w *walker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	return ibanProblem(path, s)
}

// ibanProblem says why s is not a valid IBAN in electronic form, or nil.
// Messages never repeat the number, not even its country code.
func ibanProblem(path, s string) *ValidationError {
	if len(s) < 5 || len(s) > 34 {
		return verr(CategoryIBAN, path, "not an IBAN: want 15 to 34 upper-case letters and digits without spaces")
	}
	for i := range len(s) {
		c := s[i]
		var ok bool
		switch {
		case i < 2:
			ok = 'A' <= c && c <= 'Z'
		case i < 4:
			ok = '0' <= c && c <= '9'
		default:
			ok = ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
		}
		if !ok {
			return verr(CategoryIBAN, path, "not in electronic form at byte %d: want a country code, two check digits, then upper-case letters and digits, no spaces", i)
		}
	}
	n, ok := ibanLengths()[s[:2]]
	if !ok {
		return verr(CategoryIBAN, path, "country code not in the IBAN registry")
	}
	if len(s) != n {
		return verr(CategoryIBAN, path, "wrong length for its country: want %d characters, got %d", n, len(s))
	}
	if ibanMod97(s) != 1 {
		return verr(CategoryIBAN, path, "checksum (ISO 13616 mod 97) does not match; a character is wrong")
	}
	return nil
}

// ibanMod97 moves the first four characters to the end, reads letters as
// 10..35 and returns the remainder of the whole number mod 97, piece by
// piece so that no big integers are needed.
func ibanMod97(s string) int {
	rem := 0
	for _, c := range s[4:] + s[:4] {
		if '0' <= c && c <= '9' {
			rem = (rem*10 + int(c-'0')) % 97
			continue
		}
		rem = (rem*100 + int(c-'A') + 10) % 97
	}
	return rem
}
