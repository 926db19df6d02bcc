package schema

import (
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strings"
)

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
var xmlLeafRe = regexp.MustCompile(`^<([A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?)(?:\s[^<>]*)?>([^<]*)</([A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?)\s*>$`)

// xmlLeafText returns the decoded character content of e when e is exactly
// one XML element holding only text, and whether it is.
func xmlLeafText(e string) (string, bool) {
	m := xmlLeafRe.FindStringSubmatch(e)
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
func xmlAmountIn(content string, minor int64, exp int) bool {
	got, ok := XSDecimalMinor(strings.TrimSpace(content), exp)
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
var xsDecimalRe = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)

// XSDecimalMinor reads an xs:decimal ("10686.2") as an integer count of
// minor units of exponent exp (1068620 for 2); false when it is not one, has
// non-zero digits beyond exp (it refuses rather than rounds), or is too
// large. The e-invoice reader and the XML evidence check share it, so a
// fact and its evidence are read the same way.
func XSDecimalMinor(s string, exp int) (int64, bool) {
	if !xsDecimalRe.MatchString(s) {
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
func xmlLeafHolds(name, e string, text *string, amount *int64, exp int) bool {
	content, ok := xmlLeafText(e)
	if !ok || strings.TrimSpace(content) == "" {
		return false
	}
	switch name {
	case "supplier_name", "buyer_name", "invoice_number", "po_number":
		return strings.Contains(foldText(content), foldText(*text))
	case "supplier_vat_id":
		return vatIDIn(content, *text)
	case "supplier_iban":
		return alnumContains(content, *text, 0, 0)
	case "issue_date", "due_date":
		return dateIn(content, *text)
	case "currency":
		return currencyIn(content, *text)
	}
	return amount != nil && xmlAmountIn(content, *amount, exp)
}
