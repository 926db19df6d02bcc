// Package einvoice reads structured e-invoices exactly: UBL 2.1 Invoice and
// CreditNote, UN/CEFACT CII D16B (ZUGFeRD 2.x, Factur-X, XRechnung) and
// ZUGFeRD 1.0 CII. It detects the syntax from the root element and its
// namespace and reads the EN 16931 business terms invx maps to its schemas,
// each with the element's exact source text as evidence.
//
// It lives under internal, apart from the einvoice provider
// (extract/einvoice), because discovery (package extract) must recognise an
// e-invoice to take a .xml file, and extract may not import an adapter.
//
// Decoding is encoding/xml only and defensive: no network, no DTD (a
// DOCTYPE is refused, so no entity is ever expanded), a size cap
// (MaxBytes), a depth cap and an element cap. Nothing here panics on any
// input (FuzzParse).
package einvoice
