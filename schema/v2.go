package schema

// V2 is invoice-v2, the accounts-payable schema: flat facts a clerk can pay
// and book from, each tied to the source text it was read from. It is
// released beside V1, never instead of it; a V1 result is never re-read as
// V2.
const V2 = "invoice-v2"

// Document types allowed in invoice-v2. The type decides the sign of the
// amounts: a credit note refunds, so its amounts are negative.
const (
	DocInvoice    = "invoice"
	DocCreditNote = "credit_note"
	DocDebitNote  = "debit_note"
	DocReceipt    = "receipt"
	DocProforma   = "proforma"
	DocReminder   = "reminder"
	DocOther      = "other"
)

// InvoiceV2 is the result document of schema invoice-v2. The Go type is the
// single source of truth: the JSON Schema sent to providers is generated from
// it, validation decodes into it, and the field order is the key order of
// the canonical JSON and of the export columns.
//
// Every fact is nullable: null means the document does not state it, never
// a guess. Amounts are integer minor units of Currency (EUR 1234.56 is
// 123456), negative on a credit note.
type InvoiceV2 struct {
	SchemaVersion string   `json:"schema_version" jsonschema:"enum=invoice-v2"`
	DocumentType  string   `json:"document_type" jsonschema:"enum=invoice,enum=credit_note,enum=debit_note,enum=receipt,enum=proforma,enum=reminder,enum=other" jsonschema_description:"invoice: a bill to pay; credit_note: a refund or reduction, amounts negative; debit_note: an extra charge on an earlier invoice; receipt: proof of a payment already made; proforma: a quote-like invoice not to be booked; reminder: a payment reminder about an earlier invoice, not a new one; other: anything else."`
	Title         string   `json:"title" jsonschema:"minLength=1,maxLength=200" jsonschema_description:"One line summarising the document for an accounts-payable clerk."`
	Bullets       []string `json:"bullets" jsonschema:"minItems=1,maxItems=5,minLength=1,maxLength=300" jsonschema_description:"One to five short points the clerk should know."`

	SupplierName *string `json:"supplier_name" jsonschema:"minLength=1,maxLength=200" jsonschema_description:"The supplier's name as written."`
	// SupplierVATID is the VAT id in compact form: country prefix, letters
	// and digits only (DE123456789, CHE123456789MWST).
	SupplierVATID *string `json:"supplier_vat_id" jsonschema:"minLength=4,maxLength=20,pattern=^[A-Z0-9]+$" jsonschema_description:"The supplier's VAT id in compact form: upper-case letters and digits only, no spaces, dots or dashes, with its country prefix (DE123456789, EL123456789, CHE123456789MWST)."`
	// SupplierIBAN is the IBAN in electronic form, without spaces.
	SupplierIBAN  *string `json:"supplier_iban" jsonschema:"minLength=15,maxLength=34,pattern=^[A-Z]{2}[0-9]{2}[A-Z0-9]+$" jsonschema_description:"The IBAN payment should go to, in electronic form: upper case, no spaces (DE89370400440532013000)."`
	BuyerName     *string `json:"buyer_name" jsonschema:"minLength=1,maxLength=200" jsonschema_description:"The buyer's (invoice recipient's) name as written."`
	InvoiceNumber *string `json:"invoice_number" jsonschema:"minLength=1,maxLength=64" jsonschema_description:"The document number as written."`
	IssueDate     *string `json:"issue_date" jsonschema:"format=date" jsonschema_description:"Issue date as YYYY-MM-DD."`
	DueDate       *string `json:"due_date" jsonschema:"format=date" jsonschema_description:"Payment due date as YYYY-MM-DD; null when only terms such as 30 days net are given."`
	PONumber      *string `json:"po_number" jsonschema:"minLength=1,maxLength=64" jsonschema_description:"The buyer's purchase order number as written."`
	Currency      *string `json:"currency" jsonschema:"pattern=^[A-Z]{3}$" jsonschema_description:"ISO 4217 code in upper case, such as EUR, USD or JPY. Required whenever any amount is given."`

	NetMinor       *int64 `json:"net_minor" jsonschema:"minimum=-9007199254740991,maximum=9007199254740991" jsonschema_description:"Net amount (before tax) in integer minor units: EUR 1234.56 is 123456; negative on a credit note."`
	TaxMinor       *int64 `json:"tax_minor" jsonschema:"minimum=-9007199254740991,maximum=9007199254740991" jsonschema_description:"Total tax in integer minor units; negative on a credit note."`
	TotalMinor     *int64 `json:"total_minor" jsonschema:"minimum=-9007199254740991,maximum=9007199254740991" jsonschema_description:"Gross total (net plus tax) in integer minor units; negative on a credit note."`
	AmountDueMinor *int64 `json:"amount_due_minor" jsonschema:"minimum=-9007199254740991,maximum=9007199254740991" jsonschema_description:"Amount still to pay in integer minor units, after prepayments or with reminder fees; negative on a credit note."`

	TaxLines  []TaxLine  `json:"tax_lines" jsonschema:"maxItems=16" jsonschema_description:"One entry per tax rate the document lists; an empty array when it lists none."`
	LineItems []LineItem `json:"line_items" jsonschema:"maxItems=500" jsonschema_description:"The document's line items in order; an empty array when it has none or they cannot be read."`
	// LinesComplete says LineItems holds every line of the document, each
	// with its amount, so their amounts must add up to NetMinor (or to
	// TotalMinor for gross-priced lines). False when lines are missing, cut
	// by a page break or unread; then no sum is checked.
	LinesComplete bool `json:"lines_complete" jsonschema_description:"true only when line_items holds every line of the document, each with amount_minor, so that their amounts add up to net_minor (or total_minor when lines are priced gross); false otherwise."`

	ActionItems []ActionItem `json:"action_items" jsonschema_description:"Follow-ups for the clerk; an empty array when there are none."`
	Evidence    EvidenceV2   `json:"evidence" jsonschema_description:"For each fact above, the exact excerpt of the document text it was read from; null exactly when the fact is null."`
}

// TaxLine is one tax rate of a document: rate, the base it applies to and
// the tax charged.
type TaxLine struct {
	RateBP    int64  `json:"rate_bp" jsonschema:"minimum=0,maximum=10000" jsonschema_description:"Tax rate in basis points: 19% is 1900, 7.7% is 770, 0% is 0."`
	BaseMinor *int64 `json:"base_minor" jsonschema:"minimum=-9007199254740991,maximum=9007199254740991" jsonschema_description:"Net amount taxed at this rate in integer minor units; null when not stated."`
	TaxMinor  int64  `json:"tax_minor" jsonschema:"minimum=-9007199254740991,maximum=9007199254740991" jsonschema_description:"Tax at this rate in integer minor units."`
}

// LineItem is one line of a document's item table.
type LineItem struct {
	Description string `json:"description" jsonschema:"minLength=1,maxLength=300" jsonschema_description:"The line's description as written."`
	// Quantity is a decimal string so that 0.5 kg or 1.25 h survive exactly.
	Quantity       *string `json:"quantity" jsonschema:"maxLength=32,pattern=^-?[0-9]+(\\.[0-9]+)?$" jsonschema_description:"Quantity as a decimal string with a dot: 2, 0.5, 1.25; null when not stated."`
	UnitPriceMinor *int64  `json:"unit_price_minor" jsonschema:"minimum=-9007199254740991,maximum=9007199254740991" jsonschema_description:"Unit price in integer minor units; null when not stated."`
	AmountMinor    *int64  `json:"amount_minor" jsonschema:"minimum=-9007199254740991,maximum=9007199254740991" jsonschema_description:"Line amount in integer minor units; null when not stated."`
	TaxRateBP      *int64  `json:"tax_rate_bp" jsonschema:"minimum=0,maximum=10000" jsonschema_description:"The line's tax rate in basis points; null when not stated."`
}

// EvidenceV2 maps each fact of InvoiceV2 to the exact substring of the
// source text it was read from, null exactly when the fact is null.
//
// It is a closed object with one nullable key per fact rather than an open
// JSON map or an array of {field, text} pairs: strict structured outputs
// (OpenAI strict mode and its copies) cannot express an open map, a closed
// object rejects evidence for a fact that does not exist by the same
// unknown-key rule as everywhere else, and a model cannot cite one fact
// twice. Keys and order are those of the facts in InvoiceV2.
type EvidenceV2 struct {
	SupplierName   *string `json:"supplier_name" jsonschema:"minLength=1,maxLength=500"`
	SupplierVATID  *string `json:"supplier_vat_id" jsonschema:"minLength=1,maxLength=500"`
	SupplierIBAN   *string `json:"supplier_iban" jsonschema:"minLength=1,maxLength=500"`
	BuyerName      *string `json:"buyer_name" jsonschema:"minLength=1,maxLength=500"`
	InvoiceNumber  *string `json:"invoice_number" jsonschema:"minLength=1,maxLength=500"`
	IssueDate      *string `json:"issue_date" jsonschema:"minLength=1,maxLength=500"`
	DueDate        *string `json:"due_date" jsonschema:"minLength=1,maxLength=500"`
	PONumber       *string `json:"po_number" jsonschema:"minLength=1,maxLength=500"`
	Currency       *string `json:"currency" jsonschema:"minLength=1,maxLength=500"`
	NetMinor       *string `json:"net_minor" jsonschema:"minLength=1,maxLength=500"`
	TaxMinor       *string `json:"tax_minor" jsonschema:"minLength=1,maxLength=500"`
	TotalMinor     *string `json:"total_minor" jsonschema:"minLength=1,maxLength=500"`
	AmountDueMinor *string `json:"amount_due_minor" jsonschema:"minLength=1,maxLength=500"`
}
