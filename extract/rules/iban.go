package rules

var (
	reIBANLabel = foldedRegexp(`\b(?:iban|i\.b\.a\.n)\b`)
	// Direct debit: the IBAN on such a line is the buyer's, to be debited.
	reDirectDebit = lexRE("direct debit", "debit your account", "debited from", "will be debited", "we will debit",
		"your account", "your iban", "mandate", "mandate reference", "sepa-lastschrift", "sepa lastschrift", "lastschrift",
		"lastschriftmandat", "lastschriftverfahren", "abbuchung", "wird abgebucht", "buchen wir", "von ihrem konto",
		"ihr konto", "ihre iban", "mandatsreferenz", "einzug", "eingezogen", "prélèvement", "prelevement", "votre compte",
		"votre iban", "référence unique de mandat", "rum", "domiciliation", "adeudo", "domiciliación", "domiciliacion",
		"su cuenta", "cargo en cuenta", "se cargará", "incasso", "automatische incasso", "machtiging", "uw rekening",
		"wordt afgeschreven", "addebito", "addebitato", "rid", "sdd", "vostro conto", "mandato", "debitor", "debtor",
		"zahlungspflichtiger", "customer iban", "iban du client", "iban cliente", "iban klant", "kunden-iban")
	// A hint that an IBAN is the new one to pay to, or an old one not to use.
	reNewBank = lexRE("new", "neue", "neuen", "neues", "nouvelle", "nouvelles", "nouveau", "nouvel", "nuevo", "nueva",
		"nuevos", "nuevas", "nieuwe", "nieuw", "nuovo", "nuova", "nuove", "from now on", "ab sofort", "künftig",
		"désormais", "a partir de ahora", "voortaan", "d'ora in poi", "only", "ausschließlich", "nur noch", "uniquement",
		"únicamente", "alleen", "esclusivamente", "please use", "bitte verwenden", "bitte nutzen")
	reOldBank = lexRE("old", "alte", "alten", "altes", "bisherige", "bisherigen", "previous", "former", "no longer",
		"nicht mehr", "ancienne", "ancien", "plus utiliser", "ne plus", "antigua", "antiguo", "ya no", "anterior",
		"oude", "vorige", "niet meer", "vecchio", "vecchia", "precedente", "non più", "closed", "geschlossen", "aufgelöst",
		"gekündigt", "invalid", "ungültig")
	// Bank words: a new/old hint counts only on a line about bank details
	// ("Old Street" in an address is no hint).
	reBankCtx = foldedRegexp(`\b(?:bank|iban|account|acct|konto|compte|rib\b|cuenta|datos\s+bancarios|rekening|bankgegevens|conto|coordinate\s+bancarie|banca|banco|banque|coordonnees\s+bancaires|bankgiro|plusgiro)`)
)

// ibanCand is one IBAN found in the text.
type ibanCand struct {
	iban  string
	line  int
	ev    string
	buyer bool // a direct-debit or customer-block IBAN
	hint  int  // +1 said to be new, -1 said to be old, 0 neither
}

// supplierIBAN returns the IBAN to pay to, in electronic form. Every IBAN
// the schema accepts (registry length, mod 97) is read; the buyer's (a
// direct-debit mandate, a customer block, the buyer's address) are dropped. One distinct IBAN
// left is the answer; of several, the only one the text calls new (or the
// only one it does not call old); otherwise null, since paying the wrong
// account is the costliest error an extractor can make.
func (d *document) supplierIBAN(regs [][]region, buyer *buyerBlock, ids *idChecker) *fact[string] {
	var cands []ibanCand
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		for _, r := range d.idRunsOf(i) {
			iban, end := r.longestValid(ids.iban)
			if iban == "" {
				continue
			}
			c := ibanCand{iban: iban, line: i, ev: evidence(ln, r.start, end)}
			if k := ln.cellAt(r.start); k >= 0 && regs[i][k] == regCustomer || buyer != nil && buyer.contains(d, i, r.start) {
				c.buyer = true // printed in the buyer's address block
			}
			for j := max(0, i-2); j <= i; j++ {
				if !d.lines[j].blank && d.lines[j].has(reDirectDebit) {
					c.buyer = true
				}
			}
			c.hint = d.bankHint(i)
			cands = append(cands, c)
		}
	}
	return pickIBAN(cands)
}

// bankHint looks at line i and the three lines above it for a statement
// that the bank details there are new (+1) or old (-1); the nearest wins.
func (d *document) bankHint(i int) int {
	for j := i; j >= 0 && j >= i-3; j-- {
		ln := d.lines[j]
		if ln.blank {
			continue
		}
		bank := reBankCtx().MatchString(ln.f.s)
		old := bank && ln.has(reOldBank)
		isNew := bank && ln.has(reNewBank) || ln.has(reBankChange)
		switch {
		case old && !isNew:
			return -1
		case isNew && !old:
			return 1
		case isNew && old:
			return 0 // "new instead of old" on one line: the line itself cannot tell
		}
	}
	return 0
}

func pickIBAN(cands []ibanCand) *fact[string] {
	type agg struct {
		first   ibanCand
		newest  int
		oldSeen bool
	}
	byIBAN := map[string]*agg{}
	var order []string
	for _, c := range cands {
		if c.buyer {
			continue
		}
		a, ok := byIBAN[c.iban]
		if !ok {
			a = &agg{first: c}
			byIBAN[c.iban] = a
			order = append(order, c.iban)
		}
		if c.hint > a.newest {
			a.newest = c.hint
		}
		if c.hint < 0 {
			a.oldSeen = true
		}
	}
	// A buyer IBAN seen anywhere is never the supplier's.
	for _, c := range cands {
		if c.buyer {
			delete(byIBAN, c.iban)
		}
	}
	var live []string
	for _, k := range order {
		if _, ok := byIBAN[k]; ok {
			live = append(live, k)
		}
	}
	pick := ""
	switch {
	case len(live) == 1:
		if !byIBAN[live[0]].oldSeen {
			pick = live[0]
		}
	case len(live) > 1:
		var isNew, notOld []string
		for _, k := range live {
			a := byIBAN[k]
			if a.newest > 0 && !a.oldSeen {
				isNew = append(isNew, k)
			}
			if !a.oldSeen {
				notOld = append(notOld, k)
			}
		}
		switch {
		case len(isNew) == 1:
			pick = isNew[0]
		case len(isNew) == 0 && len(notOld) == 1 && len(notOld) < len(live):
			pick = notOld[0]
		}
	}
	if pick == "" {
		return nil
	}
	c := byIBAN[pick].first
	return &fact[string]{V: c.iban, Ev: c.ev}
}
