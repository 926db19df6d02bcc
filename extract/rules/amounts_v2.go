package rules

// readAmountsV2 reads the currency, the gross total, net, tax, amount due,
// the tax lines and the line items.
func (d *document) readAmountsV2() amountsV2 {
	return amountsV2{}
}
