package rules

// A document that prints no currency, or only "$" (the dollar of a dozen
// countries, and the old symbol of the Malaysian ringgit), states its
// currency through where its issuer is: a Malaysian "Sdn Bhd" with a GST
// number in Selangor charges ringgit. localeCurrency reads that from signs
// specific to one country; without them, or with the signs of two
// countries, there is no currency (null: review). A lone "$" is not USD.

// localeSigns finds the signs of the issuer's country in a raw line. Each
// group is one kind of sign (localeKinds); a country is decided by the
// combinations in localeCurrency.
var localeSigns = mustRE(`` +
	// 1 Malaysian (and Bruneian) company forms: Sendirian Berhad, Berhad.
	`((?i:\bsdn\.?[ \t]*bhd\b|\bsendirian[ \t]+berhad\b|\bberhad\b))` +
	// 2 a goods and services or sales and service tax.
	`|((?i:\b(?:gst|sst)\b))` +
	// 3 Malaysia, its states and federal territories.
	`|((?i:\bmalaysia\b|\b(?:johor|kedah|kelantan|melaka|malacca|negeri[ \t]+sembilan|pahang|perak|perlis|pulau[ \t]+pinang|penang|sabah|sarawak|selangor|terengganu|kuala[ \t]+lumpur|putrajaya|labuan)\b))` +
	// 4 Brunei, which writes "Sdn Bhd" too but pays in Brunei dollars.
	`|((?i:\bbrunei\b|\bbandar[ \t]+seri[ \t]+begawan\b))` +
	// 5 a Singapore private company; 6 Singapore.
	`|((?i:\bpte\.?[ \t]*ltd\b))|((?i:\bsingapore\b))` +
	// 7 an Australian Business Number; 8 an Australian proprietary company or Australia.
	`|(\bABN\b)|((?i:\bpty\.?[ \t]*ltd\b|\baustralia\b))` +
	// 9 India's GST number; 10 an Indian private company or India.
	`|((?i:\bgstin\b))|((?i:\bpvt\.?[ \t]*ltd\b|\bprivate[ \t]+limited\b|\bindia\b))` +
	// 11 a US state with its ZIP code ending the address or its column
	// ("Austin, TX 78701"; not "DE 37079 Göttingen", a German postcode with
	// its country prefix and town), the country's name, or an LLC.
	`|([\pL.],?[ \t]+` + usStates + `\.?[ \t]+\d{5}(?:-\d{4})?(?:[ \t]*$|[ \t]*[^\pL \t]|[ \t]{2})|\bUSA\b|\bU\.S\.A\.|(?i:\bunited[ \t]+states\b)|\bLLC\b)` +
	// 12 Canada, its own sales taxes, a province with its postal code.
	`|((?i:\bcanada\b)|\bHST\b|\bQST\b|\bTVQ\b|\b(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT)\.?,?[ \t]+[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ \t-]?\d[ABCEGHJ-NPRSTV-Z]\d\b)`)

// The sign kinds, as localeSigns numbers its groups.
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
			if kind, _ := ln.cellLabel(k); kind == regCustomer && !reNotBuyerLabel.MatchString(trimLeftMarks(ln.foldCell(c), " *->#")) {
				buyers = append(buyers, d.partyBlockAt(i, colOf(ln.raw, c.start)))
			}
		}
	matches:
		for _, m := range localeSigns().FindAllStringSubmatchIndex(ln.raw, -1) {
			for _, b := range buyers {
				if b.contains(d, i, m[0]) {
					continue matches
				}
			}
			for g := 1; g < nSigns; g++ {
				if m[2*g] >= 0 && seen[g] == "" {
					seen[g] = ln.raw[m[2*g]:m[2*g+1]]
				}
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
// its lines down to the first blank line after the name, at most
// maxBuyerBlock below ("Bill to: / Name / address / (blank) / From: ...").
func (d *document) partyBlockAt(i, col int) partyBlock {
	end := i
	for j := i + 1; j < len(d.lines) && j <= i+maxBuyerBlock; j++ {
		if d.lines[j].blank {
			if j > i+1 {
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
