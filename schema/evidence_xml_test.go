package schema

import "testing"

// TestXMLLeafEvidence: an excerpt that is exactly one XML element backs a
// fact by its decoded content, amounts read as xs:decimal exactly; printed
// text gains nothing from the rule.
func TestXMLLeafEvidence(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	num := func(n int64) *int64 { return &n }
	tests := []struct {
		name, fact, evidence string
		text                 *string
		amount               *int64
		want                 bool
	}{
		{"one decimal", "total_minor", `<cbc:PayableAmount currencyID="EUR">10686.2</cbc:PayableAmount>`, nil, num(1068620), true},
		{"one decimal, credit note sign", "total_minor", `<ram:GrandTotalAmount>10686.2</ram:GrandTotalAmount>`, nil, num(-1068620), true},
		{"four decimals, zeros", "net_minor", `<ram:LineTotalAmount>12.5000</ram:LineTotalAmount>`, nil, num(1250), true},
		{"wrong amount", "total_minor", `<cbc:PayableAmount>10686.2</cbc:PayableAmount>`, nil, num(106862), false},
		{"not representable", "total_minor", `<cbc:PayableAmount>12.345</cbc:PayableAmount>`, nil, num(1234), false},
		{"entity in a name", "supplier_name", `<cbc:RegistrationName>Müller &amp; Söhne</cbc:RegistrationName>`, str("Müller & Söhne"), nil, true},
		{"mismatched tags", "supplier_name", `<a>Müller &amp; Söhne</b>`, str("Müller & Söhne"), nil, false},
		{"child element", "total_minor", `<a><b>10686.2</b></a>`, nil, num(1068620), false},
		{"printed text is not XML", "total_minor", `Total 10686.2`, nil, num(1068620), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := xmlLeafHolds(tt.fact, tt.evidence, tt.text, tt.amount, 2); got != tt.want {
				t.Errorf("xmlLeafHolds(%s, %q) = %v, want %v", tt.fact, tt.evidence, got, tt.want)
			}
		})
	}
	// The rule for printed text is unchanged: one decimal is still not
	// an amount of a two-decimal currency.
	if amountIn("Total 10686.2", 1068620, 2) {
		t.Error("amountIn accepts 10686.2 for 10686.20 in printed text")
	}
}
