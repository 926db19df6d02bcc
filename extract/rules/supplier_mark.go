package rules

import "strings"

// partyNotePhrases open a note about another party: the owner or operator
// behind a trading name, or a former name. Such a line names that party
// after the phrase (scanOwners, scanNotIssuer read it there); the line as a
// whole is never the issuer.
var partyNotePhrases = []string{"owned by", "own by", "owner by", "owned and operated by", "operated by",
	"dimiliki oleh", "managed by", "a company owned by", "formerly known as", "formerly", "f.k.a", "fka",
	"licensee of", "licensed by", "franchisee of"}

// opensPartyNote reports whether name starts with such a phrase, inside
// brackets or not ("(FORMERLY KNOWN AS ...)"). It compares ASCII case
// without folding the name: addEv asks it of every candidate.
func opensPartyNote(name string) bool {
	t := strings.TrimLeft(name, " ([")
	for _, p := range partyNotePhrases {
		if len(t) >= len(p) && strings.EqualFold(t[:len(p)], p) && !isASCIILetter(byteAt(t, len(p))) {
			return true
		}
	}
	return false
}
