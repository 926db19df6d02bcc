package rules

// readAmountsV2 reads net, tax, amount due, the tax lines and the line items.
// currency is the document's currency as findTotal decided it ("" when
// unknown), used for the amount grammar's exponent.
func (d *document) readAmountsV2(currency string) amountsV2 {
	return amountsV2{}
}
