// Package einvoice is the provider for structured e-invoices (UBL 2.1,
// UN/CEFACT CII D16B as in ZUGFeRD 2.x / Factur-X / XRechnung, ZUGFeRD 1.0):
// deterministic, offline, no model. It reads the EN 16931 business terms
// exactly (internal/einvoice) and maps them to invoice-v2 and
// invoice-summary-v1, each fact with the element it was read from as
// evidence. A value that has no exact form in the schema (a rate of
// 19.125 %, an IBAN that is a bank-internal account id) is null rather than
// rounded or guessed.
package einvoice
