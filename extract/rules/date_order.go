package rules

import (
	"strings"

	"github.com/invx/invx/schema"
)

// An ambiguous numeric date ("03/04/2025": both parts at most 12) is the 3rd
// of April in most of the world and the 4th of March in the United States.
// Its reading is a decision with a reason, made once per document:
//
//  1. another numeric date of the document that only one order can read
//     ("13/04/2025", "04/13/2025") decides for all of them (slashOrder);
//  2. else a sign of where the document comes from: a currency of a
//     day-first country, a language other than English, GST or a
//     day-first company form or place; or dollars beside a US address,
//     phone number or company form;
//  3. else no reading: the date stays null and goes to review.
//
// A lone "$" says nothing: Australia, Singapore, Canada and Hong Kong print
// it too.

// dayFirstCurrencies are currencies of countries that write the day before
// the month. Left out: USD (decided by a US cue, see dateOrder), CAD (both
// orders are common in Canada), PHP (month first), and the year-first
// countries' currencies (JPY, CNY, KRW, TWD), whose dates seldom come as
// d/m/y.
var dayFirstCurrencies = map[string]bool{
	"MYR": true, "SGD": true, "EUR": true, "GBP": true, "INR": true, "AUD": true, "NZD": true,
	"CHF": true, "HKD": true, "IDR": true, "THB": true, "VND": true, "BRL": true, "ARS": true,
	"CLP": true, "COP": true, "UYU": true, "MXN": true, "RUB": true, "UAH": true, "TRY": true,
	"ILS": true, "NGN": true, "ZAR": true, "AED": true, "SAR": true, "QAR": true, "KWD": true,
	"BHD": true, "OMR": true, "PLN": true, "CZK": true, "RON": true, "DKK": true, "NOK": true,
	"SEK": true, "PKR": true, "LKR": true, "BDT": true, "EGP": true,
}

// usStates are the postal codes of the US states and DC.
const usStates = schema.USStates

// reUSContact is a US address or phone number: a state and ZIP code
// ("Austin, TX 78701", "NY 10001-2345") or a North American number
// ("(512) 555-0142", "512-555-0142", "+1 512 555 0142"). Both start with
// digits 2-9 where the numbering plan says so, unlike Malaysian "016-...".
var reUSContact = mustRE(`\b` + usStates + `\.?[ \t]+\d{5}(?:-\d{4})?\b` +
	`|\([2-9]\d{2}\)[ \t]?[2-9]\d{2}[-. ]\d{4}\b|\b[2-9]\d{2}[-.][2-9]\d{2}[-.]\d{4}\b|\+1[ \t.-]?[2-9]\d{2}[ \t.-][2-9]\d{2}[ \t.-]\d{4}\b`)

// dateOrder returns how the document's ambiguous numeric dates read (mdy:
// month first) and whether that rests on a reason (sure). A document
// without an ambiguous date has nothing to decide.
func (d *document) dateOrder() (mdy, sure bool) {
	dmyN, mdyN, ambN := slashTally(d.ftext)
	switch {
	case dmyN > 0 && mdyN == 0:
		return false, true
	case mdyN > 0 && dmyN == 0:
		return true, true
	case ambN == 0:
		return false, false
	}
	return d.localeOrder()
}

// localeOrder is dateOrder's second step: where the document says it comes
// from.
func (d *document) localeOrder() (mdy, sure bool) {
	cur := d.currencyCue()
	if dayFirstCurrencies[cur] {
		return false, true
	}
	if lang := detectLang(d.ftext); lang != "" && lang != "en" {
		return false, true
	}
	if d.canadian() {
		return false, false
	}
	// Reason: GST and SST are taxes of day-first countries; a price in
	// dollars there does not make a date American.
	dayCue := gstTaxCodes(d.text) || reDayFirstCue.MatchString(d.ftext)
	usCue := reMonthFirstCue.MatchString(d.ftext) || hasIncForm(d.ftext) || usContactIn(d.text)
	switch {
	case dayCue && !usCue:
		return false, true
	case usCue && !dayCue && (cur == "USD" || cur == ""):
		// Reason: dollars (or no currency) beside a US address, phone or
		// company form: a US document writes the month first.
		return true, true
	}
	return false, false
}

// currencyCue is the document's currency as its symbols and codes state it,
// even one printed away from any amount ("RM" in a column head).
func (d *document) currencyCue() string {
	if c := d.dominantCurrency(); c != "" {
		return c
	}
	for _, ln := range d.lines {
		for _, h := range ln.curs {
			if c := d.cur.resolve(h.code); c != "" {
				return c
			}
		}
	}
	return ""
}

// hasIncForm reports whether folded text names a company "Inc." (a US
// form, and one a day-first "Ltd" on the same page contradicts), not the
// "(GST INC)" or "Inc. VAT" of tax-inclusive prices.
func hasIncForm(f string) bool {
	for from := 0; ; {
		k := strings.Index(f[from:], "inc")
		if k < 0 {
			return false
		}
		k += from
		from = k + 3
		if k > 0 && isREWordByte(f[k-1]) || from < len(f) && isREWordByte(f[from]) {
			continue
		}
		prev := strings.TrimRight(f[:k], " (")
		prev = prev[strings.LastIndexAny(prev, " (\n")+1:]
		next := strings.TrimLeft(f[from:], " .")
		if n := strings.IndexAny(next, " .)\n"); n >= 0 {
			next = next[:n]
		}
		if taxWords[prev] || taxWords[next] || next != "" && isDigitByte(next[0]) {
			continue
		}
		return true
	}
}

// taxWords stand beside "inc" when it means tax inclusive, folded as the
// text is ("total" is "totai": folding reads an OCR "l" as "i").
var taxWords = map[string]bool{"gst": true, "sst": true, "vat": true, "tax": true, "taxes": true, "svc": true, "service": true, "price": true, "prices": true, "totai": true}
