package eval

import "github.com/invx/invx/schema"

// The fields invoice-v2 scores beyond v1's. Their expectation keys have the
// same names, except total_minor (see GrossMinor).
const (
	FieldDocumentType   = "document_type"
	FieldSupplierVATID  = "supplier_vat_id"
	FieldSupplierIBAN   = "supplier_iban"
	FieldBuyerName      = "buyer_name"
	FieldIssueDate      = "issue_date"
	FieldPONumber       = "po_number"
	FieldNetMinor       = "net_minor"
	FieldTaxMinor       = "tax_minor"
	FieldAmountDueMinor = "amount_due_minor"
	FieldLineCount      = "line_count"
	FieldLineSumMinor   = "line_sum_minor"
)

// KeyGrossMinor is the expectation key of the gross total (net plus tax),
// which invoice-v2 scores as its field total_minor. It needs a key of its
// own because an expectation's total_minor is v1's: the amount payable,
// which differs from the gross total wherever a deposit is subtracted or a
// reminder adds a fee.
const KeyGrossMinor = "gross_minor"

// FieldsV2 are the fields invoice-v2 scores, in report order: the flat facts
// of schema.InvoiceV2 in their order, the line items by count and by sum,
// and the set of action kinds.
var FieldsV2 = []string{
	FieldDocumentType, FieldSupplierName, FieldSupplierVATID, FieldSupplierIBAN, FieldBuyerName,
	FieldInvoiceNumber, FieldIssueDate, FieldDueDate, FieldPONumber, FieldCurrency,
	FieldNetMinor, FieldTaxMinor, FieldTotalMinor, FieldAmountDueMinor,
	FieldLineCount, FieldLineSumMinor, FieldActionKinds,
}

// FieldsFor returns the fields scored under a schema version: Fields for
// invoice-summary-v1 (and any version eval does not know, so that a v1
// report never changes), FieldsV2 for invoice-v2. The caller must not
// modify the slice.
func FieldsFor(version string) []string {
	if version == schema.V2 {
		return FieldsV2
	}
	return Fields
}

// expectKeys are the keys an expectation file may hold besides the
// aliases: every field of every version and the gross total.
var expectKeys = []string{
	FieldSupplierName, FieldInvoiceNumber, FieldCurrency, FieldTotalMinor, FieldDueDate, FieldActionKinds,
	FieldDocumentType, FieldSupplierVATID, FieldSupplierIBAN, FieldBuyerName, FieldIssueDate, FieldPONumber,
	FieldNetMinor, FieldTaxMinor, KeyGrossMinor, FieldAmountDueMinor, FieldLineCount, FieldLineSumMinor,
}

// expectAliases are the dev set's names (/work/shared/devset, xml/) for
// keys of ours, read as ours: payable_minor is EN 16931's BT-115, the
// amount due; seller_vat BT-31; iban BT-84.
var expectAliases = map[string]string{
	"payable_minor": FieldAmountDueMinor,
	"seller_vat":    FieldSupplierVATID,
	"iban":          FieldSupplierIBAN,
}

// amountKeys are the expectation keys holding amounts in minor units.
// Except v1's total_minor they are magnitudes: the v2 scorer compares
// absolute values (see Same).
var amountKeys = []string{FieldTotalMinor, FieldNetMinor, FieldTaxMinor, FieldAmountDueMinor, KeyGrossMinor, FieldLineSumMinor}
