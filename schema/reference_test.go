// reference_test.go is the validator as it was at 15e1d4e (validate.go,
// validate_v2.go, bytetokens.go, tokens.go, iban.go, vatid.go, evidence.go,
// evidence_xml.go, arithmetic.go), every top-level name prefixed "ref". It
// is frozen: the equivalence test and FuzzValidateEquivalent hold the
// current validator to it. Never edit it to make them pass.
//
// One deliberate exception, data rather than algorithm: what names a
// currency in evidence is the live table (currencyNames, and a place of
// the currency's one country, PlaceCurrency), because evidence rules are
// extended on purpose ("$" for MYR, issuers' places) and the reference
// holds the validator's code, not yesterday's list of symbols.

package schema

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// ---- frozen from validate.go ----

// Limits shared by every version so far. They are bytes, not characters,
// because they protect storage, terminals and prompts, all of which pay per
// byte.
const (
	// maxDocumentBytes caps a candidate answer before any parsing, so a
	// runaway model cannot make validation slow or memory-hungry.
	refmaxDocumentBytes = 64 << 10

	refmaxTitleBytes         = 200
	refmaxBulletBytes        = 300
	refmaxSupplierNameBytes  = 200
	refmaxInvoiceNumberBytes = 64
	refmaxEvidenceBytes      = 500
	refmaxActionIDBytes      = 64

	refminBullets = 1
	refmaxBullets = 5

	// maxSafeInteger is the largest integer every JSON consumer (a
	// JavaScript dashboard included) reads back exactly.
	refmaxSafeInteger = 1<<53 - 1
)

// walker validates a well-formed document in one pass over its JSON
// tokens, so the error it reports is the first in document order whatever
// its category. It never needs to skip a nested value: the first problem
// ends the walk.
type refwalker struct {
	dec     reftokenSource
	source  string
	version string
	// ids maps each action id seen so far to its item index.
	ids map[string]int
	// item is the index of the action item being walked.
	item int
	// checks relaxes the walk for a correction; zero for a provider's
	// answer.
	checks checks
}

// field is one key an object may (and must) have. check consumes exactly
// the key's value; missing builds the error for an object without the key,
// whose category is the one an empty value of that key would get.
type reffield struct {
	name    string
	check   func(w *refwalker, path string) *ValidationError
	missing func(path string) *ValidationError
}

func refmissingAs(cat Category, format string, args ...any) func(string) *ValidationError {
	return func(path string) *ValidationError { return verr(cat, path, format, args...) }
}

// v1Fields, v1FactFields and v1ActionFields list the keys of
// invoice-summary-v1 in the Go type's field order; a test keeps them in step
// with InvoiceSummaryV1.
var (
	refv1Fields = []reffield{
		{"schema_version", refcheckSchemaVersion, func(path string) *ValidationError {
			return verr(CategorySchemaVersion, path, "missing; want %q", V1)
		}},
		{"title", refcheckTitle, refmissingAs(CategoryDisplay, "missing title")},
		{"bullets", refcheckBullets, refmissingAs(CategoryDisplay, "missing bullets; want %d to %d", refminBullets, refmaxBullets)},
		{"invoice", refcheckInvoice, refmissingAs(CategoryFacts, "missing invoice object")},
		{"action_items", refcheckActionItems, refmissingAs(CategoryDecode, "missing action_items; use [] when there are none")},
	}
	refv1FactFields = []reffield{
		{"supplier_name", reffactText(refmaxSupplierNameBytes), refmissingFact},
		{"invoice_number", reffactText(refmaxInvoiceNumberBytes), refmissingFact},
		{"currency", refcheckCurrency, refmissingFact},
		{"total_minor", refcheckTotalMinor, refmissingFact},
		{"due_date", refcheckDueDate, refmissingFact},
	}
	refv1ActionFields = []reffield{
		{"id", refcheckActionID, refmissingAs(CategoryActionID, "missing id")},
		{"kind", refcheckActionKind, refmissingAs(CategoryActionKind, "missing kind")},
		{"evidence", refcheckEvidence, refmissingAs(CategoryActionEvidence, "missing evidence")},
	}
	refv1Kinds = []string{KindVerifyPurchaseOrder, KindReviewTax, KindContactSupplier}
)

var refmissingFact = refmissingAs(CategoryFacts, "required fact key missing; use null when the invoice does not state it")

// walkAndDecode runs the checks every version shares: syntax (one value,
// no trailing data, no lone surrogate), then the walk over fields (types,
// unknown and duplicate keys, caps, display rules, each value's syntax),
// then decoding into the version's Go type.
func refwalkAndDecode(v *Version, raw []byte, source string, c checks, fields []reffield, into any) *ValidationError {
	first, e := refcheckSyntax(raw)
	if e != nil {
		return e
	}
	// Numbers stay their literal text (json.Number) so money can be judged
	// as written: 12.0 and 1e3 are floats here even though they hold
	// integers.
	w := &refwalker{dec: &refbyteTokens{b: first}, source: source, version: v.Name, ids: map[string]int{}, checks: c}
	if e := w.document(fields); e != nil {
		return e
	}
	// The walk has checked every key and value; decoding into the Go type
	// is what makes the type, not the walker, the shape that gets stored.
	if err := json.Unmarshal(first, into); err != nil {
		return verr(CategoryDecode, "$", "does not decode into %s", v.Name)
	}
	return nil
}

func refvalidateV1(v *Version, raw []byte, source string, c checks) (*Result, *ValidationError) {
	var doc InvoiceSummaryV1
	if e := refwalkAndDecode(v, raw, source, c, refv1Fields, &doc); e != nil {
		return nil, e
	}
	if doc.ActionItems == nil {
		doc.ActionItems = []ActionItem{}
	}
	canon, e := refcanonicalJSON(doc)
	if e != nil {
		return nil, e
	}
	return &Result{
		Version: v.Name,
		JSON:    canon,
		Facts:   doc.Invoice,
		Actions: doc.ActionItems,
		Title:   doc.Title,
		Bullets: doc.Bullets,
	}, nil
}

// checkSyntax is the first of two phases: it accepts exactly one
// well-formed JSON value, optionally surrounded by whitespace, and returns
// it. Only then is the document walked for meaning, so a broken or doubled
// answer is reported as such ("{}{}" is trailing data, not a missing key),
// and every later check can trust the token stream.
func refcheckSyntax(raw []byte) ([]byte, *ValidationError) {
	if len(raw) > refmaxDocumentBytes {
		return nil, verr(CategoryDecode, "$", "larger than %d bytes", refmaxDocumentBytes)
	}
	// encoding/json would silently turn invalid UTF-8 into U+FFFD, and the
	// canonical form would then differ from what the model sent.
	if !utf8.Valid(raw) {
		return nil, verr(CategoryDecode, "$", "not valid UTF-8 at byte %d", refinvalidUTF8Offset(raw))
	}
	if len(bytes.TrimLeft(raw, refjsonSpace)) == 0 {
		return nil, verr(CategoryDecode, "$", "empty answer, want a JSON object")
	}
	if json.Valid(raw) {
		// One value and white space only (nearly every answer): the first
		// value ends where the trailing space starts, as the decoder below
		// would find, read by one scan that allocates nothing. Anything
		// else takes the decoder, whose errors say what is wrong.
		end := len(bytes.TrimRight(raw, refjsonSpace))
		if i := refloneSurrogate(raw[:end]); i >= 0 {
			return nil, refloneSurrogateError(i)
		}
		return raw[:end], nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return nil, refsyntaxError("$", err)
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(raw[end:], refjsonSpace); len(rest) > 0 {
		return nil, verr(CategoryTrailingData, "$", "data after the JSON document at byte %d", len(raw)-len(rest))
	}
	// encoding/json turns a lone surrogate escape into U+FFFD, and after
	// decoding a replaced surrogate looks like a real U+FFFD: only the raw
	// escapes can tell them apart. Checking here covers every string, keys
	// included, of every version, since every version starts with this phase.
	if i := refloneSurrogate(raw[:end]); i >= 0 {
		return nil, refloneSurrogateError(i)
	}
	return raw[:end], nil
}

func refloneSurrogateError(i int) *ValidationError {
	return verr(CategoryDecode, "$", "lone UTF-16 surrogate escape at byte %d; characters beyond U+FFFF need a surrogate pair or plain UTF-8", i)
}

// loneSurrogate returns the offset of the first \uXXXX escape in a
// well-formed JSON value that names a UTF-16 surrogate not paired as high
// (D800-DBFF) then low (DC00-DFFF), or -1 when there is none. It relies on
// the value being well formed: outside strings nothing is escaped, and every
// \u is followed by four hex digits.
func refloneSurrogate(b []byte) int {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch {
		case c == '"':
			inString = false
		case c == '\\' && b[i+1] == 'u':
			r := refescapedUnit(b, i)
			switch {
			case r < 0xd800 || r > 0xdfff:
				i += len(`\uXXXX`) - 1
			case r <= 0xdbff && refescapedUnit(b, i+6) >= 0xdc00 && refescapedUnit(b, i+6) <= 0xdfff:
				i += len(`\uXXXX\uXXXX`) - 1
			default:
				return i
			}
		case c == '\\':
			i++ // a one-character escape: \" must not end the string
		}
	}
	return -1
}

// escapedUnit reads the UTF-16 code unit of a \uXXXX escape at b[i], or -1
// when there is no such escape there.
func refescapedUnit(b []byte, i int) int {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return -1
	}
	u, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
	if err != nil {
		return -1
	}
	return int(u)
}

// jsonSpace is the whitespace JSON allows between tokens.
const refjsonSpace = " \t\r\n"

func refinvalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// canonicalJSON encodes a decoded document the one way invx stores it.
// HTML escaping is off because results are data, not markup, and escaped
// evidence would no longer be a byte-for-byte substring of the source.
func refcanonicalJSON(doc any) ([]byte, *ValidationError) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, verr(CategoryDecode, "$", "cannot be re-encoded")
	}
	canon := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	// Escaping can make the canonical form longer than the raw answer
	// (U+2028 becomes \u2028). Refusing it here keeps the promise that a
	// stored result always validates again.
	if len(canon) > refmaxDocumentBytes {
		return nil, verr(CategoryDecode, "$", "canonical form larger than %d bytes", refmaxDocumentBytes)
	}
	return canon, nil
}

// document walks the one top-level object.
func (w *refwalker) document(fields []reffield) *ValidationError {
	if e := w.open("$", '{', "a JSON object"); e != nil {
		return e
	}
	return w.object("", fields)
}

// object walks the members of an object whose '{' has been read, up to and
// including its '}'. Keys are compared exactly, as the schema spells them,
// and also folded, because encoding/json folds case and would let a
// "Title" overwrite a "title".
func (w *refwalker) object(path string, fields []reffield) *ValidationError {
	// Every key seen is one of fields (unknown keys end the walk), and no
	// version has more than the buffer holds, so seen stays on the stack.
	var buf [24]string
	seen := buf[:0]
	for w.dec.More() {
		tok, e := w.token(refat(path))
		if e != nil {
			return e
		}
		key, ok := tok.(string)
		if !ok {
			// The decoder only hands out strings in key position.
			return verr(CategoryDecode, refat(path), "object key is not a string")
		}
		for _, prev := range seen {
			if prev == key {
				return verr(CategoryDuplicateKey, refjoin(path, prev), "key appears more than once in the object")
			}
			if strings.EqualFold(prev, key) {
				return verr(CategoryDuplicateKey, refjoin(path, prev), "key %s differs only in case from an earlier key", quoteKey(key))
			}
		}
		i := slices.IndexFunc(fields, func(f reffield) bool { return f.name == key })
		if i < 0 {
			return verr(CategoryUnknownField, refat(path), "unknown key %s", quoteKey(key))
		}
		seen = append(seen, key)
		if e := fields[i].check(w, refjoin(path, key)); e != nil {
			return e
		}
	}
	if _, e := w.token(refat(path)); e != nil {
		return e
	}
	for _, f := range fields {
		if !slices.Contains(seen, f.name) {
			return f.missing(refjoin(path, f.name))
		}
	}
	return nil
}

func (w *refwalker) token(path string) (json.Token, *ValidationError) {
	tok, err := w.dec.Token()
	if err != nil {
		return nil, refsyntaxError(path, err)
	}
	return tok, nil
}

// syntaxError describes a tokenizer failure by position only: the
// decoder's own message quotes the offending character.
func refsyntaxError(path string, err error) *ValidationError {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return verr(CategoryDecode, path, "invalid JSON at byte %d", se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return verr(CategoryDecode, path, "unexpected end of input")
	default:
		return verr(CategoryDecode, path, "invalid JSON")
	}
}

// open reads the opening delimiter of an object or array value.
func (w *refwalker) open(path string, d json.Delim, want string) *ValidationError {
	tok, e := w.token(path)
	if e != nil {
		return e
	}
	if tok != d {
		return verr(CategoryDecode, path, "got %s, want %s", refkindOf(tok), want)
	}
	return nil
}

// str reads a string value, or null when nullable.
func (w *refwalker) str(path string, nullable bool) (s string, null bool, e *ValidationError) {
	tok, e := w.token(path)
	if e != nil {
		return "", false, e
	}
	switch t := tok.(type) {
	case string:
		return t, false, nil
	case nil:
		if nullable {
			return "", true, nil
		}
	}
	want := "a string"
	if nullable {
		want = "a string or null"
	}
	return "", false, verr(CategoryDecode, path, "got %s, want %s", refkindOf(tok), want)
}

func refkindOf(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "an unknown value"
}

func refat(path string) string {
	if path == "" {
		return "$"
	}
	return path
}

func refjoin(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func refindex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func refblank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// checkText applies the rules every displayed string shares: a byte cap,
// no control characters but \n and \t, which could rewrite a terminal or
// hide text from the clerk reading it, and no bidirectional controls, which
// reorder what the clerk sees ("ACME\u202eLTD" shows a different name than
// the bytes say).
//
// Evidence is displayed too and gets the same rule, although it must also
// be an exact substring of the source: a source that carries bidi controls
// is exactly the document whose quoted evidence could be made to read
// differently in the review queue. Rejecting fails closed (a repair re-ask
// can quote a shorter excerpt, else the document waits for review), where
// accepting would commit text that displays unlike its bytes.
func refcheckText(path, s string, maxBytes int) *ValidationError {
	if len(s) > maxBytes {
		return verr(CategoryDisplay, path, "longer than %d bytes", maxBytes)
	}
	for i, r := range s {
		if refisControl(r) {
			return verr(CategoryDisplay, path, "control character at byte %d; only \\n and \\t are allowed", i)
		}
		if refisBidiControl(r) {
			return verr(CategoryDisplay, path, "bidirectional control character U+%04X at byte %d", r, i)
		}
	}
	return nil
}

// isBidiControl reports the Unicode bidirectional formatting characters:
// the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069 and
// the implicit marks LRM, RLM and ALM, which can still move neutral
// characters and digits around.
func refisBidiControl(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

func refisControl(r rune) bool {
	switch {
	case r == '\n', r == '\t':
		return false
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	}
	return false
}

func refcheckSchemaVersion(w *refwalker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if s != w.version {
		return verr(CategorySchemaVersion, path, "not this schema version; want %q", w.version)
	}
	return nil
}

func refcheckTitle(w *refwalker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if refblank(s) {
		return verr(CategoryDisplay, path, "empty or blank title")
	}
	return refcheckText(path, s, refmaxTitleBytes)
}

func refcheckBullets(w *refwalker, path string) *ValidationError {
	if e := w.open(path, '[', "an array of strings"); e != nil {
		return e
	}
	n := 0
	for w.dec.More() {
		if n == refmaxBullets {
			return verr(CategoryDisplay, path, "more than %d bullets", refmaxBullets)
		}
		ip := refindex(path, n)
		s, _, e := w.str(ip, false)
		if e != nil {
			return e
		}
		if refblank(s) {
			return verr(CategoryDisplay, ip, "empty or blank bullet")
		}
		if e := refcheckText(ip, s, refmaxBulletBytes); e != nil {
			return e
		}
		n++
	}
	if _, e := w.token(path); e != nil {
		return e
	}
	if n < refminBullets {
		return verr(CategoryDisplay, path, "no bullets; want %d to %d", refminBullets, refmaxBullets)
	}
	return nil
}

func refcheckInvoice(w *refwalker, path string) *ValidationError {
	if e := w.open(path, '{', "an object"); e != nil {
		return e
	}
	return w.object(path, refv1FactFields)
}

// factText checks a free-text fact. An empty string is refused because
// "not stated" has one spelling, null, and exports must not have to treat
// "" and null alike.
func reffactText(maxBytes int) func(*refwalker, string) *ValidationError {
	return func(w *refwalker, path string) *ValidationError {
		s, null, e := w.str(path, true)
		if e != nil || null {
			return e
		}
		if refblank(s) {
			return verr(CategoryFacts, path, "empty or blank; use null when the invoice does not state it")
		}
		return refcheckText(path, s, maxBytes)
	}
}

func refcheckCurrency(w *refwalker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if _, ok := CurrencyExponent(s); !ok {
		return verr(CategoryFacts, path, "not an active ISO 4217 code; want three upper-case letters such as EUR, or null")
	}
	return nil
}

func refcheckTotalMinor(w *refwalker, path string) *ValidationError {
	tok, e := w.token(path)
	if e != nil {
		return e
	}
	switch t := tok.(type) {
	case nil:
		return nil
	case json.Number:
		return refcheckMinorUnits(path, string(t))
	}
	return verr(CategoryDecode, path, "got %s, want an integer in minor units or null", refkindOf(tok))
}

// checkMinorUnits judges the number as written. The decoder has already
// checked JSON number syntax, so only sign, fraction, exponent and size are
// left.
func refcheckMinorUnits(path, n string) *ValidationError {
	switch {
	case strings.HasPrefix(n, "-"):
		return verr(CategoryFacts, path, "negative; want a non-negative integer in minor units")
	case strings.ContainsAny(n, ".eE"):
		return verr(CategoryFacts, path, "got a float, want integer minor units")
	}
	u, err := strconv.ParseUint(n, 10, 64)
	if err != nil || u > refmaxSafeInteger {
		return verr(CategoryFacts, path, "larger than 2^53-1")
	}
	return nil
}

func refcheckDueDate(w *refwalker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if !refisDate(s) {
		return verr(CategoryFacts, path, "not a calendar date in YYYY-MM-DD form")
	}
	return nil
}

// isDate accepts exactly YYYY-MM-DD naming a day that exists. The digit
// check comes first because time.Parse tolerates some shapes we do not.
func refisDate(s string) bool {
	if len(s) != len("2006-01-02") {
		return false
	}
	for i := range len(s) {
		switch i {
		case 4, 7:
			if s[i] != '-' {
				return false
			}
		default:
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
	}
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Year() >= 1
}

func refcheckActionItems(w *refwalker, path string) *ValidationError {
	return w.objects(path, 0, refv1ActionFields)
}

// objects walks an array of objects with the given keys, at most max of
// them (0: no cap); w.item is the index of the object being walked.
func (w *refwalker) objects(path string, max int, fields []reffield) *ValidationError {
	if e := w.open(path, '[', "an array of objects"); e != nil {
		return e
	}
	for i := 0; w.dec.More(); i++ {
		if max > 0 && i == max {
			return verr(CategoryFacts, path, "more than %d entries", max)
		}
		ip := refindex(path, i)
		w.item = i
		if e := w.open(ip, '{', "an object"); e != nil {
			return e
		}
		if e := w.object(ip, fields); e != nil {
			return e
		}
	}
	_, e := w.token(path)
	return e
}

func refcheckActionID(w *refwalker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if s == "" {
		return verr(CategoryActionID, path, "empty id")
	}
	if len(s) > refmaxActionIDBytes {
		return verr(CategoryDisplay, path, "longer than %d bytes", refmaxActionIDBytes)
	}
	for i := range len(s) {
		if !refisIDByte(s[i]) {
			return verr(CategoryActionID, path, "character at byte %d not allowed; ids use only A-Z a-z 0-9 _ . : -", i)
		}
	}
	if prev, ok := w.ids[s]; ok {
		return verr(CategoryActionID, path, "repeats the id of action_items[%d]", prev)
	}
	w.ids[s] = w.item
	return nil
}

// isIDByte limits ids to characters that are safe in an outbox key
// (job_key:action_id), a header and a file name.
func refisIDByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c == '_', c == '.', c == ':', c == '-':
		return true
	}
	return false
}

func refcheckActionKind(w *refwalker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if !slices.Contains(refv1Kinds, s) {
		return verr(CategoryActionKind, path, "unknown kind; want one of %s", strings.Join(refv1Kinds, ", "))
	}
	return nil
}

func refcheckEvidence(w *refwalker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if refblank(s) {
		return verr(CategoryActionEvidence, path, "empty or blank evidence")
	}
	if e := refcheckText(path, s, refmaxEvidenceBytes); e != nil {
		return e
	}
	// Byte-exact: the source is already normalised (NFC, LF), and any
	// looser match would let a model paraphrase and still pass.
	if !w.checks.noSource && !strings.Contains(w.source, s) {
		return verr(CategoryActionEvidence, path, "not an exact substring of the source")
	}
	return nil
}

// ---- frozen from validate_v2.go ----

// Limits of invoice-v2 beyond those it shares with v1.
const (
	refmaxBuyerNameBytes   = 200
	refmaxPONumberBytes    = 64
	refmaxDescriptionBytes = 300
	refmaxQuantityBytes    = 32
	refmaxTaxLines         = 16
	refmaxLineItems        = 500
	// maxRateBP is 100% in basis points.
	refmaxRateBP = 10000
)

// v2Fields and the lists below name the keys of invoice-v2 in the Go type's
// field order; a test keeps them in step with InvoiceV2.
var (
	refv2Fields = []reffield{
		{"schema_version", refcheckSchemaVersion, func(path string) *ValidationError {
			return verr(CategorySchemaVersion, path, "missing; want %q", V2)
		}},
		{"document_type", refcheckDocumentType, refmissingAs(CategoryFacts, "missing document_type; want one of %s", strings.Join(refv2DocTypes, ", "))},
		{"title", refcheckTitle, refmissingAs(CategoryDisplay, "missing title")},
		{"bullets", refcheckBullets, refmissingAs(CategoryDisplay, "missing bullets; want %d to %d", refminBullets, refmaxBullets)},
		{"supplier_name", reffactText(refmaxSupplierNameBytes), refmissingFact},
		{"supplier_vat_id", refcheckVATID, refmissingFact},
		{"supplier_iban", refcheckIBAN, refmissingFact},
		{"buyer_name", reffactText(refmaxBuyerNameBytes), refmissingFact},
		{"invoice_number", reffactText(refmaxInvoiceNumberBytes), refmissingFact},
		{"issue_date", refcheckDueDate, refmissingFact},
		{"due_date", refcheckDueDate, refmissingFact},
		{"po_number", reffactText(refmaxPONumberBytes), refmissingFact},
		{"currency", refcheckCurrency, refmissingFact},
		{"net_minor", refcheckAmount(true), refmissingFact},
		{"tax_minor", refcheckAmount(true), refmissingFact},
		{"total_minor", refcheckAmount(true), refmissingFact},
		{"amount_due_minor", refcheckAmount(true), refmissingFact},
		{"tax_lines", refcheckTaxLines, refmissingAs(CategoryDecode, "missing tax_lines; use [] when there are none")},
		{"line_items", refcheckLineItems, refmissingAs(CategoryDecode, "missing line_items; use [] when there are none")},
		{"lines_complete", refcheckBool, refmissingAs(CategoryFacts, "missing lines_complete; use false unless line_items holds every line")},
		{"action_items", refcheckActionItems, refmissingAs(CategoryDecode, "missing action_items; use [] when there are none")},
		{"evidence", refcheckEvidenceObject, refmissingAs(CategoryEvidence, "missing evidence object")},
	}
	refv2TaxLineFields = []reffield{
		{"rate_bp", refcheckRate(false), refmissingAs(CategoryFacts, "missing rate_bp")},
		{"base_minor", refcheckAmount(true), refmissingFact},
		{"tax_minor", refcheckAmount(false), refmissingAs(CategoryFacts, "missing tax_minor")},
	}
	refv2LineItemFields = []reffield{
		{"description", refcheckDescription, refmissingAs(CategoryFacts, "missing description")},
		{"quantity", refcheckQuantity, refmissingFact},
		{"unit_price_minor", refcheckAmount(true), refmissingFact},
		{"amount_minor", refcheckAmount(true), refmissingFact},
		{"tax_rate_bp", refcheckRate(true), refmissingFact},
	}
	// v2EvidenceFields has one key per fact; its check is only the local
	// one (type, blank, display rules, substring). Whether the evidence
	// holds the fact's value needs the fact, so it runs after the walk.
	refv2EvidenceFields = func() []reffield {
		var fs []reffield
		for _, name := range refv2FactNames {
			fs = append(fs, reffield{name, refcheckFactEvidence, refmissingAs(CategoryEvidence, "missing evidence key; use null when the fact is null")})
		}
		return fs
	}()
	refv2FactNames = []string{
		"supplier_name", "supplier_vat_id", "supplier_iban", "buyer_name", "invoice_number",
		"issue_date", "due_date", "po_number", "currency",
		"net_minor", "tax_minor", "total_minor", "amount_due_minor",
	}
	refv2DocTypes = []string{DocInvoice, DocCreditNote, DocDebitNote, DocReceipt, DocProforma, DocReminder, DocOther}
)

// validateV2 runs the phases of invoice-v2 in a fixed order, so one input
// always yields the same first error:
//
//  1. syntax, as for every version;
//  2. the walk: types, unknown and duplicate keys, byte caps, display rules
//     and each value's own syntax (dates, currency, IBAN, VAT id, numbers),
//     first error in document order;
//  3. facts that need other facts: an amount needs a currency, and
//     lines_complete needs line items that all carry an amount;
//  4. evidence: for each fact in field order, evidence present exactly when
//     the fact is stated, and holding the fact's value;
//  5. arithmetic, collected in full into Result.Review (see checkArithmetic).
func refvalidateV2(v *Version, raw []byte, source string, c checks) (*Result, *ValidationError) {
	var doc InvoiceV2
	if e := refwalkAndDecode(v, raw, source, c, refv2Fields, &doc); e != nil {
		return nil, e
	}
	if e := refcheckDecodedV2(&doc, c); e != nil {
		return nil, e
	}
	canon, e := refcanonicalJSON(doc)
	if e != nil {
		return nil, e
	}
	return &Result{
		Version:   v.Name,
		JSON:      canon,
		Actions:   doc.ActionItems,
		Title:     doc.Title,
		Bullets:   doc.Bullets,
		InvoiceV2: &doc,
		Review:    refcheckArithmetic(&doc),
	}, nil
}

// checkDecodedV2 runs the phases after the walk (3 and 4 of validateV2) on
// the decoded document, filling its nil slices with empty ones.
func refcheckDecodedV2(doc *InvoiceV2, c checks) *ValidationError {
	// A corrected fact was typed by a person, not read from the text: its
	// evidence is null whatever the document said.
	nullEvidence(&doc.Evidence, c.corrected)
	// Empty, never nil, so the canonical form always spells [] and callers
	// can range without checks.
	if doc.TaxLines == nil {
		doc.TaxLines = []TaxLine{}
	}
	if doc.LineItems == nil {
		doc.LineItems = []LineItem{}
	}
	if doc.ActionItems == nil {
		doc.ActionItems = []ActionItem{}
	}
	if e := refcheckCrossFacts(doc); e != nil {
		return e
	}
	return refcheckFactEvidenceValues(doc, c.corrected)
}

func refcheckDocumentType(w *refwalker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if !slices.Contains(refv2DocTypes, s) {
		return verr(CategoryFacts, path, "unknown document type; want one of %s", strings.Join(refv2DocTypes, ", "))
	}
	return nil
}

// integer reads an integer token as written: 12.0 and 1e3 are refused even
// though they hold integers, because a model that writes them has not
// understood minor units.
func (w *refwalker) integer(path string, nullable bool) (n int64, null bool, e *ValidationError) {
	tok, e := w.token(path)
	if e != nil {
		return 0, false, e
	}
	switch t := tok.(type) {
	case nil:
		if nullable {
			return 0, true, nil
		}
	case json.Number:
		if strings.ContainsAny(string(t), ".eE") {
			return 0, false, verr(CategoryFacts, path, "got a float, want an integer")
		}
		n, err := strconv.ParseInt(string(t), 10, 64)
		if err != nil || n > refmaxSafeInteger || n < -refmaxSafeInteger {
			return 0, false, verr(CategoryFacts, path, "outside -(2^53-1) to 2^53-1")
		}
		return n, false, nil
	}
	want := "an integer"
	if nullable {
		want = "an integer or null"
	}
	return 0, false, verr(CategoryDecode, path, "got %s, want %s", refkindOf(tok), want)
}

// checkAmount accepts a signed integer count of minor units: the sign is
// judged against the document type later, with the other amounts.
func refcheckAmount(nullable bool) func(*refwalker, string) *ValidationError {
	return func(w *refwalker, path string) *ValidationError {
		_, _, e := w.integer(path, nullable)
		return e
	}
}

func refcheckRate(nullable bool) func(*refwalker, string) *ValidationError {
	return func(w *refwalker, path string) *ValidationError {
		n, null, e := w.integer(path, nullable)
		if e != nil || null {
			return e
		}
		if n < 0 || n > refmaxRateBP {
			return verr(CategoryFacts, path, "outside 0 to %d basis points", refmaxRateBP)
		}
		return nil
	}
}

func refcheckBool(w *refwalker, path string) *ValidationError {
	tok, e := w.token(path)
	if e != nil {
		return e
	}
	if _, ok := tok.(bool); !ok {
		return verr(CategoryDecode, path, "got %s, want true or false", refkindOf(tok))
	}
	return nil
}

func refcheckTaxLines(w *refwalker, path string) *ValidationError {
	return w.objects(path, refmaxTaxLines, refv2TaxLineFields)
}

func refcheckLineItems(w *refwalker, path string) *ValidationError {
	return w.objects(path, refmaxLineItems, refv2LineItemFields)
}

func refcheckDescription(w *refwalker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if refblank(s) {
		return verr(CategoryFacts, path, "empty or blank description")
	}
	return refcheckText(path, s, refmaxDescriptionBytes)
}

func refcheckQuantity(w *refwalker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if len(s) > refmaxQuantityBytes {
		return verr(CategoryFacts, path, "longer than %d bytes", refmaxQuantityBytes)
	}
	if !refisDecimal(s) {
		return verr(CategoryFacts, path, "not a decimal string such as 2, 0.5 or -1.25")
	}
	return nil
}

// isDecimal accepts -?[0-9]+(\.[0-9]+)?: a dot, never a comma, so that the
// value parses the same in every locale.
func refisDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasDot := strings.Cut(s, ".")
	digits := func(p string) bool {
		return p != "" && strings.Trim(p, "0123456789") == ""
	}
	return digits(intPart) && (!hasDot || digits(frac))
}

func refcheckEvidenceObject(w *refwalker, path string) *ValidationError {
	if e := w.open(path, '{', "an object"); e != nil {
		return e
	}
	return w.object(path, refv2EvidenceFields)
}

// checkFactEvidence applies the rules of action evidence to one fact's
// evidence: displayed, so the display rules; byte-exact, so a paraphrase
// cannot pass.
func refcheckFactEvidence(w *refwalker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if w.checks.corrected[strings.TrimPrefix(path, "evidence.")] {
		return nil // ignored: validateV2 sets it to null
	}
	if refblank(s) {
		return verr(CategoryEvidence, path, "empty or blank evidence; use null when the fact is null")
	}
	if e := refcheckText(path, s, refmaxEvidenceBytes); e != nil {
		return e
	}
	if !w.checks.noSource && !strings.Contains(w.source, s) {
		return verr(CategoryEvidence, path, "not an exact substring of the source")
	}
	return nil
}

// checkCrossFacts checks the facts that depend on other facts. An amount
// without a currency is refused because minor units mean nothing without
// the currency's exponent: 123456 is 1234.56 EUR but 123456 JPY.
func refcheckCrossFacts(d *InvoiceV2) *ValidationError {
	if d.Currency == nil {
		for _, a := range d.refAmounts() {
			if a.v != nil {
				return verr(CategoryFacts, a.path, "an amount needs a currency; set currency or use null")
			}
		}
	}
	if d.LinesComplete {
		if len(d.LineItems) == 0 {
			return verr(CategoryFacts, "lines_complete", "true without line items; use false")
		}
		for i, li := range d.LineItems {
			if li.AmountMinor == nil {
				return verr(CategoryFacts, refindex("line_items", i)+".amount_minor", "null although lines_complete is true")
			}
		}
	}
	return nil
}

type refpathAmount struct {
	path string
	v    *int64
}

// amounts lists every amount of the document in document order.
func (d *InvoiceV2) refAmounts() []refpathAmount {
	out := []refpathAmount{
		{"net_minor", d.NetMinor}, {"tax_minor", d.TaxMinor},
		{"total_minor", d.TotalMinor}, {"amount_due_minor", d.AmountDueMinor},
	}
	for i := range d.TaxLines {
		tl := &d.TaxLines[i]
		p := refindex("tax_lines", i)
		out = append(out, refpathAmount{p + ".base_minor", tl.BaseMinor}, refpathAmount{p + ".tax_minor", &tl.TaxMinor})
	}
	for i := range d.LineItems {
		li := &d.LineItems[i]
		p := refindex("line_items", i)
		out = append(out, refpathAmount{p + ".unit_price_minor", li.UnitPriceMinor}, refpathAmount{p + ".amount_minor", li.AmountMinor})
	}
	return out
}

// ---- frozen from bytetokens.go ----

// byteTokens hands out the tokens a json.Decoder with UseNumber reads from
// b, which must be one well-formed JSON value (checkSyntax has accepted
// it). Trusting that, it needs no state machine: commas and colons are
// separators to skip, and a token's kind is its first byte. It reads a
// document in a fraction of the decoder's time, which boxes and buffers
// every token; held to the decoder by TestByteTokensMatchDecoder and
// FuzzByteTokens.
type refbyteTokens struct {
	b []byte
	i int
}

// skip moves past white space and separators.
func (t *refbyteTokens) skip() {
	for t.i < len(t.b) {
		switch t.b[t.i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			t.i++
		default:
			return
		}
	}
}

// Token implements tokenSource.
func (t *refbyteTokens) Token() (json.Token, error) {
	t.skip()
	if t.i >= len(t.b) {
		return nil, io.EOF
	}
	start := t.i
	switch c := t.b[start]; c {
	case '{', '}', '[', ']':
		t.i++
		return json.Delim(c), nil
	case '"':
		return t.str()
	case 't':
		t.i += len("true")
		return true, nil
	case 'f':
		t.i += len("false")
		return false, nil
	case 'n':
		t.i += len("null")
		return nil, nil
	}
	for t.i < len(t.b) && refisNumberByte(t.b[t.i]) {
		t.i++
	}
	return json.Number(t.b[start:t.i]), nil
}

// str reads the string starting at t.i. One without escapes is its bytes
// (valid UTF-8: checkSyntax made sure); one with escapes is decoded by
// encoding/json itself, so every escape means what it does there.
func (t *refbyteTokens) str() (json.Token, error) {
	start := t.i
	escaped := false
	i := start + 1
	for {
		j := bytes.IndexAny(t.b[i:], `"\`)
		if j < 0 {
			return nil, io.ErrUnexpectedEOF // not well formed: checkSyntax rules it out
		}
		i += j
		if t.b[i] == '"' {
			break
		}
		escaped = true
		i += 2 // the backslash and the byte it escapes (a \u's digits are plain)
	}
	t.i = i + 1
	if !escaped {
		return string(t.b[start+1 : i]), nil
	}
	var s string
	if err := json.Unmarshal(t.b[start:t.i], &s); err != nil {
		return nil, err
	}
	return s, nil
}

// More implements tokenSource, as json.Decoder.More: the next token is not
// a closing delimiter.
func (t *refbyteTokens) More() bool {
	t.skip()
	return t.i < len(t.b) && t.b[t.i] != '}' && t.b[t.i] != ']'
}

func refisNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// ---- frozen from tokens.go ----

// tokenSource is what the walker reads: a json.Decoder over a candidate's
// bytes, or valueTokens over a Go value the caller built. Both hand out the
// same tokens for the same document, so every check runs unchanged on
// either.
type reftokenSource interface {
	Token() (json.Token, error)
	More() bool
}

// valueTokens replays the tokens a json.Decoder with UseNumber would read
// from json.Marshal of a document, without the bytes in between.
type refvalueTokens struct {
	toks []json.Token
	pos  int
}

func (t *refvalueTokens) Token() (json.Token, error) {
	if t.pos >= len(t.toks) {
		return nil, io.EOF
	}
	tok := t.toks[t.pos]
	t.pos++
	return tok, nil
}

// More reports whether the current object or array has another element,
// as json.Decoder.More does: the next token is not a closing delimiter.
func (t *refvalueTokens) More() bool {
	if t.pos >= len(t.toks) {
		return false
	}
	d, ok := t.toks[t.pos].(json.Delim)
	return !ok || (d != '}' && d != ']')
}

// ---- frozen from iban.go ----

// ibanLengths maps each country of the SWIFT IBAN registry (release 99,
// 2025) to the length of its IBANs. Countries that use IBANs only
// informally (not in the registry) are left out: a payment to them is rare
// enough on a supplier invoice that a clerk should look at it. Built on
// first use.
var refibanLengths = sync.OnceValue(func() map[string]int {
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
func refcheckIBAN(w *refwalker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	return refibanProblem(path, s)
}

// ibanProblem says why s is not a valid IBAN in electronic form, or nil.
// Messages never repeat the number, not even its country code.
func refibanProblem(path, s string) *ValidationError {
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
	n, ok := refibanLengths()[s[:2]]
	if !ok {
		return verr(CategoryIBAN, path, "country code not in the IBAN registry")
	}
	if len(s) != n {
		return verr(CategoryIBAN, path, "wrong length for its country: want %d characters, got %d", n, len(s))
	}
	if refibanMod97(s) != 1 {
		return verr(CategoryIBAN, path, "checksum (ISO 13616 mod 97) does not match; a character is wrong")
	}
	return nil
}

// ibanMod97 moves the first four characters to the end, reads letters as
// 10..35 and returns the remainder of the whole number mod 97, piece by
// piece so that no big integers are needed.
func refibanMod97(s string) int {
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

// ---- frozen from vatid.go ----

// vatIDSyntax maps a VAT id's country prefix to the syntax of the whole id
// in compact form, for the EU member states (Greece as EL, Northern Ireland
// as XI), the United Kingdom, Switzerland and Norway. It checks the shape
// only: check digits differ per country and the VIES service, not invx, is
// the authority on whether a number is issued. Built on first use.
var refvatIDSyntax = sync.OnceValue(func() map[string]*regexp.Regexp {
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
	refminVATIDBytes = 4
	refmaxVATIDBytes = 20
)

// checkVATID checks supplier_vat_id. The value is in compact form: the
// country prefix, then upper-case letters and digits, without the spaces,
// dots and dashes invoices print ("DE 123 456 789" is DE123456789), so equal
// ids compare equal in exports and in the duplicate check. An id with a
// covered prefix must match its country's syntax; GR is refused because
// Greek VAT ids carry EL. An id with another prefix (a tax id of a country
// outside the table) is accepted on its form alone.
func refcheckVATID(w *refwalker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if len(s) < refminVATIDBytes || len(s) > refmaxVATIDBytes {
		return verr(CategoryVATID, path, "want %d to %d letters and digits", refminVATIDBytes, refmaxVATIDBytes)
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
	if re, ok := refvatIDSyntax()[prefix]; ok && !re.MatchString(s) {
		return verr(CategoryVATID, path, "does not match the VAT id syntax of its country prefix")
	}
	return nil
}

// ---- frozen from evidence.go ----

// How invoice-v2 decides that a fact's evidence holds the fact's value. The
// evidence is already known to be an exact substring of the source; this
// check stops a model from citing a true excerpt that says something else
// ("Total: 1.234,56" as evidence of a net of 1000.00). Each rule accepts the
// ways invoices commonly write a value and nothing looser:
//
//   - Names and numbers as written (supplier_name, buyer_name,
//     invoice_number, po_number): the evidence contains the value, compared
//     case-insensitively with runs of white space folded to one space.
//   - Ids (supplier_vat_id, supplier_iban): the evidence's letters and digits,
//     upper-cased, contain the value, so "DE89 3704 0044 0532 0130 00" backs
//     DE89370400440532013000 and "CHE-123.456.789 MWST" backs
//     CHE123456789MWST. A VAT id may be cited without its two-letter
//     country prefix, because many countries print the national number
//     alone ("P.IVA 01234567890" backs IT01234567890) and the compact form
//     the schema asks for carries the prefix.
//   - Amounts: the evidence contains the magnitude written with the
//     currency's exponent (the sign is not required: credit notes write
//     -1.234,56, 1.234,56- or (1,234.56)), a decimal comma or point, and no
//     grouping or grouping by thousands with . , ' ’ or a space (plain,
//     no-break or narrow). A whole amount may also be written without
//     decimals or with ",-". So 123456 EUR is backed by 1234,56, 1.234,56,
//     1234.56, 1,234.56, 1 234,56 or 1'234.56, and 100000 EUR also by
//     1.000,- or 1000. The number must stand alone: 234,56 inside 1.234,56
//     does not count. Indian lakh grouping with commas and a decimal point
//     counts too: 11960000 INR is also backed by 1,19,600.00 or 1,19,600.
//   - Dates: the evidence holds the date as three adjacent parts in the
//     order year-month-day, day-month-year or month-day-year, the month as a
//     number or an English, German, French, Spanish, Italian or Dutch month
//     name or abbreviation, the year with four digits (two in the last
//     position), or as one YYYYMMDD number. Separators and ordinals do not
//     matter, so 2026-03-01, 01.03.2026, 1.3.26, 03/01/2026, 1 March 2026,
//     March 1st, 2026 and 1. März 2026 all back 2026-03-01. Day and month
//     are not told apart when both are numbers: 01/03/2026 backs both
//     2026-03-01 and 2026-01-03, as a reader who does not know the locale
//     would read it.
//   - Currency: the evidence contains the ISO code (any case) or a symbol or
//     name of the currency (€ or Euro for EUR, $ for any dollar, £ for GBP).
//
// A fact in corrected (a person's correction, ValidateCorrection) is
// exempt: its evidence is null and nothing is checked.
func refcheckFactEvidenceValues(d *InvoiceV2, corrected map[string]bool) *ValidationError {
	exp := 2
	if d.Currency != nil {
		exp, _ = CurrencyExponent(*d.Currency)
	}
	ev := &d.Evidence
	facts := []struct {
		name     string
		text     *string
		amount   *int64
		evidence *string
		holds    func(evidence string) bool
	}{
		{name: "supplier_name", text: d.SupplierName, evidence: ev.SupplierName},
		{name: "supplier_vat_id", text: d.SupplierVATID, evidence: ev.SupplierVATID},
		{name: "supplier_iban", text: d.SupplierIBAN, evidence: ev.SupplierIBAN},
		{name: "buyer_name", text: d.BuyerName, evidence: ev.BuyerName},
		{name: "invoice_number", text: d.InvoiceNumber, evidence: ev.InvoiceNumber},
		{name: "issue_date", text: d.IssueDate, evidence: ev.IssueDate},
		{name: "due_date", text: d.DueDate, evidence: ev.DueDate},
		{name: "po_number", text: d.PONumber, evidence: ev.PONumber},
		{name: "currency", text: d.Currency, evidence: ev.Currency},
		{name: "net_minor", amount: d.NetMinor, evidence: ev.NetMinor},
		{name: "tax_minor", amount: d.TaxMinor, evidence: ev.TaxMinor},
		{name: "total_minor", amount: d.TotalMinor, evidence: ev.TotalMinor},
		{name: "amount_due_minor", amount: d.AmountDueMinor, evidence: ev.AmountDueMinor},
	}
	for _, f := range facts {
		path := "evidence." + f.name
		if corrected[f.name] {
			continue
		}
		stated := f.text != nil || f.amount != nil
		switch {
		case !stated && f.evidence == nil:
			continue
		case !stated:
			return verr(CategoryEvidence, path, "evidence for a null fact; use null")
		case f.evidence == nil:
			return verr(CategoryEvidence, path, "missing for a stated fact; quote the excerpt %s was read from", f.name)
		}
		e := *f.evidence
		var ok bool
		switch f.name {
		case "supplier_name", "buyer_name", "invoice_number", "po_number":
			ok = strings.Contains(reffoldText(e), reffoldText(*f.text))
		case "supplier_vat_id":
			ok = refvatIDIn(e, *f.text)
		case "supplier_iban":
			ok = strings.Contains(refalnumUpper(e), refalnumUpper(*f.text))
		case "issue_date", "due_date":
			ok = refdateIn(e, *f.text)
		case "currency":
			ok = refcurrencyIn(e, *f.text)
		default:
			ok = refamountIn(e, *f.amount, exp)
		}
		if !ok {
			ok = refxmlLeafHolds(f.name, e, f.text, f.amount, exp)
		}
		if !ok {
			return verr(CategoryEvidence, path, "does not hold the value of %s; quote the excerpt that states it", f.name)
		}
	}
	return nil
}

// foldText lower-cases s and folds every run of white space to one space,
// so a name broken over two lines in the source still matches.
func reffoldText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// alnumUpper keeps only letters and digits, upper-cased.
func refalnumUpper(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// groupSeps are the thousands separators invoices use; "" is no grouping.
var refgroupSeps = []string{"", ".", ",", " ", "\u00a0", "\u202f", "\u2009", "'", "\u2019"}

// amountIn reports whether s writes the magnitude of minor, in minor units of
// a currency with exponent exp, as a number standing on its own.
func refamountIn(s string, minor int64, exp int) bool {
	mag := uint64(minor)
	if minor < 0 {
		mag = -mag
	}
	digits := strconv.FormatUint(mag, 10)
	if len(digits) <= exp {
		digits = strings.Repeat("0", exp-len(digits)+1) + digits
	}
	intPart, frac := digits[:len(digits)-exp], digits[len(digits)-exp:]
	whole := strings.Trim(frac, "0") == ""
	for _, g := range refgroupSeps {
		grouped := refgroup(intPart, g)
		if exp == 0 || whole {
			if refstandsAlone(s, grouped) {
				return true
			}
		}
		if exp == 0 {
			continue
		}
		for _, d := range []string{",", "."} {
			if d == g {
				continue
			}
			if refstandsAlone(s, grouped+d+frac) {
				return true
			}
			if whole && (refstandsAlone(s, grouped+d+"-") || refstandsAlone(s, grouped+d+"\u2013")) {
				return true
			}
		}
	}
	if len(intPart) > 5 {
		grouped := reflakhGroup(intPart)
		if (exp == 0 || whole) && refstandsAlone(s, grouped) {
			return true
		}
		if exp > 0 && refstandsAlone(s, grouped+"."+frac) {
			return true
		}
	}
	return false
}

// reflakhGroup is Indian grouping, built from the right: the last three
// digits, then pairs.
func reflakhGroup(digits string) string {
	out := digits[len(digits)-3:]
	for rest := digits[:len(digits)-3]; rest != ""; {
		k := max(0, len(rest)-2)
		out = rest[k:] + "," + out
		rest = rest[:k]
	}
	return out
}

// group inserts sep between groups of three digits from the right.
func refgroup(digits, sep string) string {
	if sep == "" || len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// standsAlone reports whether num occurs in s not as part of a longer
// number: neither side touches a digit, directly or across one separator
// (so 234,56 in 1.234,56 and 1.234,5 in 1.234,56 do not count).
func refstandsAlone(s, num string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], num)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(num)
		if !refnumberBefore(s[:i]) && !refnumberAfter(s[j:]) {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		from = i + size
	}
}

func refisNumberSep(r rune) bool {
	return r == '.' || r == ',' || r == '\'' || r == '\u2019' || r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009'
}

func refnumberBefore(s string) bool {
	r, size := utf8.DecodeLastRuneInString(s)
	if size == 0 {
		return false
	}
	if unicode.IsDigit(r) {
		return true
	}
	if refisNumberSep(r) {
		r2, _ := utf8.DecodeLastRuneInString(s[:len(s)-size])
		return unicode.IsDigit(r2)
	}
	return false
}

func refnumberAfter(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return false
	}
	if unicode.IsDigit(r) {
		return true
	}
	if refisNumberSep(r) {
		r2, _ := utf8.DecodeRuneInString(s[size:])
		return unicode.IsDigit(r2)
	}
	return false
}

// dateFillers are words that sit between the parts of a written date and
// are skipped: English and French ordinals, "of", "de", "der".
var refdateFillers = []string{"st", "nd", "rd", "th", "er", "of", "de", "der", "del"}

// dateIn reports whether s writes the YYYY-MM-DD date iso (already checked
// by isDate) in one of the forms the package comment on
// checkFactEvidenceValues lists.
func refdateIn(s, iso string) bool {
	t, err := time.Parse(time.DateOnly, iso)
	if err != nil {
		return false
	}
	year, month, day := t.Year(), int(t.Month()), t.Day()
	var toks []string
	for _, tok := range refdateTokens(s) {
		if !refcontainsFold(refdateFillers, tok) {
			toks = append(toks, tok)
		}
	}
	isNum := func(tok string, maxLen, want int) bool {
		if tok == "" || len(tok) > maxLen || !refisASCIIDigits(tok) {
			return false
		}
		n, err := strconv.Atoi(tok)
		return err == nil && n == want
	}
	isYear := func(tok string, short bool) bool {
		if len(tok) == 4 {
			return isNum(tok, 4, year)
		}
		return short && len(tok) == 2 && isNum(tok, 2, year%100)
	}
	isMonth := func(tok string) bool {
		if refisASCIIDigits(tok) {
			return isNum(tok, 2, month)
		}
		return refmonthNames()[strings.ToLower(tok)] == month
	}
	isDay := func(tok string) bool { return isNum(tok, 2, day) }
	compact := t.Format("20060102")
	for i, tok := range toks {
		if tok == compact {
			return true
		}
		if i+2 >= len(toks) {
			continue
		}
		a, b, c := tok, toks[i+1], toks[i+2]
		if (isYear(a, false) && isMonth(b) && isDay(c)) ||
			(isDay(a) && isMonth(b) && isYear(c, true)) ||
			(isMonth(a) && isDay(b) && isYear(c, true)) {
			return true
		}
	}
	return false
}

// dateTokens splits s into runs of digits and runs of letters; everything
// else separates.
func refdateTokens(s string) []string {
	var toks []string
	start, kind := -1, 0 // kind 1 digits, 2 letters
	flush := func(end int) {
		if start >= 0 {
			toks = append(toks, s[start:end])
		}
		start, kind = -1, 0
	}
	for i, r := range s {
		k := 0
		switch {
		case r >= '0' && r <= '9':
			k = 1
		case unicode.IsLetter(r):
			k = 2
		}
		if k != kind {
			flush(i)
			if k != 0 {
				start, kind = i, k
			}
		}
	}
	flush(len(s))
	return toks
}

func refisASCIIDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func refcontainsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// monthNames maps lower-case month names and abbreviations in the languages
// invoices in fixtures/ and their neighbours use to the month number. Built
// on first use: most commands never validate a date.
var refmonthNames = sync.OnceValue(func() map[string]int {
	names := [12][]string{
		{"january", "jan", "januar", "jänner", "jän", "janvier", "janv", "enero", "ene", "gennaio", "gen", "januari"},
		{"february", "feb", "februar", "février", "fevrier", "févr", "fevr", "febrero", "febbraio", "februari"},
		{"march", "mar", "märz", "maerz", "mär", "mrz", "mars", "marzo", "maart", "mrt"},
		{"april", "apr", "avril", "avr", "abril", "abr", "aprile"},
		{"may", "mai", "mayo", "may", "maggio", "mag", "mei"},
		{"june", "jun", "juni", "juin", "junio", "giugno", "giu"},
		{"july", "jul", "juli", "juillet", "juil", "julio", "luglio", "lug"},
		{"august", "aug", "août", "aout", "agosto", "ago", "augustus"},
		{"september", "sep", "sept", "septembre", "septiembre", "settembre", "set"},
		{"october", "oct", "oktober", "okt", "octobre", "octubre", "ottobre", "ott"},
		{"november", "nov", "novembre", "noviembre"},
		{"december", "dec", "dezember", "dez", "décembre", "decembre", "déc", "diciembre", "dic", "dicembre"},
	}
	m := map[string]int{}
	for i, list := range names {
		for _, n := range list {
			m[n] = i + 1
		}
	}
	return m
})

// CurrencyIn reports whether s names the currency code by its ISO code, a
// local symbol or its name, exactly as invoice-v2 evidence validation
// checks it; extractors call it so that they cite only what validation
// accepts.
func refCurrencyIn(s, code string) bool { return refcurrencyIn(s, code) }

// currencyIn reports whether s names the currency code. Codes and names
// must stand as words ("tl" in "total" is not Turkish lira); symbols may
// touch the amount ("€1.234,56").
func refcurrencyIn(s, code string) bool {
	lower := strings.ToLower(s)
	if refwordIn(lower, strings.ToLower(code)) {
		return true
	}
	for _, n := range currencyNames()[code] {
		if refwordIn(lower, n) {
			return true
		}
	}
	return placeBacks(s, code)
}

// wordIn reports whether w occurs in s with no letter touching a letter at
// either end of it.
func refwordIn(s, w string) bool {
	first, _ := utf8.DecodeRuneInString(w)
	last, _ := utf8.DecodeLastRuneInString(w)
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if !(unicode.IsLetter(first) && unicode.IsLetter(before)) && !(unicode.IsLetter(last) && unicode.IsLetter(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		from = i + size
	}
}

// vatIDIn reports whether evidence e backs the compact VAT id v: its letters
// and digits contain v, or v without the two-letter country prefix when at
// least eight characters remain (short national parts would match digits
// that merely happen to be in the excerpt).
func refvatIDIn(e, v string) bool {
	a, id := refalnumUpper(e), refalnumUpper(v)
	if strings.Contains(a, id) {
		return true
	}
	national := id[min(2, len(id)):]
	return len(national) >= 8 && strings.Contains(a, national)
}

// ---- frozen from evidence_xml.go ----

// How an excerpt of a structured e-invoice (UBL, CII) backs a fact. The
// evidence of a fact read from XML is the whole element as the file writes
// it, <cbc:PayableAmount currencyID="EUR">10686.2</cbc:PayableAmount>, and
// the element's content is what the document states. XML writes values in
// its own lexical forms, which the rules for printed text do not read:
// entities (Müller &amp; Söhne) and xs:decimal amounts with any number of
// decimals (10686.2 is 10686.20 EUR). So when the rule for printed text
// does not hold, an excerpt that is exactly one element with character
// content only is read once more as XML: its content is entity-decoded and
// the fact's rule applied to it, and an amount must equal the content read
// as an xs:decimal exactly (a dot, no grouping, no more non-zero decimals
// than the currency has). Nothing is looser for printed text: an excerpt
// that is not a single XML element never takes this path.

// xmlLeafRe is one element with an optional attribute list and text
// content: no child element, no comment, no CDATA section.
var refxmlLeafRe = regexp.MustCompile(`^<([A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?)(?:\s[^<>]*)?>([^<]*)</([A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?)\s*>$`)

// xmlLeafText returns the decoded character content of e when e is exactly
// one XML element holding only text, and whether it is.
func refxmlLeafText(e string) (string, bool) {
	m := refxmlLeafRe.FindStringSubmatch(e)
	if m == nil || m[1] != m[3] {
		return "", false
	}
	d := xml.NewDecoder(strings.NewReader(e))
	d.Strict = true
	var text strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return text.String(), true
		}
		if err != nil {
			return "", false
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
}

// xmlAmountIn reports whether content, an xs:decimal, is exactly minor in
// minor units of a currency with exponent exp, up to the sign (see amountIn).
func refxmlAmountIn(content string, minor int64, exp int) bool {
	got, ok := refXSDecimalMinor(strings.TrimSpace(content), exp)
	if !ok {
		return false
	}
	if minor < 0 {
		minor = -minor
	}
	if got < 0 {
		got = -got
	}
	return got == minor
}

// xsDecimalRe is the lexical space of xs:decimal.
var refxsDecimalRe = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)

// XSDecimalMinor reads an xs:decimal ("10686.2") as an integer count of
// minor units of exponent exp (1068620 for 2); false when it is not one, has
// non-zero digits beyond exp (it refuses rather than rounds), or is too
// large. The e-invoice reader and the XML evidence check share it, so a
// fact and its evidence are read the same way.
func refXSDecimalMinor(s string, exp int) (int64, bool) {
	if !refxsDecimalRe.MatchString(s) {
		return 0, false
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	intPart, frac, _ := strings.Cut(s, ".")
	if len(frac) > exp {
		if strings.Trim(frac[exp:], "0") != "" {
			return 0, false
		}
		frac = frac[:exp]
	}
	frac += strings.Repeat("0", exp-len(frac))
	digits := strings.TrimLeft(intPart+frac, "0")
	if len(digits) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// xmlLeafHolds applies the fact's rule to the content of e when e is one
// XML element (see the comment at the top of this file).
func refxmlLeafHolds(name, e string, text *string, amount *int64, exp int) bool {
	content, ok := refxmlLeafText(e)
	if !ok || strings.TrimSpace(content) == "" {
		return false
	}
	switch name {
	case "supplier_name", "buyer_name", "invoice_number", "po_number":
		return strings.Contains(reffoldText(content), reffoldText(*text))
	case "supplier_vat_id":
		return refvatIDIn(content, *text)
	case "supplier_iban":
		return strings.Contains(refalnumUpper(content), refalnumUpper(*text))
	case "issue_date", "due_date":
		return refdateIn(content, *text)
	case "currency":
		return refcurrencyIn(content, *text)
	}
	return amount != nil && refxmlAmountIn(content, *amount, exp)
}

// ---- frozen from arithmetic.go ----

// checkArithmetic runs the invoice-v2 checks that relate amounts and dates
// to each other and returns every failure, in this fixed order:
//
//  1. sign: on a credit_note every document amount (net, tax, total, amount
//     due, each tax line's base and tax) is <= 0; on an invoice or
//     debit_note each is >= 0. Other types, and line items (a discount line
//     is negative on an invoice), are not constrained;
//  2. net_minor + tax_minor = total_minor, when all three are stated;
//  3. tax lines, when there are any: their tax adds up to tax_minor, and,
//     when every base is stated, their bases add up to net_minor;
//  4. line items, when lines_complete is true: their amounts add up to
//     net_minor, or to total_minor for lines priced gross (till receipts);
//  5. due_date is not before issue_date, except on a reminder: it is dated
//     after the invoice whose due date it recalls.
//
// Every sum may be off by one minor unit per tax line, and by at least one:
// an invoice rounds the tax of each rate, or of each line, on its own. A
// check whose inputs are null is skipped: null is "not stated", and the
// missing fact is the review policy's business (incomplete), not an
// arithmetic error.
//
// Failures are collected rather than returned one at a time so that a
// document committed for review lists all of them. Messages name the keys
// and the tolerance, never the amounts.
func refcheckArithmetic(d *InvoiceV2) []*ValidationError {
	var out []*ValidationError
	add := func(path, format string, args ...any) {
		out = append(out, verr(CategoryArithmetic, path, format, args...))
	}

	for _, a := range d.refDocumentAmounts() {
		switch {
		case a.v == nil:
		case d.DocumentType == DocCreditNote && *a.v > 0:
			add(a.path, "positive on a credit_note; credit note amounts are negative or zero")
		case (d.DocumentType == DocInvoice || d.DocumentType == DocDebitNote) && *a.v < 0:
			add(a.path, "negative on a %s; use document_type credit_note for a refund", d.DocumentType)
		}
	}

	tol := max(int64(1), int64(len(d.TaxLines)))
	if d.NetMinor != nil && d.TaxMinor != nil && d.TotalMinor != nil &&
		!refwithin(*d.NetMinor+*d.TaxMinor, *d.TotalMinor, tol) {
		add("total_minor", "net_minor + tax_minor differs from total_minor by more than %d minor unit(s)", tol)
	}

	if len(d.TaxLines) > 0 {
		var tax, base int64
		allBases := true
		for _, tl := range d.TaxLines {
			tax += tl.TaxMinor
			if tl.BaseMinor == nil {
				allBases = false
				continue
			}
			base += *tl.BaseMinor
		}
		if d.TaxMinor != nil && !refwithin(tax, *d.TaxMinor, tol) {
			add("tax_lines", "the tax_minor of the tax lines adds up to more than %d minor unit(s) away from tax_minor", tol)
		}
		if allBases && d.NetMinor != nil && !refwithin(base, *d.NetMinor, tol) {
			add("tax_lines", "the base_minor of the tax lines adds up to more than %d minor unit(s) away from net_minor", tol)
		}
	}

	if d.LinesComplete && (d.NetMinor != nil || d.TotalMinor != nil) {
		var sum int64
		for _, li := range d.LineItems {
			// Non-nil: checkCrossFacts refuses lines_complete otherwise.
			sum += *li.AmountMinor
		}
		net := d.NetMinor != nil && refwithin(sum, *d.NetMinor, tol)
		gross := d.TotalMinor != nil && refwithin(sum, *d.TotalMinor, tol)
		if !net && !gross {
			add("line_items", "lines_complete is true but the amount_minor of the lines adds up to neither net_minor nor total_minor (within %d minor unit(s)); set lines_complete false if lines are missing", tol)
		}
	}

	// YYYY-MM-DD compares as text in date order.
	if d.IssueDate != nil && d.DueDate != nil && *d.DueDate < *d.IssueDate && d.DocumentType != DocReminder {
		add("due_date", "before issue_date")
	}
	return out
}

// documentAmounts lists the amounts whose sign the document type decides,
// in document order.
func (d *InvoiceV2) refDocumentAmounts() []refpathAmount {
	out := []refpathAmount{
		{"net_minor", d.NetMinor}, {"tax_minor", d.TaxMinor},
		{"total_minor", d.TotalMinor}, {"amount_due_minor", d.AmountDueMinor},
	}
	for i := range d.TaxLines {
		tl := &d.TaxLines[i]
		p := refindex("tax_lines", i)
		out = append(out, refpathAmount{p + ".base_minor", tl.BaseMinor}, refpathAmount{p + ".tax_minor", &tl.TaxMinor})
	}
	return out
}

// within reports |a-b| <= tol. Amounts are at most 2^53-1 in magnitude and
// at most 500 are summed, so no sum overflows int64.
func refwithin(a, b, tol int64) bool {
	diff := a - b
	return diff <= tol && diff >= -tol
}
