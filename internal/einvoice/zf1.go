package einvoice

// zugferd1 is ZUGFeRD 1.0's CII (namespace
// urn:ferd:CrossIndustryDocument:invoice:1p0): the D16B structure under
// older element names, and the rate as ApplicablePercent.
var zugferd1 = ciiNames{
	document:       "HeaderExchangedDocument",
	transaction:    "SpecifiedSupplyChainTradeTransaction",
	agreement:      "ApplicableSupplyChainTradeAgreement",
	settlement:     "ApplicableSupplyChainTradeSettlement",
	summation:      "SpecifiedTradeSettlementMonetarySummation",
	rate:           "ApplicablePercent",
	lineAgreement:  "SpecifiedSupplyChainTradeAgreement",
	lineDelivery:   "SpecifiedSupplyChainTradeDelivery",
	lineSettlement: "SpecifiedSupplyChainTradeSettlement",
	lineSummation:  "SpecifiedTradeSettlementMonetarySummation",
}
