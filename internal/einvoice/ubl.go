package einvoice

// readUBL reads a UBL 2.1 Invoice or CreditNote. Elements are matched by
// local name below a root whose namespace Detect checked.
func readUBL(src string, root *node) *Invoice {
	f := func(n *node) Field { return field(src, n) }
	credit := root.local == "CreditNote"
	inv := &Invoice{}
	if credit {
		inv.TypeCode = root.child("CreditNoteTypeCode").value()
		if inv.TypeCode == "" {
			inv.TypeCode = "381"
		}
	} else {
		inv.TypeCode = root.child("InvoiceTypeCode").value()
	}
	inv.Number = f(root.child("ID"))
	inv.IssueDate = f(root.child("IssueDate"))
	// BT-9: the Invoice's DueDate; a CreditNote has none and states it as
	// PaymentMeans/PaymentDueDate, which an Invoice may use too.
	inv.DueDate = f(root.child("DueDate"))
	if !inv.DueDate.Present() {
		for _, pm := range root.children("PaymentMeans") {
			if d := f(pm.child("PaymentDueDate")); d.Present() {
				inv.DueDate = d
				break
			}
		}
	}
	inv.Currency = f(root.child("DocumentCurrencyCode"))
	seller := root.path("AccountingSupplierParty", "Party")
	inv.SellerName = partyName(f, seller)
	for _, pts := range seller.children("PartyTaxScheme") {
		if pts.path("TaxScheme", "ID").value() == "VAT" {
			inv.SellerVAT = f(pts.child("CompanyID"))
			break
		}
	}
	inv.BuyerName = partyName(f, root.path("AccountingCustomerParty", "Party"))
	inv.PONumber = f(root.path("OrderReference", "ID"))
	// UBL does not tell an IBAN from another account id (BT-84 is one
	// element); the provider keeps the first the schema accepts as IBAN.
	for _, pm := range root.children("PaymentMeans") {
		if a := f(pm.path("PayeeFinancialAccount", "ID")); a.Present() {
			inv.Accounts = append(inv.Accounts, a)
		}
	}
	total := root.child("LegalMonetaryTotal")
	inv.Net = f(total.child("TaxExclusiveAmount"))
	inv.Gross = f(total.child("TaxInclusiveAmount"))
	inv.Due = f(total.child("PayableAmount"))

	// BT-110 is the TaxTotal in the document currency; a second TaxTotal
	// may state the tax in the accounting currency (BT-111).
	cur := inv.Currency.Value
	var docTotal *node
	for _, tt := range root.children("TaxTotal") {
		amt := tt.child("TaxAmount")
		if amt == nil {
			continue
		}
		if id := amt.attr("currencyID"); id == cur || id == "" {
			docTotal = tt
			break
		}
	}
	if docTotal != nil {
		inv.Tax = f(docTotal.child("TaxAmount"))
		for _, st := range docTotal.children("TaxSubtotal") {
			inv.TaxLines = append(inv.TaxLines, TaxLine{
				Rate: f(st.path("TaxCategory", "Percent")),
				Base: f(st.child("TaxableAmount")),
				Tax:  f(st.child("TaxAmount")),
			})
		}
	}

	lineName, qtyName := "InvoiceLine", "InvoicedQuantity"
	if credit {
		lineName, qtyName = "CreditNoteLine", "CreditedQuantity"
	}
	for _, ln := range root.children(lineName) {
		item := ln.child("Item")
		name := f(item.child("Name"))
		if !name.Present() {
			name = f(item.child("Description"))
		}
		inv.Lines = append(inv.Lines, Line{
			Name:     name,
			Quantity: f(ln.child(qtyName)),
			Price:    f(ln.path("Price", "PriceAmount")),
			BaseQty:  f(ln.path("Price", "BaseQuantity")),
			Amount:   f(ln.child("LineExtensionAmount")),
			Rate:     f(item.path("ClassifiedTaxCategory", "Percent")),
		})
	}
	return inv
}

// partyName is BT-27 / BT-44: the legal registration name, else the
// trading name.
func partyName(f func(*node) Field, party *node) Field {
	if n := f(party.path("PartyLegalEntity", "RegistrationName")); n.Present() {
		return n
	}
	return f(party.path("PartyName", "Name"))
}
