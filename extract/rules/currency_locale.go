package rules

import "strings"

// A document that prints no currency, or only "$" (the dollar of a dozen
// countries, and the old symbol of the Malaysian ringgit), states its
// currency through where its issuer is: a Malaysian "Sdn Bhd" with a GST
// number in Selangor charges ringgit. localeCurrency reads that from signs
// specific to one country; without them, or with the signs of two
// countries, there is no currency (null: review). A lone "$" is not USD.

// localeWords are the signs of the issuer's country that are words,
// matched on folded lines by kind (localeCurrency combines the kinds).
var localeWords = []struct {
	lex  *lexicon
	kind int
}{
	// Malaysian (and Bruneian) company forms: Sendirian Berhad, Berhad.
	{lexRE("sdn bhd", "sdn. bhd", "sdn.bhd", "sendirian berhad", "berhad"), signMYForm},
	// A goods and services or sales and service tax.
	{lexRE("gst", "sst"), signGST},
	// Malaysia, its states and federal territories.
	{lexRE("malaysia", "johor", "kedah", "kelantan", "melaka", "malacca", "negeri sembilan", "pahang", "perak", "perlis",
		"pulau pinang", "penang", "sabah", "sarawak", "selangor", "terengganu", "kuala lumpur", "putrajaya", "labuan"), signMYPlace},
	// Brunei, which writes "Sdn Bhd" too but pays in Brunei dollars.
	{lexRE("brunei", "bandar seri begawan"), signBrunei},
	{lexRE("pte ltd", "pte. ltd", "pte.ltd"), signSGForm},
	{lexRE("singapore"), signSGPlace},
	// An Australian Business Number; a proprietary company or Australia.
	{lexRE("abn"), signABN},
	{lexRE("pty ltd", "pty. ltd", "pty.ltd", "australia"), signAUForm},
	// India's GST number; a private company or India.
	{lexRE("gstin"), signGSTIN},
	{lexRE("pvt ltd", "pvt. ltd", "pvt.ltd", "private limited", "india"), signINForm},
	// The US by name, an LLC.
	{lexRE("usa", "u.s.a.", "united states", "llc"), signUS},
	// Canada, its own sales taxes.
	{lexRE("canada", "hst", "qst", "tvq"), signCA},
}

// reUSStateZIP is a US state with its ZIP code ending the address or its
// column ("Austin, TX 78701"; not "DE 37079 Göttingen", a German postcode
// with its country prefix and town).
var reUSStateZIP = mustRE(`[\pL.],?[ \t]+` + usStates + `\.?[ \t]+\d{5}(?:-\d{4})?(?:[ \t]*$|[ \t]*[^\pL \t]|[ \t]{2})`)

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
	signGSTIN
	signINForm
	signUS
	signCA
	nSigns
)

// dollarLocales are the currencies their countries write as "$" (the
// ringgit was the Malaysian dollar until 1993, and tills still print it).
var dollarLocales = map[string]bool{"USD": true, "CAD": true, "AUD": true, "SGD": true, "MYR": true}

// localeCurrency returns the currency of the country the issuer is in and
// the text of the sign that decided it, or "" when no single country's
// signs are printed. Signs in the buyer's block say where the buyer is, and
// do not count.
func (d *document) localeCurrency() (code, sign string) {
	var seen [nSigns]string
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
			if seen[w.kind] != "" {
				continue
			}
			if m := ln.index(w.lex); m != nil {
				if rs, re := ln.f.rawSpan(m[0], m[1]); !inBlocks(d, buyers, i, rs) {
					seen[w.kind] = ln.raw[rs:re]
				}
			}
		}
		// The patterns need digits: a line without them is passed over.
		if seen[signUS] == "" && digitRun(ln.raw, 5) {
			if m := reUSStateZIP().FindStringIndex(ln.raw); m != nil && !inBlocks(d, buyers, i, m[0]) {
				seen[signUS] = ln.raw[m[0]:m[1]]
			}
		}
		if seen[signCA] == "" && digitRun(ln.raw, 1) {
			if m := reCanadaPost().FindStringIndex(ln.raw); m != nil && !inBlocks(d, buyers, i, m[0]) {
				seen[signCA] = ln.raw[m[0]:m[1]]
			}
		}
	}
	has := func(g int) bool { return seen[g] != "" }
	type decision struct {
		code string
		ok   bool
		sign int
	}
	decisions := []decision{
		// Reason: "Sdn Bhd" is Malaysian or Bruneian; GST/SST or a Malaysian
		// place says Malaysia, Brunei by name says the other.
		{"MYR", !has(signBrunei) && (has(signMYForm) && (has(signGST) || has(signMYPlace)) || has(signGST) && has(signMYPlace)), firstSign(seen[:], signMYForm, signMYPlace)},
		// Reason: "Pte Ltd" beside Singapore or its GST is a Singapore company.
		{"SGD", has(signSGForm) && (has(signSGPlace) || has(signGST)), signSGForm},
		// Reason: an ABN is issued to Australian businesses only.
		{"AUD", has(signABN) && has(signAUForm), signABN},
		// Reason: a GSTIN is issued to Indian businesses only.
		{"INR", has(signGSTIN) && has(signINForm), signGSTIN},
		// Reason: a state and ZIP code, the country or an LLC are American.
		{"USD", has(signUS), signUS},
		// Reason: Canada by name, its HST/QST or a province's postal code.
		{"CAD", has(signCA), signCA},
	}
	for _, dc := range decisions {
		if !dc.ok {
			continue
		}
		if code != "" {
			return "", "" // two countries: the issuer's is not told apart from the buyer's
		}
		code, sign = dc.code, seen[dc.sign]
	}
	return code, sign
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

// firstSign returns the first of kinds that was seen.
func firstSign(seen []string, kinds ...int) int {
	for _, k := range kinds {
		if seen[k] != "" {
			return k
		}
	}
	return signGST
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
