package review

import (
	"strings"
	"unicode"
)

// VATKey is the comparison key of a supplier's VAT id: letters and digits
// only, uppercase, without a two-letter country prefix ("DE 123 456 789",
// "de123456789" and "123456789" are one id: invx's own evaluation accepts a
// VAT id cited without its prefix, so a rescan may differ just there).
// nil or an id without digits gives "".
func VATKey(vatID *string) string {
	if vatID == nil {
		return ""
	}
	var b strings.Builder
	digits := false
	for _, r := range fold(*vatID) {
		switch {
		case r >= '0' && r <= '9':
			digits = true
			b.WriteRune(r)
		case r >= 'a' && r <= 'z':
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	k := b.String()
	if !digits {
		return ""
	}
	if len(k) > 2 && isUpper(k[0]) && isUpper(k[1]) && k[2] >= '0' && k[2] <= '9' {
		k = k[2:]
	}
	return k
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// NameKey is the comparison key of a supplier's name: folded (case,
// accents, ß), punctuation and spacing ignored, and trailing legal forms
// dropped, so "ACME Tools GmbH & Co. KG", "Acme-Tools" and "acme tools" are
// one supplier. Dotted forms count however they are dotted ("S.p.A.",
// "SpA", "S. p. A."). A name that is nothing but a legal form keeps it. nil
// or a name without letters or digits gives "".
func NameKey(name *string) string {
	if name == nil {
		return ""
	}
	toks := joinInitials(groups(fold(*name)))
	end := len(toks)
	for end > 0 && legalForms[toks[end-1]] {
		end--
	}
	if end == 0 {
		end = len(toks)
	}
	return strings.Join(toks[:end], "")
}

// joinInitials merges runs of one-letter tokens ("s", "p", "a" from
// "S.p.A.") into one token ("spa"), so dotted legal forms are recognised.
func joinInitials(toks []string) []string {
	var out []string
	for i := 0; i < len(toks); {
		if len([]rune(toks[i])) != 1 {
			out = append(out, toks[i])
			i++
			continue
		}
		j := i
		var b strings.Builder
		for j < len(toks) && len([]rune(toks[j])) == 1 {
			b.WriteString(toks[j])
			j++
		}
		out = append(out, b.String())
		i = j
	}
	return out
}

// legalForms are company-form tokens dropped from the end of a name (after
// folding and joinInitials), from the jurisdictions invx's users invoice
// in, and the connectors of compound forms ("GmbH & Co. KG").
var legalForms = map[string]bool{
	// German-speaking
	"gmbh": true, "mbh": true, "ag": true, "kg": true, "kgaa": true, "ohg": true, "ug": true, "ev": true, "eg": true,
	"haftungsbeschrankt": true, "gbr": true, "se": true,
	// English
	"ltd": true, "limited": true, "llc": true, "llp": true, "lp": true, "inc": true, "incorporated": true,
	"corp": true, "corporation": true, "plc": true, "co": true, "company": true, "pty": true,
	// French, Belgian, Swiss, Luxembourg
	"sarl": true, "sa": true, "sas": true, "sasu": true, "eurl": true, "sci": true, "snc": true, "sprl": true, "srl": true,
	// Spanish, Portuguese
	"sl": true, "slu": true, "sau": true, "lda": true,
	// Italian
	"spa": true, "sapa": true, "srls": true, "scarl": true,
	// Dutch, Nordic, Central European
	"bv": true, "nv": true, "vof": true, "cv": true, "ab": true, "as": true, "asa": true, "aps": true, "oy": true, "oyj": true,
	"sro": true, "spzoo": true, "sp": true, "zoo": true, "kft": true, "doo": true, "dd": true,
	// connectors left between two forms
	"and": true, "und": true, "et": true, "y": true,
}
