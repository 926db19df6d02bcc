package schema

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Limits of invoice-v2 beyond those it shares with v1.
const (
	maxBuyerNameBytes   = 200
	maxPONumberBytes    = 64
	maxDescriptionBytes = 300
	maxQuantityBytes    = 32
	maxTaxLines         = 16
	maxLineItems        = 500
	// maxRateBP is 100% in basis points.
	maxRateBP = 10000
)

// v2Fields and the lists below name the keys of invoice-v2 in the Go type's
// field order; a test keeps them in step with InvoiceV2.
var (
	v2Fields = []field{
		{"schema_version", checkSchemaVersion, func(path string) *ValidationError {
			return verr(CategorySchemaVersion, path, "missing; want %q", V2)
		}},
		{"document_type", checkDocumentType, missingAs(CategoryFacts, "missing document_type; want one of %s", strings.Join(v2DocTypes, ", "))},
		{"title", checkTitle, missingAs(CategoryDisplay, "missing title")},
		{"bullets", checkBullets, missingAs(CategoryDisplay, "missing bullets; want %d to %d", minBullets, maxBullets)},
		{"supplier_name", factText(maxSupplierNameBytes), missingFact},
		{"supplier_vat_id", checkVATID, missingFact},
		{"supplier_iban", checkIBAN, missingFact},
		{"buyer_name", factText(maxBuyerNameBytes), missingFact},
		{"invoice_number", factText(maxInvoiceNumberBytes), missingFact},
		{"issue_date", checkDueDate, missingFact},
		{"due_date", checkDueDate, missingFact},
		{"po_number", factText(maxPONumberBytes), missingFact},
		{"currency", checkCurrency, missingFact},
		{"net_minor", checkAmount(true), missingFact},
		{"tax_minor", checkAmount(true), missingFact},
		{"total_minor", checkAmount(true), missingFact},
		{"amount_due_minor", checkAmount(true), missingFact},
		{"tax_lines", checkTaxLines, missingAs(CategoryDecode, "missing tax_lines; use [] when there are none")},
		{"line_items", checkLineItems, missingAs(CategoryDecode, "missing line_items; use [] when there are none")},
		{"lines_complete", checkBool, missingAs(CategoryFacts, "missing lines_complete; use false unless line_items holds every line")},
		{"action_items", checkActionItems, missingAs(CategoryDecode, "missing action_items; use [] when there are none")},
		{"evidence", checkEvidenceObject, missingAs(CategoryEvidence, "missing evidence object")},
	}
	v2TaxLineFields = []field{
		{"rate_bp", checkRate(false), missingAs(CategoryFacts, "missing rate_bp")},
		{"base_minor", checkAmount(true), missingFact},
		{"tax_minor", checkAmount(false), missingAs(CategoryFacts, "missing tax_minor")},
	}
	v2LineItemFields = []field{
		{"description", checkDescription, missingAs(CategoryFacts, "missing description")},
		{"quantity", checkQuantity, missingFact},
		{"unit_price_minor", checkAmount(true), missingFact},
		{"amount_minor", checkAmount(true), missingFact},
		{"tax_rate_bp", checkRate(true), missingFact},
	}
	// v2EvidenceFields has one key per fact; its check is only the local
	// one (type, blank, display rules, substring). Whether the evidence
	// holds the fact's value needs the fact, so it runs after the walk.
	v2EvidenceFields = func() []field {
		var fs []field
		for _, name := range v2FactNames {
			fs = append(fs, field{name, checkFactEvidence, missingAs(CategoryEvidence, "missing evidence key; use null when the fact is null")})
		}
		return fs
	}()
	v2FactNames = []string{
		"supplier_name", "supplier_vat_id", "supplier_iban", "buyer_name", "invoice_number",
		"issue_date", "due_date", "po_number", "currency",
		"net_minor", "tax_minor", "total_minor", "amount_due_minor",
	}
	v2DocTypes = []string{DocInvoice, DocCreditNote, DocDebitNote, DocReceipt, DocProforma, DocReminder, DocOther}
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
func validateV2(v *Version, raw []byte, source string, c checks) (*Result, *ValidationError) {
	doc := new(InvoiceV2)
	if e := walkAndDecode(v, raw, source, c, v2Fields, doc); e != nil {
		return nil, e
	}
	if e := checkDecodedV2(doc, c); e != nil {
		return nil, e
	}
	canon := appendCanonicalV2(make([]byte, 0, len(raw)+len(raw)/8), doc)
	// As canonicalJSON: escaping can make the canonical form longer than
	// the raw answer.
	if len(canon) > maxDocumentBytes {
		return nil, verr(CategoryDecode, "$", "canonical form larger than %d bytes", maxDocumentBytes)
	}
	return &Result{
		Version:   v.Name,
		JSON:      canon,
		Actions:   doc.ActionItems,
		Title:     doc.Title,
		Bullets:   doc.Bullets,
		InvoiceV2: doc,
		Review:    checkArithmetic(doc),
	}, nil
}

// checkDecodedV2 runs the phases after the walk (3 and 4 of validateV2) on
// the decoded document, filling its nil slices with empty ones.
func checkDecodedV2(doc *InvoiceV2, c checks) *ValidationError {
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
	if e := checkCrossFacts(doc); e != nil {
		return e
	}
	return checkFactEvidenceValues(doc, c.corrected)
}

func checkDocumentType(w *walker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if !slices.Contains(v2DocTypes, s) {
		return verr(CategoryFacts, path, "unknown document type; want one of %s", strings.Join(v2DocTypes, ", "))
	}
	return nil
}

// integer reads an integer token as written: 12.0 and 1e3 are refused even
// though they hold integers, because a model that writes them has not
// understood minor units.
func (w *walker) integer(path string, nullable bool) (n int64, null bool, e *ValidationError) {
	// An integer of the Go value, in range, is what its json.Number would
	// parse to; one out of range takes the token path and its error.
	if vt, ok := w.dec.(*valueTokens); ok && !w.record {
		if n, ok := vt.nextInt(); ok {
			if n <= maxSafeInteger && n >= -maxSafeInteger {
				return n, false, nil
			}
			vt.pos--
		}
	}
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
		if n, ok := shortInteger(string(t)); ok {
			return n, false, nil
		}
		if strings.ContainsAny(string(t), ".eE") {
			return 0, false, verr(CategoryFacts, path, "got a float, want an integer")
		}
		n, err := strconv.ParseInt(string(t), 10, 64)
		if err != nil || n > maxSafeInteger || n < -maxSafeInteger {
			return 0, false, verr(CategoryFacts, path, "outside -(2^53-1) to 2^53-1")
		}
		return n, false, nil
	}
	want := "an integer"
	if nullable {
		want = "an integer or null"
	}
	return 0, false, verr(CategoryDecode, path, "got %s, want %s", kindOf(tok), want)
}

// shortInteger reads -?[0-9]{1,15}, the shape of nearly every amount and
// rate: never a float, and inside ±(2^53-1), so it needs neither the
// float test nor strconv.ParseInt's range checks; false for any other
// shape, which integer judges in full.
func shortInteger(s string) (int64, bool) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(s) {
		n = -n
	}
	return n, true
}

// checkAmount accepts a signed integer count of minor units: the sign is
// judged against the document type later, with the other amounts.
func checkAmount(nullable bool) func(*walker, string) *ValidationError {
	return func(w *walker, path string) *ValidationError {
		_, _, e := w.integer(path, nullable)
		return e
	}
}

func checkRate(nullable bool) func(*walker, string) *ValidationError {
	return func(w *walker, path string) *ValidationError {
		n, null, e := w.integer(path, nullable)
		if e != nil || null {
			return e
		}
		if n < 0 || n > maxRateBP {
			return verr(CategoryFacts, path, "outside 0 to %d basis points", maxRateBP)
		}
		return nil
	}
}

func checkBool(w *walker, path string) *ValidationError {
	tok, e := w.token(path)
	if e != nil {
		return e
	}
	if _, ok := tok.(bool); !ok {
		return verr(CategoryDecode, path, "got %s, want true or false", kindOf(tok))
	}
	return nil
}

func checkTaxLines(w *walker, path string) *ValidationError {
	return w.objects(path, maxTaxLines, v2TaxLineFields)
}

func checkLineItems(w *walker, path string) *ValidationError {
	return w.objects(path, maxLineItems, v2LineItemFields)
}

func checkDescription(w *walker, path string) *ValidationError {
	s, _, e := w.str(path, false)
	if e != nil {
		return e
	}
	if blank(s) {
		return verr(CategoryFacts, path, "empty or blank description")
	}
	return checkText(path, s, maxDescriptionBytes)
}

func checkQuantity(w *walker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if len(s) > maxQuantityBytes {
		return verr(CategoryFacts, path, "longer than %d bytes", maxQuantityBytes)
	}
	if !isDecimal(s) {
		return verr(CategoryFacts, path, "not a decimal string such as 2, 0.5 or -1.25")
	}
	return nil
}

// isDecimal accepts -?[0-9]+(\.[0-9]+)?: a dot, never a comma, so that the
// value parses the same in every locale.
func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasDot := strings.Cut(s, ".")
	return isASCIIDigits(intPart) && (!hasDot || isASCIIDigits(frac))
}

func checkEvidenceObject(w *walker, path string) *ValidationError {
	if e := w.open(path, '{', "an object"); e != nil {
		return e
	}
	if path == "evidence" {
		return w.objectAt(path, v2EvidenceFields, v2EvidencePaths())
	}
	return w.object(path, v2EvidenceFields)
}

// v2EvidencePaths are the paths of the evidence keys, joined once.
var v2EvidencePaths = sync.OnceValue(func() []string {
	paths := make([]string, len(v2EvidenceFields))
	for i, f := range v2EvidenceFields {
		paths[i] = join("evidence", f.name)
	}
	return paths
})

// checkFactEvidence applies the rules of action evidence to one fact's
// evidence: displayed, so the display rules; byte-exact, so a paraphrase
// cannot pass.
func checkFactEvidence(w *walker, path string) *ValidationError {
	s, null, e := w.str(path, true)
	if e != nil || null {
		return e
	}
	if w.checks.corrected[strings.TrimPrefix(path, "evidence.")] {
		return nil // ignored: validateV2 sets it to null
	}
	if blank(s) {
		return verr(CategoryEvidence, path, "empty or blank evidence; use null when the fact is null")
	}
	if e := checkText(path, s, maxEvidenceBytes); e != nil {
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
func checkCrossFacts(d *InvoiceV2) *ValidationError {
	if d.Currency == nil {
		for _, a := range d.amounts() {
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
				return verr(CategoryFacts, index("line_items", i)+".amount_minor", "null although lines_complete is true")
			}
		}
	}
	return nil
}

type pathAmount struct {
	path string
	v    *int64
}

// amounts lists every amount of the document in document order.
func (d *InvoiceV2) amounts() []pathAmount {
	out := []pathAmount{
		{"net_minor", d.NetMinor}, {"tax_minor", d.TaxMinor},
		{"total_minor", d.TotalMinor}, {"amount_due_minor", d.AmountDueMinor},
	}
	for i := range d.TaxLines {
		tl := &d.TaxLines[i]
		p := index("tax_lines", i)
		out = append(out, pathAmount{p + ".base_minor", tl.BaseMinor}, pathAmount{p + ".tax_minor", &tl.TaxMinor})
	}
	for i := range d.LineItems {
		li := &d.LineItems[i]
		p := index("line_items", i)
		out = append(out, pathAmount{p + ".unit_price_minor", li.UnitPriceMinor}, pathAmount{p + ".amount_minor", li.AmountMinor})
	}
	return out
}
