package einvoice

// ciiNames are the element names that differ between the CII versions
// invx reads; the rest of the structure is shared.
type ciiNames struct {
	document    string // the header document (BT-1, BT-2, BT-3)
	transaction string
	agreement   string // header trade agreement (parties, order)
	settlement  string // header trade settlement (currency, totals, tax)
	summation   string // header monetary summation
	rate        string // a trade tax's rate
	// line parts
	lineAgreement  string
	lineDelivery   string
	lineSettlement string
	lineSummation  string
}

// ciiD16B is UN/CEFACT CII D16B, as ZUGFeRD 2.x, Factur-X and XRechnung
// use it.
var ciiD16B = ciiNames{
	document:       "ExchangedDocument",
	transaction:    "SupplyChainTradeTransaction",
	agreement:      "ApplicableHeaderTradeAgreement",
	settlement:     "ApplicableHeaderTradeSettlement",
	summation:      "SpecifiedTradeSettlementHeaderMonetarySummation",
	rate:           "RateApplicablePercent",
	lineAgreement:  "SpecifiedLineTradeAgreement",
	lineDelivery:   "SpecifiedLineTradeDelivery",
	lineSettlement: "SpecifiedLineTradeSettlement",
	lineSummation:  "SpecifiedTradeSettlementLineMonetarySummation",
}

// readCII reads a CII document of either version.
func readCII(src string, root *node, v ciiNames) *Invoice {
	f := func(n *node) Field { return field(src, n) }
	inv := &Invoice{}
	doc := root.child(v.document)
	inv.TypeCode = doc.child("TypeCode").value()
	inv.Number = f(doc.child("ID"))
	inv.IssueDate = f(doc.path("IssueDateTime", "DateTimeString"))

	tx := root.child(v.transaction)
	agr := tx.child(v.agreement)
	set := tx.child(v.settlement)

	seller := agr.child("SellerTradeParty")
	inv.SellerName = f(seller.child("Name"))
	for _, reg := range seller.children("SpecifiedTaxRegistration") {
		if id := reg.child("ID"); id.attr("schemeID") == "VA" {
			inv.SellerVAT = f(id)
			break
		}
	}
	inv.BuyerName = f(agr.path("BuyerTradeParty", "Name"))
	inv.PONumber = f(agr.path("BuyerOrderReferencedDocument", "IssuerAssignedID"))

	inv.Currency = f(set.child("InvoiceCurrencyCode"))
	var other []Field
	for _, pm := range set.children("SpecifiedTradeSettlementPaymentMeans") {
		acct := pm.child("PayeePartyCreditorFinancialAccount")
		if a := f(acct.child("IBANID")); a.Present() {
			inv.Accounts = append(inv.Accounts, a)
		}
		if a := f(acct.child("ProprietaryID")); a.Present() {
			other = append(other, a)
		}
	}
	inv.Accounts = append(inv.Accounts, other...)
	for _, pt := range set.children("SpecifiedTradePaymentTerms") {
		if d := f(pt.path("DueDateDateTime", "DateTimeString")); d.Present() {
			inv.DueDate = d
			break
		}
	}
	for _, tax := range set.children("ApplicableTradeTax") {
		inv.TaxLines = append(inv.TaxLines, TaxLine{
			Rate: f(tax.child(v.rate)),
			Base: f(tax.child("BasisAmount")),
			Tax:  f(tax.child("CalculatedAmount")),
		})
	}
	sum := set.child(v.summation)
	inv.Net = f(sum.child("TaxBasisTotalAmount"))
	inv.Gross = f(sum.child("GrandTotalAmount"))
	inv.Due = f(sum.child("DuePayableAmount"))
	// BT-110 is the TaxTotalAmount in the document currency; a second one
	// may state the tax in the accounting currency (BT-111).
	cur := inv.Currency.Value
	for _, t := range sum.children("TaxTotalAmount") {
		if id := t.attr("currencyID"); id == cur || id == "" {
			inv.Tax = f(t)
			break
		}
	}

	for _, li := range tx.children("IncludedSupplyChainTradeLineItem") {
		price := li.path(v.lineAgreement, "NetPriceProductTradePrice")
		inv.Lines = append(inv.Lines, Line{
			Name:     f(li.path("SpecifiedTradeProduct", "Name")),
			Quantity: f(li.path(v.lineDelivery, "BilledQuantity")),
			Price:    f(price.child("ChargeAmount")),
			BaseQty:  f(price.child("BasisQuantity")),
			Amount:   f(li.path(v.lineSettlement, v.lineSummation, "LineTotalAmount")),
			Rate:     f(li.path(v.lineSettlement, "ApplicableTradeTax", v.rate)),
		})
	}
	return inv
}
