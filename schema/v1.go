package schema

// V1 is the first released invoice-summary schema. Once released a version is
// immutable: changes go into a new version beside it.
const V1 = "invoice-summary-v1"

// Action kinds allowed in invoice-summary-v1.
const (
	KindVerifyPurchaseOrder = "verify_purchase_order"
	KindReviewTax           = "review_tax"
	KindContactSupplier     = "contact_supplier"
)

// InvoiceSummaryV1 is the result document of schema invoice-summary-v1. The Go
// type is the single source of truth: the JSON Schema sent to providers is
// generated from it and validation decodes into it.
type InvoiceSummaryV1 struct {
	SchemaVersion string       `json:"schema_version" jsonschema:"enum=invoice-summary-v1"`
	Title         string       `json:"title" jsonschema:"minLength=1,maxLength=200" jsonschema_description:"One line summarising the invoice for an accounts-payable clerk."`
	Bullets       []string     `json:"bullets" jsonschema:"minItems=1,maxItems=5,minLength=1,maxLength=300" jsonschema_description:"One to five short points the clerk should know."`
	Invoice       InvoiceFacts `json:"invoice" jsonschema_description:"Facts stated by the invoice; null for any fact it does not state."`
	ActionItems   []ActionItem `json:"action_items" jsonschema_description:"Follow-ups for the clerk; an empty array when there are none."`
}

// InvoiceFacts are the facts read from an invoice. A fact the text does not
// state is null, never a guess.
type InvoiceFacts struct {
	SupplierName  *string `json:"supplier_name" jsonschema:"minLength=1,maxLength=200" jsonschema_description:"The supplier's name as written on the invoice."`
	InvoiceNumber *string `json:"invoice_number" jsonschema:"minLength=1,maxLength=64" jsonschema_description:"The invoice number as written on the invoice."`
	// Currency is an ISO 4217 alphabetic code.
	Currency *string `json:"currency" jsonschema:"pattern=^[A-Z]{3}$" jsonschema_description:"ISO 4217 code in upper case, such as EUR, USD or JPY."`
	// TotalMinor is the amount due in the currency's minor units (cents for
	// EUR, yen for JPY, fils for BHD). Money is never a float.
	TotalMinor *int64 `json:"total_minor" jsonschema:"minimum=0,maximum=9007199254740991" jsonschema_description:"Total amount due as an integer count of the currency's minor units: EUR 1234.56 is 123456, JPY 120000 is 120000, BHD 1.250 is 1250."`
	// DueDate is a calendar date, YYYY-MM-DD.
	DueDate *string `json:"due_date" jsonschema:"format=date" jsonschema_description:"Payment due date as YYYY-MM-DD."`
}

// ActionItem is a follow-up a clerk should take, backed by evidence copied
// verbatim from the source text.
type ActionItem struct {
	ID       string `json:"id" jsonschema:"minLength=1,maxLength=64,pattern=^[A-Za-z0-9_.:-]+$" jsonschema_description:"Short id, unique within the document, such as a1."`
	Kind     string `json:"kind" jsonschema:"enum=verify_purchase_order,enum=review_tax,enum=contact_supplier" jsonschema_description:"verify_purchase_order: match the invoice against a purchase order; review_tax: a tax question to check; contact_supplier: something to clarify with the supplier."`
	Evidence string `json:"evidence" jsonschema:"minLength=1,maxLength=500" jsonschema_description:"An excerpt copied verbatim from the invoice text that shows why the item is needed."`
}
