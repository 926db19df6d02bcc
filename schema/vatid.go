package schema

import (
	"regexp"
	"sync"
)

// vatIDSyntax maps a VAT id's country prefix to the syntax of the whole id
// in compact form, for the EU member states (Greece as EL, Northern Ireland
// as XI), the United Kingdom, Switzerland and Norway. It checks the shape
// only: check digits differ per country and the VIES service, not invx, is
// the authority on whether a number is issued. Built on first use.
var vatIDSyntax = sync.OnceValue(func() map[string]*regexp.Regexp {
	src := map[string]string{
		"AT": `ATU[0-9]{8}`,
		"BE": `BE[01][0-9]{9}`,
		"BG": `BG[0-9]{9,10}`,
		"CY": `CY[0-9]{8}[A-Z]`,
		"CZ": `CZ[0-9]{8,10}`,
		"DE": `DE[0-9]{9}`,
		"DK": `DK[0-9]{8}`,
		"EE": `EE[0-9]{9}`,
		"EL": `EL[0-9]{9}`,
		// A letter first (companies, foreigners) or last (citizens).
		"ES": `ES([A-Z][0-9]{7}[0-9A-Z]|[0-9]{8}[A-Z])`,
		"FI": `FI[0-9]{8}`,
		"FR": `FR[0-9A-HJ-NP-Z]{2}[0-9]{9}`,
		"HR": `HR[0-9]{11}`,
		"HU": `HU[0-9]{8}`,
		"IE": `IE[0-9][0-9A-Z+*][0-9]{5}[A-W][A-IW]?`,
		"IT": `IT[0-9]{11}`,
		"LT": `LT([0-9]{9}|[0-9]{12})`,
		"LU": `LU[0-9]{8}`,
		"LV": `LV[0-9]{11}`,
		"MT": `MT[0-9]{8}`,
		"NL": `NL[0-9]{9}B[0-9]{2}`,
		"PL": `PL[0-9]{10}`,
		"PT": `PT[0-9]{9}`,
		"RO": `RO[1-9][0-9]{1,9}`,
		"SE": `SE[0-9]{10}01`,
		"SI": `SI[0-9]{8}`,
		"SK": `SK[0-9]{10}`,
		"XI": `XI([0-9]{9}|[0-9]{12}|GD[0-4][0-9]{2}|HA[5-9][0-9]{2})`,
		"GB": `GB([0-9]{9}|[0-9]{12}|GD[0-4][0-9]{2}|HA[5-9][0-9]{2})`,
		// The UID with the VAT register's suffix in any national language.
		"CH": `CHE[0-9]{9}(MWST|TVA|IVA)?`,
		"NO": `NO[0-9]{9}(MVA)?`,
	}
	m := make(map[string]*regexp.Regexp, len(src))
	for prefix, re := range src {
		m[prefix] = regexp.MustCompile(`^(?:` + re + `)$`)
	}
	return m
})

// Bounds of a VAT id in compact form. The shortest covered id is RO plus
// two digits; the longest, 20, leaves room for other countries' tax ids.
const (
	minVATIDBytes = 4
	maxVATIDBytes = 20
)

// checkVATID checks supplier_vat_id. The value is in compact form: the
// country prefix, then upper-case letters and digits, without the spaces,
// dots and dashes invoices print ("DE 123 456 789" is DE123456789), so equal
// ids compare equal in exports and in the duplicate check. An id with a
// covered prefix must match its country's syntax; GR is refused because
// Greek VAT ids carry EL. An id with another prefix (a tax id of a country
// outside the table) is accepted on its form alone.
func checkVATID(w *walker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if len(s) < minVATIDBytes || len(s) > maxVATIDBytes {
		return verr(CategoryVATID, path, "want %d to %d letters and digits", minVATIDBytes, maxVATIDBytes)
	}
	for i := range len(s) {
		c := s[i]
		if !('A' <= c && c <= 'Z') && !('0' <= c && c <= '9') {
			return verr(CategoryVATID, path, "not in compact form at byte %d: want upper-case letters and digits only, no spaces, dots or dashes", i)
		}
	}
	prefix := s[:2]
	if prefix == "GR" {
		return verr(CategoryVATID, path, "Greek VAT ids use the prefix EL, not GR")
	}
	if re, ok := vatIDSyntax()[prefix]; ok && !re.MatchString(s) {
		return verr(CategoryVATID, path, "does not match the VAT id syntax of its country prefix")
	}
	return nil
}
