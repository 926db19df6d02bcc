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
		rs, misread := 0, false
		if m := ln.index(reOwnerMark); m != nil {
			rs, _ = ln.f.rawSpan(m[1], m[1])
		} else if rs = misreadOwnerMark(ln.raw); rs > 0 {
			misread = true
		} else {
			continue
		}
		at, from := i, rs
		if rest := strings.Trim(ln.raw[rs:], " :-"); rest == "" || titleOnly(foldString(rest)) {
			// "OWNED BY :      TAX INVOICE": the owner is on the next line.
			if at = d.nextNonBlank(i, 1); at < 0 {
				continue
			}
			from = 0
		}
		al := d.lines[at]
		names := legalNamesIn(al.raw, from, len(al.raw), reLegalForm.FindAllStringIndex(al.raw, -1))
		if len(names) == 0 && !misread {
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

// misreadOwnerMark returns the raw offset after "BY" on a line that opens
// with "OWNED", "OWNER" or "OWN", or one of them with a letter misread, and
// "BY" before a company with its legal form ("DWNER BY CASTLE BLUE S/B"),
// else 0.
func misreadOwnerMark(raw string) int {
	t := strings.TrimLeft(raw, " ")
	sp := strings.IndexByte(t, ' ')
	if sp < 3 || !ownerWordMisread(t[:sp]) {
		return 0
	}
	rest := strings.TrimLeft(t[sp:], " ")
	if len(rest) < 3 || !strings.EqualFold(rest[:2], "by") || rest[2] != ' ' && rest[2] != ':' {
		return 0
	}
	end := len(raw) - len(rest) + 2
	if !hasLegalForm(raw[end:]) {
		return 0
	}
	return end
}

// ownerWordMisread reports whether the word w is "owned", "owner" or "own"
// in any case, or one of them with one letter misread. It compares bytes
// without allocating: scanOwners asks it of every line.
func ownerWordMisread(w string) bool {
	for _, o := range [...]string{"owned", "owner", "own"} {
		if len(w) != len(o) {
			continue
		}
		diff := 0
		for i := 0; i < len(w); i++ {
			c := w[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != o[i] {
				diff++
			}
		}
		if diff <= 1 {
			return true
		}
	}
	return false
}
