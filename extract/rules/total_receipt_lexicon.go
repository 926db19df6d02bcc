package rules

// Receipt labels of the amount payable (v1's findTotal). Till receipts print
// the total several times (before tax, the tax, after rounding) and beside
// it what the customer handed over; lexicon.go's invoice phrases do not
// tell them apart, so these lists add the receipt wording.
var (
	// receiptGrandPhrases name the amount payable after tax and rounding.
	receiptGrandPhrases = []string{
		"total rounded", "rounded total", "net total rounded", "total after rounding",
		"grand total rounded", "total sales inclusive", "total inclusive",
		"total amount payable", "total amt payable", "nett amount", "total payable",
		"due", // a till's "DUE 19.30" (dates and bare counts are never amounts)
		// Reason: "TOTAL INCLUDES GST 6%  9.00": the total with the tax it holds.
		"total includes gst", "total include gst", "total incl gst", "total incl. gst", "total inc gst",
		"total including gst", "total inclusive gst", "total includes tax", "total includes vat",
	}
	// receiptNegPhrases name amounts on a receipt that are never the
	// amount payable: the tax, the items, what was tendered and returned.
	receiptNegPhrases = []string{
		"total gst", "gst amount", "total sst", "sst amount", "total tax amount",
		"total excluding", "total sales excluding", "excluding gst", "excluded gst", "exclusive of gst",
		"total qty", "total quantity", "total item", "total items", "item(s)", "qty(s)", "no. of items",
		"cash", "cash tendered", "tendered", "cash received", "paid amount", "amount paid", "amount tendered",
		"change", "change due", "balance change", "customer change", "change/balance", "change / balance",
		"accepted total", "total accepted", "amount accepted", // a ticket machine's coins and notes taken
		"rounding", "rounding adj", "rounding adjustment", "round adj", "adj rounding",
		"total discount", "total savings", "you saved", "discount",
		// A stored-value card's balance before and after a top-up.
		"balance before", "balance after", "card balance", "previous card balance",
		// Reason: a loyalty balance counts points, not money, however it is printed.
		"points balance", "point balance", "balance points", "member points", "loyalty points", "reward points",
		// Reason: "GST @6% INCLUDED IN TOTAL 1.58" states the tax inside the total.
		"included in total", "incl in total", "inclusive in total", "included in the total",
	}
)
