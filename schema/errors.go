package schema

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// Category classifies why a candidate document was rejected. Categories are
// bounded and stable so they can be metric labels and drive the repair
// feedback; a new check reuses a category rather than inventing one.
type Category string

// The rejection categories. The comment on each lists what falls under it.
const (
	// CategoryDecode: not JSON, not valid UTF-8, empty, larger than 64 KiB,
	// a lone UTF-16 surrogate escape ("\ud800") in any string, not an object
	// (a top-level null included), a value of the wrong JSON type, or a
	// missing action_items key.
	CategoryDecode Category = "decode"
	// CategoryDuplicateKey: the same key twice in one object, or two keys
	// that differ only in case, which encoding/json would silently merge.
	CategoryDuplicateKey Category = "duplicate_key"
	// CategoryTrailingData: anything but whitespace after the first value.
	CategoryTrailingData Category = "trailing_data"
	// CategoryUnknownField: a key the schema does not have. Keys match
	// case-sensitively, unlike encoding/json.
	CategoryUnknownField Category = "unknown_field"
	// CategorySchemaVersion: schema_version missing or naming another version.
	CategorySchemaVersion Category = "schema_version"
	// CategoryDisplay: title, bullets and the byte caps and character rules
	// that keep every string safe to show: a missing, empty or blank title,
	// a missing bullets key, bullets outside 1..5, an empty bullet, a string
	// over its byte cap, a control character other than \n and \t, a
	// bidirectional control (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F,
	// U+061C) in any displayed string, action evidence included.
	CategoryDisplay Category = "display"
	// CategoryFacts: the invoice facts: a missing invoice object or fact key,
	// a currency outside the active ISO 4217 table, a total_minor that is not
	// a non-negative integer up to 2^53-1, a due_date that is not a real
	// YYYY-MM-DD date, an empty supplier_name or invoice_number.
	CategoryFacts Category = "facts"
	// CategoryActionKind: an action kind the version does not define.
	CategoryActionKind Category = "action_kind"
	// CategoryActionID: a missing, empty, repeated or malformed action id.
	CategoryActionID Category = "action_id"
	// CategoryActionEvidence: missing or blank evidence, or evidence that is
	// not an exact substring of the normalised source text.
	CategoryActionEvidence Category = "action_evidence"

	// The categories below are reported only by invoice-v2.

	// CategoryEvidence: the evidence of a fact is missing while the fact is
	// stated, given while the fact is null, blank, not an exact substring of
	// the normalised source, or a substring that does not hold the value
	// (the amount's digits, the date, the name or id).
	CategoryEvidence Category = "evidence"
	// CategoryIBAN: supplier_iban not in electronic form, of an unknown
	// country or the wrong length for its country, or failing the ISO 13616
	// mod-97 checksum.
	CategoryIBAN Category = "iban"
	// CategoryVATID: supplier_vat_id not in compact form, or not matching the
	// VAT id syntax of its country prefix (EU member states, XI, GB, CH, NO).
	CategoryVATID Category = "vat_id"
	// CategoryArithmetic: the amounts disagree with each other or with the
	// document type: net + tax != total, tax lines not adding up to net and
	// tax, complete line items not adding up to net, a sign against the
	// document type, a due date before the issue date. It is [Reviewable]:
	// the document itself may be wrong.
	CategoryArithmetic Category = "arithmetic"
)

var allCategories = []Category{
	CategoryDecode,
	CategoryDuplicateKey,
	CategoryTrailingData,
	CategoryUnknownField,
	CategorySchemaVersion,
	CategoryDisplay,
	CategoryFacts,
	CategoryActionKind,
	CategoryActionID,
	CategoryActionEvidence,
	CategoryEvidence,
	CategoryIBAN,
	CategoryVATID,
	CategoryArithmetic,
}

// Repairable reports whether a failure of category c is worth re-asking a
// model that takes the error as feedback (the runner's --repair). Every
// category Validate reports is: each names something the answer got wrong,
// and the message says what is wanted. CategoryArithmetic included: a model
// often misreads one amount of several that must agree. A category Validate
// does not report (a provider's own, such as "refusal") is not judged here.
func Repairable(c Category) bool {
	return slices.Contains(allCategories, c)
}

// Reviewable reports whether a document failing only checks of category c
// may still be committed, held for a clerk with c as its review reason,
// instead of being rejected. That is the case for CategoryArithmetic alone:
// real invoices do carry inconsistent sums, and neither a re-ask nor a
// provider that cannot repair (the rules extractor) can fix the document
// itself. See [Version.ValidateReviewable].
func Reviewable(c Category) bool {
	return c == CategoryArithmetic
}

// Categories returns every category Validate can report, so metrics can
// register their label values up front instead of discovering them.
func Categories() []Category {
	return append([]Category(nil), allCategories...)
}

// ValidationError is the only error Validate returns. It is fed back to the
// model on a repair attempt and written to logs and attempt rows, so Msg
// never carries candidate or source values: only schema key names, indexes,
// byte offsets and limits, plus unknown key names truncated to 40 bytes and
// quoted as ASCII.
type ValidationError struct {
	// Path locates the offending value: "title", "bullets[2]",
	// "invoice.total_minor", "action_items[0].evidence", or "$" for the
	// document as a whole.
	Path     string
	Category Category
	// Msg says what is wrong and, where it helps a repair, what is wanted.
	Msg string
}

// Error renders "<category>: <path>: <msg>".
func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Category, e.Path, e.Msg)
}

func verr(cat Category, path, format string, args ...any) *ValidationError {
	return &ValidationError{Path: path, Category: cat, Msg: fmt.Sprintf(format, args...)}
}

// maxKeyEcho bounds how much of a candidate's own key name an error may
// repeat: enough to find the key, too little to smuggle invoice text out.
const maxKeyEcho = 40

// quoteKey quotes a candidate key for an error message: truncated on a rune
// boundary and escaped to ASCII so the message stays one printable line.
func quoteKey(k string) string {
	if len(k) > maxKeyEcho {
		cut := maxKeyEcho
		for cut > 0 && !utf8.RuneStart(k[cut]) {
			cut--
		}
		return fmt.Sprintf("%+q (truncated)", k[:cut])
	}
	return fmt.Sprintf("%+q", k)
}
