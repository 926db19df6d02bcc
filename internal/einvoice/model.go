package einvoice

// Field is one value of an e-invoice: its text content, trimmed and
// entity-decoded, and Source, the element exactly as the file writes it
// (start tag to end tag), which is the evidence a result cites. The zero
// Field is an absent element.
type Field struct {
	Value  string
	Source string
	// Attr holds the attributes a mapping needs (currencyID, format).
	Attr map[string]string
}

// Present reports whether the element exists with non-empty content.
func (f Field) Present() bool { return f.Value != "" }

// Invoice is what invx reads from an e-invoice, in the syntax's own lexical
// forms: amounts are xs:decimal strings, dates as written (see DateFormat).
// Mapping to a schema (units, signs, dates) is the provider's job.
type Invoice struct {
	Format string
	// TypeCode is BT-3 (UNTDID 1001: 380 invoice, 381 credit note, ...);
	// a UBL CreditNote without one is 381.
	TypeCode string

	Number     Field // BT-1
	IssueDate  Field // BT-2
	DueDate    Field // BT-9
	Currency   Field // BT-5
	SellerName Field // BT-27
	SellerVAT  Field // BT-31
	BuyerName  Field // BT-44
	PONumber   Field // BT-13
	// Accounts are the payment account ids (BT-84) of every payment
	// means, IBANs first: the schema's supplier_iban takes an IBAN, and a
	// document may list a bank-internal account before it.
	Accounts []Field

	Net   Field // BT-109
	Tax   Field // BT-110, in the document currency
	Gross Field // BT-112
	Due   Field // BT-115

	TaxLines []TaxLine // BG-23
	Lines    []Line    // BG-25
}

// TaxLine is one VAT breakdown (BG-23).
type TaxLine struct {
	Rate Field // BT-119
	Base Field // BT-116
	Tax  Field // BT-117
}

// Line is one invoice line (BG-25).
type Line struct {
	Name     Field // BT-153
	Quantity Field // BT-129
	Price    Field // BT-146, net price
	BaseQty  Field // BT-149, the quantity the price is for
	Amount   Field // BT-131, line net amount
	Rate     Field // BT-152
}

// field makes a Field from an element (the zero Field for nil).
func field(src string, n *node) Field {
	if n == nil || n.value() == "" {
		return Field{}
	}
	f := Field{Value: n.value()}
	if n.start >= 0 && n.end <= len(src) && n.start < n.end {
		f.Source = src[n.start:n.end]
	}
	if len(n.attrs) > 0 {
		f.Attr = map[string]string{}
		for _, a := range n.attrs {
			f.Attr[a.Name.Local] = a.Value
		}
	}
	return f
}

// Parse reads src as an e-invoice of any supported syntax. An error is one
// line saying why it could not.
func Parse(src string) (*Invoice, error) {
	format, err := Detect(src)
	if err != nil {
		return nil, err
	}
	root, err := parse(src)
	if err != nil {
		return nil, err
	}
	var inv *Invoice
	switch format {
	case FormatUBLInvoice, FormatUBLCreditNote:
		inv = readUBL(src, root)
	case FormatCII:
		inv = readCII(src, root, ciiD16B)
	case FormatZUGFeRD1:
		inv = readCII(src, root, zugferd1)
	}
	inv.Format = format
	return inv, nil
}
