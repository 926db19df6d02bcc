package rules

import "strings"

// taxRowCodes lists the word codes ("SVC", the ISO code of the Salvadoran
// colón) that open a row of a tax summary table ("SVC SERVICE CHARGE 10
// 150.00 15.00"): there the document uses the three capitals as a tax code,
// so the same capitals after an item's amount ("150.00 SVC") are that code
// too, not a currency.
func (d *document) taxRowCodes() map[string]bool {
	var out map[string]bool
	var summary map[int]bool
	for i, ln := range d.lines {
		code, ok := rowCode(ln.raw)
		if !ok {
			continue
		}
		if summary == nil {
			// Only a document with such a row pays for the table search.
			summary = d.taxSummaryLines()
		}
		if !summary[i] {
			continue
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[code] = true
	}
	return out
}

// rowCode returns the word code that opens raw when a word follows it
// ("SVC SERVICE CHARGE"), without allocating.
func rowCode(raw string) (string, bool) {
	t := strings.TrimLeft(raw, " \t")
	if len(t) < 5 || !isASCIILetter(t[0]) || !isASCIILetter(t[1]) || !isASCIILetter(t[2]) || t[3] != ' ' && t[3] != '\t' {
		return "", false
	}
	rest := strings.TrimLeft(t[3:], " \t")
	if rest == "" || !isASCIILetter(rest[0]) || !wordCodes[t[:3]] {
		return "", false
	}
	return t[:3], true
}
