package rules

import "strings"

// reOpensPartyNote matches a name that opens with the phrase of a note
// about another party: the owner or operator behind a trading name, or a
// former name. Such a line names that party after the phrase (scanOwners,
// scanNotIssuer read it there); the line as a whole is never the issuer.
var reOpensPartyNote = lexPrefixRE("owned by", "own by", "owner by", "owned and operated by", "operated by",
	"dimiliki oleh", "managed by", "a company owned by", "formerly known as", "formerly", "f.k.a", "fka",
	"licensee of", "licensed by", "franchisee of")

// opensPartyNote reports whether name starts with such a phrase, inside
// brackets or not ("(FORMERLY KNOWN AS ...)").
func opensPartyNote(name string) bool {
	return reOpensPartyNote.MatchString(foldString(strings.TrimLeft(name, " ([")))
}
