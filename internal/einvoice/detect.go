package einvoice

import (
	"encoding/xml"
	"errors"
	"io"
)

// Formats, as stored on a job. FormatText is a plain-text document.
const (
	FormatText          = "txt"
	FormatUBLInvoice    = "ubl-invoice"
	FormatUBLCreditNote = "ubl-creditnote"
	FormatCII           = "cii"
	FormatZUGFeRD1      = "zugferd1"
)

// The root namespaces that identify each syntax.
const (
	nsUBLInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	nsUBLCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
	nsCII           = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
	nsZUGFeRD1      = "urn:ferd:CrossIndustryDocument:invoice:1p0"
)

// formatOf names the syntax of a root element, or "".
func formatOf(space, local string) string {
	switch {
	case space == nsUBLInvoice && local == "Invoice":
		return FormatUBLInvoice
	case space == nsUBLCreditNote && local == "CreditNote":
		return FormatUBLCreditNote
	case space == nsCII && local == "CrossIndustryInvoice":
		return FormatCII
	case space == nsZUGFeRD1 && local == "CrossIndustryDocument":
		return FormatZUGFeRD1
	}
	return ""
}

// IsEInvoice reports whether format is one of the structured syntaxes.
func IsEInvoice(format string) bool {
	switch format {
	case FormatUBLInvoice, FormatUBLCreditNote, FormatCII, FormatZUGFeRD1:
		return true
	}
	return false
}

// Detect names the e-invoice syntax of src from its root element and
// namespace, reading no further than the root's start tag. It refuses a
// DOCTYPE and anything over MaxBytes; an error is one line saying why src
// is not a recognised e-invoice.
func Detect(src string) (string, error) {
	if len(src) > MaxBytes {
		return "", errorf("%d bytes, over the %d byte e-invoice limit", len(src), MaxBytes)
	}
	d := newDecoder(src)
	for {
		tok, err := token(d)
		if errors.Is(err, io.EOF) {
			return "", errorf("not XML: no root element")
		}
		if err != nil {
			return "", errorf("not well-formed XML: %s", oneLine(err))
		}
		if se, ok := tok.(xml.StartElement); ok {
			if f := formatOf(se.Name.Space, se.Name.Local); f != "" {
				return f, nil
			}
			ns := se.Name.Space
			if ns == "" {
				ns = "no namespace"
			}
			return "", errorf("not a recognised e-invoice: root <%s> in %s (want UBL 2.1 Invoice or CreditNote, UN/CEFACT CII D16B or ZUGFeRD 1.0)", se.Name.Local, truncate(ns, 120))
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r) + "…"
}
