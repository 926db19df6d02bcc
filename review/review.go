// Package review turns the facts of an invoice into the keys invx compares
// to find a possible duplicate: a supplier seen under two spellings, an
// invoice number typed or scanned two ways. The keys are deliberately
// forgiving: a false match costs a clerk one look (the result is held for
// review, never dropped), a missed match can cost a second payment.
//
// Keys are only for comparing; they are never shown or exported. An empty
// key means "unknown": callers must not match on it.
package review

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// NormalizeInvoiceNumber is the comparison key of an invoice number:
// Unicode-compatibility folded (full-width digits, ligatures), accents
// dropped, case ignored, and every character that is neither a letter nor a
// digit treated as a separator ("RE-2026-00417", "re 2026/417", "#RE2026.417"
// are one number). Leading zeros of each digit run are dropped before the
// separators go, so "RE-2026-00417" matches "RE-2026-417", while zeros
// inside a run count ("2026-0417" gives "2026417", "20260417" stays).
// nil, or a number without letters or digits, gives "".
func NormalizeInvoiceNumber(number *string) string {
	if number == nil {
		return ""
	}
	var b strings.Builder
	for _, group := range groups(fold(*number)) {
		b.WriteString(trimZeros(group))
	}
	return b.String()
}

// trimZeros drops the leading zeros of every run of digits in a group
// ("inv007a01" -> "inv7a1"), keeping one zero of a run that is all zeros.
func trimZeros(g string) string {
	var b strings.Builder
	rs := []rune(g)
	for i := 0; i < len(rs); {
		if !unicode.IsDigit(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && unicode.IsDigit(rs[j]) {
			j++
		}
		run := strings.TrimLeft(string(rs[i:j]), "0")
		if run == "" {
			run = "0"
		}
		b.WriteString(run)
		i = j
	}
	return b.String()
}

// fold lowercases s and drops its accents after compatibility
// decomposition, so "Société", "SOCIETE" and "ｓｏｃｉｅｔｅ" fold alike.
// ß becomes "ss", as an uppercase spelling would give.
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if r == 'ß' {
			b.WriteString("ss")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// groups splits folded text into its runs of letters and digits.
func groups(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
