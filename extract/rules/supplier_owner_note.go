package rules

import "strings"

// An owner note printed after a complete letterhead ("SANYU BOOK SHOP" /
// address / "GST ID ..." / "TAX INVOICE" / "OWNED BY : SANYU SUPPLY SDN
// BHD") is a footnote to it: the name that heads the letterhead, with the
// address and tax id under it, is the one the receipt is issued in. The
// owner note right under the name (inside the letterhead) or in the
// footer after the items still competes with it (ownerConflict).

// settleOwnerNotes drops, as issuers, the owners whose phrase follows the
// header name's (headerKey) address or tax-id lines but comes before the
// first priced line: a note under a complete letterhead, not the footer.
func (s *supplierScan) settleOwnerNotes(headerKey string) {
	h, ok := s.cands[headerKey]
	if !ok || headerKey == "" || len(s.owners) == 0 {
		return
	}
	d := s.d
	for ok, at := range s.owners {
		if at <= h.line || ok == headerKey || strings.HasPrefix(ok, headerKey) ||
			!d.letterheadBelow(h.line, at) || d.pricedBetween(h.line, at) {
			continue
		}
		// Reason: an owner note after a complete letterhead is a footnote;
		// the letterhead's own name issued the receipt.
		if s.notIssuer == nil {
			s.notIssuer = map[string]bool{}
		}
		s.notIssuer[ok] = true
		delete(s.owners, ok)
	}
}

// letterheadBelow reports whether the lines after the name on line i, up
// to end, hold its address or a registration or tax-id line.
func (d *document) letterheadBelow(i, end int) bool {
	for j := i + 1; j < end; j++ {
		if d.lines[j].blank {
			continue
		}
		if isAddressLine(d.lines[j].raw) || d.regCue(j) {
			return true
		}
	}
	return false
}

// pricedBetween reports whether a line in [from, to) carries an amount
// with decimals: the items (or totals) have begun.
func (d *document) pricedBetween(from, to int) bool {
	for j := from; j < to && j < len(d.lines); j++ {
		ln := d.lines[j]
		for _, a := range ln.nums {
			if a.code || a.percent {
				continue
			}
			if t := a.text(ln.raw); len(t) > 3 && (t[len(t)-3] == '.' || t[len(t)-3] == ',') {
				return true
			}
		}
	}
	return false
}
