package rules

import "strings"

// A receipt may name two parties that could be "the supplier": the trading
// name at the top ("OLD TOWN GRILL") and the company that owns it ("OWNED
// BY: GRILL HOLDINGS SDN BHD"). Which of the two a clerk records varies
// from shop to shop, so when they differ the extractor abstains.

// reOwnerMark opens a phrase naming the company behind a trading name.
var reOwnerMark = lexRE("owned by", "own by", "owner by", "owned and operated by", "operated by", "dimiliki oleh",
	"dimiliki", "a company owned by", "managed by")

// scanOwners records the names an owner phrase introduces, on the rest of
// its line or, when the phrase ends the line, on the next one, with the
// line they were read from.
func (s *supplierScan) scanOwners() {
	d := s.d
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		m := reOwnerMark.FindStringIndex(ln.f.s)
		if m == nil {
			continue
		}
		rs, _ := ln.f.rawSpan(m[1], m[1])
		at, from := i, rs
		if strings.Trim(ln.raw[rs:], " :-") == "" {
			if at = d.nextNonBlank(i, 1); at < 0 {
				continue
			}
			from = 0
		}
		al := d.lines[at]
		names := legalNamesIn(al.raw, from, len(al.raw), reLegalForm.FindAllStringIndex(al.raw, -1))
		if len(names) == 0 {
			if n := cutName(al.raw[from:]); looksLikeName(n) {
				names = []string{n}
			}
		}
		for _, n := range names {
			if s.owners == nil {
				s.owners = map[string]int{}
			}
			s.owners[normName(n)] = i
		}
	}
}

// ownerConflict reports whether best is, or competes with, an owner named
// below a different trading name: a candidate read above the owner phrase
// whose name is not the owner's own ("BANH MI CAFE" above "OWNED BY: BANH
// MI CAFE SDN BHD" is the same company).
func (s *supplierScan) ownerConflict(best *supCand) bool {
	if len(s.owners) == 0 || best == nil {
		return false
	}
	bk := normName(best.name)
	if _, isOwner := s.owners[bk]; isOwner && s.headerTradingName(bk) {
		return true
	}
	for ok, line := range s.owners {
		for key, c := range s.cands {
			if c.line >= line || s.customers[key] >= c.count || s.notIssuer[key] || strings.HasPrefix(ok, key) {
				continue
			}
			if bk == ok || bk == key {
				return true
			}
		}
	}
	return false
}

// headerTradingName reports whether one of the first lines of the document
// (past a document title) is a name other than the owner's (ownerKey): a
// trading name that a labelled block above may have hidden from the
// candidates ("TAX INVOICE" / "PIZZA PALACE" ... "OWNED BY" / "X SDN BHD").
func (s *supplierScan) headerTradingName(ownerKey string) bool {
	seen := 0
	for _, ln := range s.d.lines {
		if ln.blank {
			continue
		}
		if seen++; seen > 4 {
			break
		}
		t := strings.TrimSpace(ln.raw)
		if reDocTitle.MatchString(strings.TrimLeft(ln.f.s, " ")) || !headerNameLine(t) || letterCount(t) < 3 {
			continue
		}
		k := normName(t)
		if k != ownerKey && !strings.HasPrefix(ownerKey, k) {
			return true
		}
	}
	return false
}
