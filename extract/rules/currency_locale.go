package rules

import (
	"strings"

	"github.com/invx/invx/schema"
)

// A document that prints no currency, or only "$" (the dollar of a dozen
// countries, and the old symbol of the Malaysian ringgit), states its
// currency through where its issuer is: a Malaysian "Sdn Bhd" with a GST
// number in Selangor charges ringgit. localeCurrency reads that from signs
// specific to one country; without them, or with the signs of two
// countries, there is no currency (null: review). A lone "$" is not USD.

// localeWords are the signs of the issuer's country that are words,
// matched on folded lines by kind (localeCurrency combines the kinds). The
// places are schema.PlaceNames, the table validation reads a place cited as
// a currency's evidence with: a place decides here only if it can be cited.
var localeWords = []struct {
	lex   *lexicon
	kind  int
	place bool
}{
	// Malaysian (and Bruneian) company forms: Sendirian Berhad, Berhad.
	{lexRE("sdn bhd", "sdn. bhd", "sdn.bhd", "sendirian berhad", "berhad"), signMYForm, false},
	// A goods and services or sales and service tax.
	{lexRE("gst", "sst"), signGST, false},
	// Malaysia, its states, federal territories and cities.
	{lexPlaces("MY"), signMYPlace, true},
	// Brunei, which writes "Sdn Bhd" too but pays in Brunei dollars.
	{lexPlaces("BN"), signBrunei, true},
	{lexRE("pte ltd", "pte. ltd", "pte.ltd"), signSGForm, false},
	{lexPlaces("SG"), signSGPlace, true},
	// An Australian Business Number; a proprietary company or Australia.
	{lexRE("abn"), signABN, false},
	{lexRE("pty ltd", "pty. ltd", "pty.ltd"), signAUForm, false},
	{lexPlaces("AU"), signAUPlace, true},
	// India's GST number; a private company or India.
	{lexRE("gstin"), signGSTIN, false},
	{lexRE("pvt ltd", "pvt. ltd", "pvt.ltd", "private limited"), signINForm, false},
	{lexPlaces("IN"), signINPlace, true},
	// The US by name, an LLC.
	{lexRE("llc"), signUS, false},
	{lexPlaces("US"), signUSPlace, true},
	// Canada, its own sales taxes.
	{lexRE("hst", "qst", "tvq"), signCA, false},
	{lexPlaces("CA"), signCAPlace, true},
	// Mexico's taxpayer register (RFC) and company forms; Mexico.
	{lexRE("rfc", "r.f.c."), signRFC, false},
	{lexRE("s.a. de c.v.", "sa de cv", "s. de r.l. de c.v.", "s de rl de cv", "s.a.p.i. de c.v.", "sapi de cv",
		"s.a.b. de c.v.", "sab de cv"), signMXForm, false},
	{lexPlaces("MX"), signMXPlace, true},
}

// lexPlaces is a lexicon of the places of country (schema.PlaceNames),
// listed on first use like every lexicon.
func lexPlaces(country string) *lexicon {
	return newLexicon(``, func() []string { return schema.PlaceNames(country) })
}

// usStateZIPPattern is a US state with its ZIP code ending the address or
// its column ("Austin, TX 78701"; not "DE 37079 Göttingen", a German
// postcode with its country prefix and town). usStateZIPAt finds it;
// validation takes it as evidence of USD (schema.USStateZIPPattern).
const usStateZIPPattern = schema.USStateZIPPattern

// The kinds of sign.
const (
	signMYForm = 1 + iota
	signGST
	signMYPlace
	signBrunei
	signSGForm
	signSGPlace
	signABN
	signAUForm
	signAUPlace
	signGSTIN
	signINForm
	signINPlace
	signUS
	signUSPlace
	signCA
	signCAPlace
	signRFC
	signMXForm
	signMXPlace
	nSigns
)

// placeSigns are the kinds of sign that are places, by the currency their
// one country pays in: the signs a currency's evidence can quote.
var placeSigns = map[string]int{
	"MYR": signMYPlace, "SGD": signSGPlace, "AUD": signAUPlace, "INR": signINPlace, "USD": signUSPlace, "CAD": signCAPlace,
	"MXN": signMXPlace,
}

// placeKinds are the kinds of sign that are places, in a fixed order:
// placeSigns' and Brunei's.
var placeKinds = []int{signMYPlace, signBrunei, signSGPlace, signAUPlace, signINPlace, signUSPlace, signCAPlace, signMXPlace}

// dollarLocales are the currencies their countries write as "$" (the
// ringgit was the Malaysian dollar until 1993, and tills still print it).
var dollarLocales = map[string]bool{"USD": true, "CAD": true, "AUD": true, "SGD": true, "MYR": true, "MXN": true}

// localeCurrency returns the currency of the country the issuer is in, or
// "" when no single country's signs are printed, and where the first sign
// of that country that is a place stands (at.line < 0: none). Signs in the
// buyer's block say where the buyer is, and do not count.
func (d *document) localeCurrency() (code string, at placeAt) {
	var seen [nSigns]bool
	var places [nSigns]placeAt
	zipAt := placeAt{line: -1} // the issuer's state and ZIP code
	var buyers []partyBlock
	for i, ln := range d.lines {
		if ln.blank || ln.injected {
			continue
		}
		for k, c := range ln.cells {
			kind, end := ln.cellLabel(k)
			if cf := ln.foldCell(c); kind == regCustomer && !reNotBuyerLabel.MatchString(trimLeftMarks(cf, " *->#")) {
				named := end < len(cf) && strings.Trim(cf[end:], " :.-") != ""
				buyers = append(buyers, d.partyBlockAt(i, colOf(ln.raw, c.start), named))
			}
		}
		for _, w := range localeWords {
			if seen[w.kind] {
				continue
			}
			if m := ln.index(w.lex); m != nil {
				rs, re := ln.f.rawSpan(m[0], m[1])
				if w.place && schema.StreetName(ln.raw[:rs], ln.raw[re:]) {
					continue // "Penang Road", "Jalan Ipoh": a street, not where the issuer is
				}
				if !inBlocks(d, buyers, i, rs) {
					seen[w.kind] = true
					places[w.kind] = placeAt{line: i, start: rs, end: re}
				}
			}
		}
		// The patterns need digits: a line without them is passed over.
		if !seen[signUS] && digitRun(ln.raw, 5) {
			if m := usStateZIPAt(ln.raw); m >= 0 && !inBlocks(d, buyers, i, m) {
				seen[signUS] = true
				zipAt = placeAt{line: i, start: m, end: m + 1}
			}
		}
		if !seen[signCA] && digitRun(ln.raw, 1) {
			if m := reCanadaPost().FindStringIndex(ln.raw); m != nil && !inBlocks(d, buyers, i, m[0]) {
				seen[signCA] = true
			}
		}
	}
	has := func(g int) bool { return seen[g] }
	decisions := []struct {
		code string
		ok   bool
	}{
		// Reason: "Sdn Bhd" is Malaysian or Bruneian; GST/SST or a Malaysian
		// place says Malaysia (Brunei levies neither), Brunei by name says
		// the other.
		{"MYR", !has(signBrunei) && (has(signMYForm) && (has(signGST) || has(signMYPlace)) || has(signGST) && has(signMYPlace))},
		// Reason: "Pte Ltd" beside Singapore or its GST is a Singapore company.
		{"SGD", has(signSGForm) && (has(signSGPlace) || has(signGST))},
		// Reason: an ABN is issued to Australian businesses only.
		{"AUD", has(signABN) && (has(signAUForm) || has(signAUPlace))},
		// Reason: a GSTIN is issued to Indian businesses only.
		{"INR", has(signGSTIN) && (has(signINForm) || has(signINPlace))},
		// Reason: a state and ZIP code, the country or an LLC are American.
		{"USD", has(signUS) || has(signUSPlace)},
		// Reason: Canada by name, its HST/QST or a province's postal code.
		{"CAD", has(signCA) || has(signCAPlace)},
		// Reason: a Mexican ticket prints its pesos as "$"; the RFC, an
		// "S.A. de C.V." or a Mexican state, two of them, say where it is.
		{"MXN", has(signRFC) && (has(signMXForm) || has(signMXPlace)) || has(signMXForm) && has(signMXPlace)},
	}
	at = placeAt{line: -1}
	for _, dc := range decisions {
		if !dc.ok {
			continue
		}
		if code != "" {
			return "", placeAt{line: -1} // two countries: the issuer's is not told apart from the buyer's
		}
		code = dc.code
		if k, ok := placeSigns[code]; ok && seen[k] {
			at = places[k]
		} else if code == "USD" && zipAt.line >= 0 {
			// Reason: validation takes a state and ZIP code as USD's
			// evidence where no place is named (a Walmart receipt prints
			// no "$").
			at = zipAt
		}
	}
	for _, k := range placeKinds {
		// Reason: the issuer's places beside another country's ("Johor
		// Bahru" and "Singapore") do not tell which one it is in.
		if code != "" && seen[k] && k != placeSigns[code] {
			return "", placeAt{line: -1}
		}
	}
	return code, at
}

// placeAt is where a place sign stands: its line and raw byte span.
type placeAt struct {
	line, start, end int
}

// localeEvidence returns an excerpt that places the issuer in the country
// whose currency is code, for a currency the document does not print: the
// line of the first place sign, or its cell when the line says more (the
// buyer's country in the next column). "" when the currency does not rest
// on the issuer's country, no place of it is printed ("Sdn Bhd" with GST
// alone), or validation would not accept the excerpt.
func (d *document) localeEvidence(code string) string {
	c, at := d.localeCurrency()
	if c != code || at.line < 0 {
		return ""
	}
	ln := d.lines[at.line]
	spans := [][2]int{{0, len(ln.raw)}}
	for _, cl := range ln.cells {
		if cl.start <= at.start && at.end <= cl.end {
			spans = append(spans, [2]int{cl.start, cl.end})
		}
	}
	for _, sp := range spans {
		// Reason: a place of exactly one country says its currency
		// (schema.PlaceCurrency); the excerpt must name no other's.
		if ev := cleanEvidence(ln.raw[sp[0]:sp[1]]); ev != "" && len(ev) <= maxEvidenceV2 && citable(ev) && schema.CurrencyIn(ev, code) {
			return ev
		}
	}
	return ""
}

// partyBlock is a party's block of lines, from its label (line) to its
// last line (end), in the label's column.
type partyBlock struct {
	line, end, col int
}

// partyBlockAt returns the block a party label at line i, column col opens:
// its lines down to the first blank line after the name (named: the name is
// on the label's line), at most maxBuyerBlock below ("Bill to: / Name /
// address / (blank) / From: ...").
func (d *document) partyBlockAt(i, col int, named bool) partyBlock {
	end := i
	for j := i + 1; j < len(d.lines) && j <= i+maxBuyerBlock; j++ {
		if d.lines[j].blank {
			if named || j > i+1 {
				break
			}
			continue
		}
		end = j
	}
	return partyBlock{line: i, end: end, col: col}
}

// contains reports whether raw offset start of line i lies in the block.
func (b partyBlock) contains(d *document, i, start int) bool {
	if i < b.line || i > b.end {
		return false
	}
	ln := d.lines[i]
	if len(ln.cells) <= 1 {
		return true
	}
	c := colOf(ln.raw, start)
	return c >= b.col-6 && c <= b.col+40
}

// inBlocks reports whether raw offset start of line i lies in one of bs.
func inBlocks(d *document, bs []partyBlock, i, start int) bool {
	for _, b := range bs {
		if b.contains(d, i, start) {
			return true
		}
	}
	return false
}

// digitRun reports whether s holds n ASCII digits in a row.
func digitRun(s string, n int) bool {
	k := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			if k++; k >= n {
				return true
			}
		} else {
			k = 0
		}
	}
	return false
}

// withLocale settles the currency of the payable. A currency the document
// prints stays; one resting only on "$", which resolved to USD for want of
// a code, becomes the issuer's country's when that country writes "$",
// else null; with no currency printed beside a total, the issuer's
// country's currency, if one country is told.
func (d *document) withLocale(total *int64, cur *string) *string {
	switch {
	case cur == nil:
		if total == nil {
			return nil // no amount: no currency (as without the decision)
		}
		if c, _ := d.localeCurrency(); c != "" {
			return &c
		}
		return nil
	case d.cur.dollarGuess && *cur == d.cur.dollar && !d.printsCode(*cur):
		// Reason: "$" alone is the dollar of a dozen countries (and the
		// ringgit's old sign): the issuer's country decides, else null.
		if c, _ := d.localeCurrency(); dollarLocales[c] {
			return &c
		}
		return nil
	}
	return cur
}

// printsCode reports whether the document names code itself ("USD",
// "US$"), not through a symbol several currencies share.
func (d *document) printsCode(code string) bool {
	for _, ln := range d.lines {
		if ln.injected {
			continue
		}
		for _, h := range ln.curs {
			if h.code == code {
				return true
			}
		}
	}
	return false
}
