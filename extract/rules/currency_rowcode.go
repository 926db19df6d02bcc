package rules

import "strings"

// taxRowCodes lists the word codes ("SVC", the ISO code of the Salvadoran
// colón) that open a row of a tax summary table ("SVC SERVICE CHARGE 10
// 150.00 15.00"): there the document uses the three capitals as a tax code,
// so the same capitals after an item's amount ("150.00 SVC") are that code
// too, not a currency.
func (d *document) taxRowCodes() map[string]bool {
	var out map[string]bool
	for i := range d.taxSummaryLines() {
		f := strings.Fields(d.lines[i].raw)
		if len(f) < 2 || len(f[0]) != 3 || !wordCodes[f[0]] || !isASCIILetter(f[1][0]) {
			continue
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[f[0]] = true
	}
	return out
}
