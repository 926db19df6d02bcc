package rules

import (
	"reflect"
	"strings"
	"testing"
)

// scanHeaderRef is scanHeader as it was before it took the returned key
// from the name's memoised facts (add had just normalised the name), frozen.
func (s *supplierScan) scanHeaderRef() string {
	seen := 0
	for i, ln := range s.d.lines {
		if ln.blank || len(ln.cells) == 0 || seen == 0 && letterCount(ln.raw) == 0 {
			// Reason: a number alone above the letterhead ("3180303") is a
			// scan or till id, not the first line of the letterhead.
			continue
		}
		seen++
		if seen > 3 {
			break
		}
		if s.regs[i][0] != regNone {
			continue
		}
		t := cutName(ln.raw[ln.cells[0].start:ln.cells[0].end])
		if ft := foldString(t); reDocTitle.MatchString(ft) || reHeaderNoise.MatchString(ft) {
			continue
		}
		if looksLikeName(t) && letterCount(t) >= 3 {
			// Two letters alone ("OZ") are a logo, not a name.
			if s.d.brokenLogo(i, t) {
				// Reason: one word a line ("THE" / "ROTI" / "MAN"): a logo
				// read apart; no one line of it is the name, unless the
				// words end with a business word ("... BAKERY").
				if jn, ev, ok := s.d.joinLogo(i); ok {
					s.line = i
					s.addEv(jn, ev, 11)
					return normName(jn)
				}
				break
			}
			score := 7
			if seen == 1 {
				score = 11 // the very first line of an invoice
				if j, shop := s.d.shopBelowPerson(i, t); j >= 0 {
					// Reason: a person's name (the cashier, the scan's owner)
					// above a shop name: the shop issued the receipt.
					i, t = j, shop
				}
			}
			s.line = i
			if jn, ev, ok := s.d.joinBelow(i, t); ok {
				// "HOME MASTER HARDWARE &" / "ELECTRICAL": one name.
				s.addEv(jn, ev, score)
				return normName(jn)
			}
			s.add(t, score)
			return normName(t)
		}
		if seen == 1 && strings.ContainsAny(t, "0123456789@") {
			// The first line is an address or contact line: no name here.
			break
		}
	}
	return ""
}

// TestScanHeaderMatchesReference runs the supplier scan up to its header
// step twice on every text of the fixtures, development texts, synthetic
// invoices and the local dev set where present, then scanHeader on one and
// the frozen copy on the other: the same key and the same candidates.
func TestScanHeaderMatchesReference(t *testing.T) {
	t.Parallel()
	keys := 0
	for _, text := range selfCheckTexts(t) {
		d := newDocument(text)
		regs := d.regions()
		var scans [2]*supplierScan
		for k := range scans {
			s := &supplierScan{d: d, regs: regs, customers: map[string]int{}, cands: map[string]*supCand{}}
			s.scanLines()
			s.scanLetterhead()
			s.scanPartySections()
			s.scanNotIssuer()
			s.scanOwners()
			scans[k] = s
		}
		got, want := scans[0].scanHeader(), scans[1].scanHeaderRef()
		if got != want || !reflect.DeepEqual(scans[0].cands, scans[1].cands) || scans[0].line != scans[1].line {
			t.Fatalf("scanHeader on %.80q = %q, want %q (or the candidates differ)", text, got, want)
		}
		if got != "" {
			keys++
		}
		d.release()
	}
	t.Logf("%d header keys", keys)
	if keys < atLeast(100) {
		t.Fatalf("only %d header keys: the comparison proves little", keys)
	}
}
