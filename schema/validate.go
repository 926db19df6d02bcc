package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits shared by every version so far. They are bytes, not characters,
// because they protect storage, terminals and prompts, all of which pay per
// byte.
const (
	// maxDocumentBytes caps a candidate answer before any parsing, so a
	// runaway model cannot make validation slow or memory-hungry.
	maxDocumentBytes = 64 << 10

	maxTitleBytes         = 200
	maxBulletBytes        = 300
	maxSupplierNameBytes  = 200
	maxInvoiceNumberBytes = 64
	maxEvidenceBytes      = 500
	maxActionIDBytes      = 64

	minBullets = 1
	maxBullets = 5

	// maxSafeInteger is the largest integer every JSON consumer (a
	// JavaScript dashboard included) reads back exactly.
	maxSafeInteger = 1<<53 - 1
)

// walker validates a well-formed document in one pass over its JSON
// tokens, so the error it reports is the first in document order whatever
// its category. It never needs to skip a nested value: the first problem
// ends the walk.
type walker struct {
	dec     tokenSource
	source  string
	version string
	// ids holds each action id seen so far with its item index.
	ids actionIDs
	// item is the index of the action item being walked.
	item int
	// checks relaxes the walk for a correction; zero for a provider's
	// answer.
	checks checks
	// record, when set, keeps every token read in toks, so the accepted
	// document can be decoded from them (decodeWalkedV2).
	record bool
	toks   []json.Token
}

// field is one key an object may (and must) have. check consumes exactly
// the key's value; missing builds the error for an object without the key,
// whose category is the one an empty value of that key would get.
type field struct {
	name    string
	check   func(w *walker, path string) *ValidationError
	missing func(path string) *ValidationError
}

func missingAs(cat Category, format string, args ...any) func(string) *ValidationError {
	return func(path string) *ValidationError { return verr(cat, path, format, args...) }
}

// v1Fields, v1FactFields and v1ActionFields list the keys of
// invoice-summary-v1 in the Go type's field order; a test keeps them in step
// with InvoiceSummaryV1.
var (
	v1Fields = []field{
		{"schema_version", checkSchemaVersion, func(path string) *ValidationError {
			return verr(CategorySchemaVersion, path, "missing; want %q", V1)
		}},
		{"title", checkTitle, missingAs(CategoryDisplay, "missing title")},
		{"bullets", checkBullets, missingAs(CategoryDisplay, "missing bullets; want %d to %d", minBullets, maxBullets)},
		{"invoice", checkInvoice, missingAs(CategoryFacts, "missing invoice object")},
		{"action_items", checkActionItems, missingAs(CategoryDecode, "missing action_items; use [] when there are none")},
	}
	v1FactFields = []field{
		{"supplier_name", factText(maxSupplierNameBytes), missingFact},
		{"invoice_number", factText(maxInvoiceNumberBytes), missingFact},
		{"currency", checkCurrency, missingFact},
		{"total_minor", checkTotalMinor, missingFact},
		{"due_date", checkDueDate, missingFact},
	}
	v1ActionFields = []field{
		{"id", checkActionID, missingAs(CategoryActionID, "missing id")},
		{"kind", checkActionKind, missingAs(CategoryActionKind, "missing kind")},
		{"evidence", checkEvidence, missingAs(CategoryActionEvidence, "missing evidence")},
	}
	v1Kinds = []string{KindVerifyPurchaseOrder, KindReviewTax, KindContactSupplier}
)

var missingFact = missingAs(CategoryFacts, "required fact key missing; use null when the invoice does not state it")

// walkAndDecode runs the checks every version shares: syntax (one value,
// no trailing data, no lone surrogate), then the walk over fields (types,
// unknown and duplicate keys, caps, display rules, each value's syntax),
// then decoding into the version's Go type.
func walkAndDecode(v *Version, raw []byte, source string, c checks, fields []field, into any) *ValidationError {
	first, e := checkSyntax(raw)
	if e != nil {
		return e
	}
	// Numbers stay their literal text (json.Number) so money can be judged
	// as written: 12.0 and 1e3 are floats here even though they hold
	// integers.
	w := &walker{dec: &byteTokens{b: first}, source: source, version: v.Name, checks: c}
	doc, isV2 := into.(*InvoiceV2)
	if isV2 {
		w.record = true
		buf := tokenPool.Get().(*[]json.Token)
		w.toks = (*buf)[:0]
		defer func() {
			clear(w.toks) // the pool must not keep the document's strings alive
			*buf = w.toks[:0]
			tokenPool.Put(buf)
		}()
	}
	if e := w.document(fields); e != nil {
		return e
	}
	// The walk has checked every key and value; decoding into the Go type
	// is what makes the type, not the walker, the shape that gets stored.
	// An invoice-v2 document is decoded from the tokens the walk read (a
	// tenth of the CPU of decoding the bytes again); json.Unmarshal stays
	// the fallback and the decoder for v1.
	if isV2 && decodeWalkedV2(w.toks, doc) {
		return nil
	}
	if isV2 {
		*doc = InvoiceV2{}
	}
	if err := json.Unmarshal(first, into); err != nil {
		return verr(CategoryDecode, "$", "does not decode into %s", v.Name)
	}
	return nil
}

func validateV1(v *Version, raw []byte, source string, c checks) (*Result, *ValidationError) {
	var doc InvoiceSummaryV1
	if e := walkAndDecode(v, raw, source, c, v1Fields, &doc); e != nil {
		return nil, e
	}
	if doc.ActionItems == nil {
		doc.ActionItems = []ActionItem{}
	}
	canon, e := canonicalJSON(doc)
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
func checkSyntax(raw []byte) ([]byte, *ValidationError) {
	if len(raw) > maxDocumentBytes {
		return nil, verr(CategoryDecode, "$", "larger than %d bytes", maxDocumentBytes)
	}
	// encoding/json would silently turn invalid UTF-8 into U+FFFD, and the
	// canonical form would then differ from what the model sent.
	if !utf8.Valid(raw) {
		return nil, verr(CategoryDecode, "$", "not valid UTF-8 at byte %d", invalidUTF8Offset(raw))
	}
	if len(bytes.TrimLeft(raw, jsonSpace)) == 0 {
		return nil, verr(CategoryDecode, "$", "empty answer, want a JSON object")
	}
	if ok, lone := wellFormedLone(raw); ok {
		// One value and white space only (nearly every answer): the first
		// value ends where the trailing space starts, as the decoder below
		// would find, read by one scan that allocates nothing and finds
		// lone surrogates on the way. Anything else takes the decoder,
		// whose errors say what is wrong.
		if lone >= 0 {
			return nil, loneSurrogateError(lone)
		}
		return raw[:len(bytes.TrimRight(raw, jsonSpace))], nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return nil, syntaxError("$", err)
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(raw[end:], jsonSpace); len(rest) > 0 {
		return nil, verr(CategoryTrailingData, "$", "data after the JSON document at byte %d", len(raw)-len(rest))
	}
	// encoding/json turns a lone surrogate escape into U+FFFD, and after
	// decoding a replaced surrogate looks like a real U+FFFD: only the raw
	// escapes can tell them apart. Checking here covers every string, keys
	// included, of every version, since every version starts with this phase.
	if i := loneSurrogate(raw[:end]); i >= 0 {
		return nil, loneSurrogateError(i)
	}
	return raw[:end], nil
}

func loneSurrogateError(i int) *ValidationError {
	return verr(CategoryDecode, "$", "lone UTF-16 surrogate escape at byte %d; characters beyond U+FFFF need a surrogate pair or plain UTF-8", i)
}

// loneSurrogate returns the offset of the first \uXXXX escape in a
// well-formed JSON value that names a UTF-16 surrogate not paired as high
// (D800-DBFF) then low (DC00-DFFF), or -1 when there is none. It relies on
// the value being well formed: outside strings nothing is escaped, and every
// \u is followed by four hex digits.
func loneSurrogate(b []byte) int {
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
			r := escapedUnit(b, i)
			switch {
			case r < 0xd800 || r > 0xdfff:
				i += len(`\uXXXX`) - 1
			case r <= 0xdbff && escapedUnit(b, i+6) >= 0xdc00 && escapedUnit(b, i+6) <= 0xdfff:
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
func escapedUnit(b []byte, i int) int {
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
const jsonSpace = " \t\r\n"

func invalidUTF8Offset(b []byte) int {
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
func canonicalJSON(doc any) ([]byte, *ValidationError) {
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
	if len(canon) > maxDocumentBytes {
		return nil, verr(CategoryDecode, "$", "canonical form larger than %d bytes", maxDocumentBytes)
	}
	return canon, nil
}

// document walks the one top-level object.
func (w *walker) document(fields []field) *ValidationError {
	if e := w.open("$", '{', "a JSON object"); e != nil {
		return e
	}
	return w.object("", fields)
}

// object walks the members of an object whose '{' has been read, up to and
// including its '}'. Keys are compared exactly, as the schema spells them,
// and also folded, because encoding/json folds case and would let a
// "Title" overwrite a "title".
func (w *walker) object(path string, fields []field) *ValidationError {
	return w.objectAt(path, fields, nil)
}

// objectAt is object with the members' paths precomputed (paths[i] is
// join(path, fields[i].name)) for an object that only ever appears at
// path, so a walk does not join them again.
func (w *walker) objectAt(path string, fields []field, paths []string) *ValidationError {
	// Every key seen is one of fields (unknown keys end the walk), and no
	// version has more than the buffer holds, so seen stays on the stack.
	var buf [24]string
	seen := buf[:0]
	// With fold-distinct names (keysFoldDistinct), a known key's only
	// possible earlier collision is itself: seenBits answers that and the
	// final missing-key pass without comparing strings, and next guesses
	// the key's index because answers mostly keep the schema's order.
	distinct := keysFoldDistinct(fields)
	var seenBits uint64
	next := 0
	for w.dec.More() {
		tok, e := w.token(at(path))
		if e != nil {
			return e
		}
		key, ok := tok.(string)
		if !ok {
			// The decoder only hands out strings in key position.
			return verr(CategoryDecode, at(path), "object key is not a string")
		}
		i := -1
		if distinct && next < len(fields) && fields[next].name == key {
			i = next
		} else {
			i = slices.IndexFunc(fields, func(f field) bool { return f.name == key })
		}
		if distinct && i >= 0 {
			if seenBits&(1<<i) != 0 {
				return verr(CategoryDuplicateKey, join(path, key), "key appears more than once in the object")
			}
		} else if e := foldCollision(path, seen, key); e != nil {
			return e
		}
		if i < 0 {
			return verr(CategoryUnknownField, at(path), "unknown key %s", quoteKey(key))
		}
		seen = append(seen, key)
		seenBits |= 1 << i
		next = i + 1
		p := ""
		if paths != nil {
			p = paths[i]
		} else {
			p = join(path, key)
		}
		if e := fields[i].check(w, p); e != nil {
			return e
		}
	}
	if _, e := w.token(at(path)); e != nil {
		return e
	}
	for i, f := range fields {
		if distinct {
			if seenBits&(1<<i) == 0 {
				return f.missing(join(path, f.name))
			}
		} else if !slices.Contains(seen, f.name) {
			return f.missing(join(path, f.name))
		}
	}
	return nil
}

// foldCollision returns the error for key when it repeats an earlier key of
// the object, exactly or differing only in case, checked in the order the
// keys came.
func foldCollision(path string, seen []string, key string) *ValidationError {
	for _, prev := range seen {
		if prev == key {
			return verr(CategoryDuplicateKey, join(path, prev), "key appears more than once in the object")
		}
		if strings.EqualFold(prev, key) {
			return verr(CategoryDuplicateKey, join(path, prev), "key %s differs only in case from an earlier key", quoteKey(key))
		}
	}
	return nil
}

func (w *walker) token(path string) (json.Token, *ValidationError) {
	tok, err := w.dec.Token()
	if err != nil {
		return nil, syntaxError(path, err)
	}
	if w.record {
		w.toks = append(w.toks, tok)
	}
	return tok, nil
}

// syntaxError describes a tokenizer failure by position only: the
// decoder's own message quotes the offending character.
func syntaxError(path string, err error) *ValidationError {
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
func (w *walker) open(path string, d json.Delim, want string) *ValidationError {
	tok, e := w.token(path)
	if e != nil {
		return e
	}
	if tok != d {
		return verr(CategoryDecode, path, "got %s, want %s", kindOf(tok), want)
	}
	return nil
}

// str reads a string value, or null when nullable.
func (w *walker) str(path string, nullable bool) (s string, null bool, e *ValidationError) {
	if vt, ok := w.dec.(*valueTokens); ok && !w.record {
		if s, ok := vt.nextString(); ok {
			return s, false, nil
		}
	}
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
	return "", false, verr(CategoryDecode, path, "got %s, want %s", kindOf(tok), want)
}

func kindOf(tok json.Token) string {
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

func at(path string) string {
	if path == "" {
		return "$"
	}
	return path
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func blank(s string) bool {
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
func checkText(path, s string, maxBytes int) *ValidationError {
	if len(s) > maxBytes {
		return verr(CategoryDisplay, path, "longer than %d bytes", maxBytes)
	}
	// Nearly every string is mostly printable ASCII: a byte test each,
	// decoding only the runes that start with a byte of 0x80 or more.
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			m := notPrintable(word(s, i))
			if m == 0 {
				i += 8
				continue
			}
			i += firstHit(m)
		}
		c := s[i]
		if c-0x20 < 0x7f-0x20 || c == '\n' || c == '\t' {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return verr(CategoryDisplay, path, "control character at byte %d; only \\n and \\t are allowed", i)
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isControl(r) {
			return verr(CategoryDisplay, path, "control character at byte %d; only \\n and \\t are allowed", i)
		}
		if isBidiControl(r) {
			return verr(CategoryDisplay, path, "bidirectional control character U+%04X at byte %d", r, i)
		}
		i += size
	}
	return nil
}

// isBidiControl reports the Unicode bidirectional formatting characters:
// the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069 and
// the implicit marks LRM, RLM and ALM, which can still move neutral
// characters and digits around.
func isBidiControl(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

func isControl(r rune) bool {
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

func checkSchemaVersion(w *walker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if s != w.version {
		return verr(CategorySchemaVersion, path, "not this schema version; want %q", w.version)
	}
	return nil
}

func checkTitle(w *walker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if blank(s) {
		return verr(CategoryDisplay, path, "empty or blank title")
	}
	return checkText(path, s, maxTitleBytes)
}

func checkBullets(w *walker, path string) *ValidationError {
	if e := w.open(path, '[', "an array of strings"); e != nil {
		return e
	}
	n := 0
	for w.dec.More() {
		if n == maxBullets {
			return verr(CategoryDisplay, path, "more than %d bullets", maxBullets)
		}
		ip := bulletPath(path, n)
		s, _, e := w.str(ip, false)
		if e != nil {
			return e
		}
		if blank(s) {
			return verr(CategoryDisplay, ip, "empty or blank bullet")
		}
		if e := checkText(ip, s, maxBulletBytes); e != nil {
			return e
		}
		n++
	}
	if _, e := w.token(path); e != nil {
		return e
	}
	if n < minBullets {
		return verr(CategoryDisplay, path, "no bullets; want %d to %d", minBullets, maxBullets)
	}
	return nil
}

// bulletPaths are the paths of the bullets every version has, written
// out so a walk does not join them.
var bulletPaths = [maxBullets]string{"bullets[0]", "bullets[1]", "bullets[2]", "bullets[3]", "bullets[4]"}

func bulletPath(path string, n int) string {
	if path == "bullets" && n < len(bulletPaths) {
		return bulletPaths[n]
	}
	return index(path, n)
}

func checkInvoice(w *walker, path string) *ValidationError {
	if e := w.open(path, '{', "an object"); e != nil {
		return e
	}
	return w.object(path, v1FactFields)
}

// factText checks a free-text fact. An empty string is refused because
// "not stated" has one spelling, null, and exports must not have to treat
// "" and null alike.
func factText(maxBytes int) func(*walker, string) *ValidationError {
	return func(w *walker, path string) *ValidationError {
		s, null, e := w.str(path, true)
		if e != nil || null {
			return e
		}
		if blank(s) {
			return verr(CategoryFacts, path, "empty or blank; use null when the invoice does not state it")
		}
		return checkText(path, s, maxBytes)
	}
}

func checkCurrency(w *walker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if _, ok := CurrencyExponent(s); !ok {
		return verr(CategoryFacts, path, "not an active ISO 4217 code; want three upper-case letters such as EUR, or null")
	}
	return nil
}

func checkTotalMinor(w *walker, path string) *ValidationError {
	tok, e := w.token(path)
	if e != nil {
		return e
	}
	switch t := tok.(type) {
	case nil:
		return nil
	case json.Number:
		return checkMinorUnits(path, string(t))
	}
	return verr(CategoryDecode, path, "got %s, want an integer in minor units or null", kindOf(tok))
}

// checkMinorUnits judges the number as written. The decoder has already
// checked JSON number syntax, so only sign, fraction, exponent and size are
// left.
func checkMinorUnits(path, n string) *ValidationError {
	switch {
	case strings.HasPrefix(n, "-"):
		return verr(CategoryFacts, path, "negative; want a non-negative integer in minor units")
	case strings.ContainsAny(n, ".eE"):
		return verr(CategoryFacts, path, "got a float, want integer minor units")
	}
	u, err := strconv.ParseUint(n, 10, 64)
	if err != nil || u > maxSafeInteger {
		return verr(CategoryFacts, path, "larger than 2^53-1")
	}
	return nil
}

func checkDueDate(w *walker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if !isDate(s) {
		return verr(CategoryFacts, path, "not a calendar date in YYYY-MM-DD form")
	}
	return nil
}

// isDate accepts exactly YYYY-MM-DD naming a day that exists. The digit
// check comes first because time.Parse tolerates some shapes we do not.
func isDate(s string) bool {
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

func checkActionItems(w *walker, path string) *ValidationError {
	return w.objects(path, 0, v1ActionFields)
}

// objects walks an array of objects with the given keys, at most max of
// them (0: no cap); w.item is the index of the object being walked.
func (w *walker) objects(path string, max int, fields []field) *ValidationError {
	if e := w.open(path, '[', "an array of objects"); e != nil {
		return e
	}
	for i := 0; w.dec.More(); i++ {
		if max > 0 && i == max {
			return verr(CategoryFacts, path, "more than %d entries", max)
		}
		ip, paths := elementPaths(path, fields, i)
		w.item = i
		if e := w.open(ip, '{', "an object"); e != nil {
			return e
		}
		if e := w.objectAt(ip, fields, paths); e != nil {
			return e
		}
	}
	_, e := w.token(path)
	return e
}

// cachedElements is how many elements of each top-level array of objects
// have their paths joined once, for every walk.
const cachedElements = 32

// arrayPaths are the paths of the first cachedElements elements of a
// top-level array of objects and of their members.
type arrayPaths struct {
	items []string   // "line_items[3]"
	keys  [][]string // "line_items[3].amount_minor", in field order
}

func newArrayPaths(path string, fields []field) *arrayPaths {
	a := &arrayPaths{}
	for i := range cachedElements {
		ip := index(path, i)
		keys := make([]string, len(fields))
		for k, f := range fields {
			keys[k] = join(ip, f.name)
		}
		a.items, a.keys = append(a.items, ip), append(a.keys, keys)
	}
	return a
}

var (
	lineItemPaths   = sync.OnceValue(func() *arrayPaths { return newArrayPaths("line_items", v2LineItemFields) })
	taxLinePaths    = sync.OnceValue(func() *arrayPaths { return newArrayPaths("tax_lines", v2TaxLineFields) })
	actionItemPaths = sync.OnceValue(func() *arrayPaths { return newArrayPaths("action_items", v1ActionFields) })
)

// elementPaths returns the path of element i of the array of objects at
// path and its members' paths (nil: join them), from the cache for the
// top-level arrays of the versions.
func elementPaths(path string, fields []field, i int) (string, []string) {
	var a *arrayPaths
	if i < cachedElements && len(fields) > 0 {
		switch {
		case path == "line_items" && &fields[0] == &v2LineItemFields[0]:
			a = lineItemPaths()
		case path == "tax_lines" && &fields[0] == &v2TaxLineFields[0]:
			a = taxLinePaths()
		case path == "action_items" && &fields[0] == &v1ActionFields[0]:
			a = actionItemPaths()
		}
	}
	if a == nil {
		return index(path, i), nil
	}
	return a.items[i], a.keys[i]
}

func checkActionID(w *walker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if s == "" {
		return verr(CategoryActionID, path, "empty id")
	}
	if len(s) > maxActionIDBytes {
		return verr(CategoryDisplay, path, "longer than %d bytes", maxActionIDBytes)
	}
	for i := range len(s) {
		if !isIDByte(s[i]) {
			return verr(CategoryActionID, path, "character at byte %d not allowed; ids use only A-Z a-z 0-9 _ . : -", i)
		}
	}
	if prev, ok := w.ids.find(s); ok {
		return verr(CategoryActionID, path, "repeats the id of action_items[%d]", prev)
	}
	w.ids.add(s, w.item)
	return nil
}

// actionIDs is a set of action ids with the item each came from. The few
// ids of an answer are looked up by comparing them in place (a map was an
// allocation or two per walk); past smallIDs of them, a map.
type actionIDs struct {
	small [smallIDs]actionID
	n     int
	more  map[string]int
}

const smallIDs = 8

type actionID struct {
	id   string
	item int
}

func (a *actionIDs) find(id string) (int, bool) {
	for _, x := range a.small[:min(a.n, smallIDs)] {
		if x.id == id {
			return x.item, true
		}
	}
	item, ok := a.more[id]
	return item, ok
}

func (a *actionIDs) add(id string, item int) {
	if a.n < smallIDs {
		a.small[a.n] = actionID{id, item}
	} else {
		if a.more == nil {
			a.more = map[string]int{}
		}
		a.more[id] = item
	}
	a.n++
}

// isIDByte limits ids to characters that are safe in an outbox key
// (job_key:action_id), a header and a file name.
func isIDByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c == '_', c == '.', c == ':', c == '-':
		return true
	}
	return false
}

func checkActionKind(w *walker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if !slices.Contains(v1Kinds, s) {
		return verr(CategoryActionKind, path, "unknown kind; want one of %s", strings.Join(v1Kinds, ", "))
	}
	return nil
}

func checkEvidence(w *walker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if blank(s) {
		return verr(CategoryActionEvidence, path, "empty or blank evidence")
	}
	if e := checkText(path, s, maxEvidenceBytes); e != nil {
		return e
	}
	// Byte-exact: the source is already normalised (NFC, LF), and any
	// looser match would let a model paraphrase and still pass.
	if !w.checks.noSource && !strings.Contains(w.source, s) {
		return verr(CategoryActionEvidence, path, "not an exact substring of the source")
	}
	return nil
}
