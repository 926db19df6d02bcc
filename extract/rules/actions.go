package rules

import (
	"strings"
	"unicode/utf8"

	"github.com/invx/invx/schema"
)

// maxEvidence is the byte cap of an action item's evidence.
const maxEvidence = 500

var (
	rePOLabel        = lexRE(poPhrases...)
	reUnitBefore     = mustRE(`\d\s*$`)
	rePOBox          = anchoredRegexp(`^[\s.:]*(?:box|b\.?\s*o\.?\s*x)\b`)
	reDocType        = lexRE("document type", "type", "belegart", "dokumentart", "type de document", "tipo de documento", "tipo documento", "documenttype", "soort document")
	reCreditNoteWord = anchoredRegexp(`^[\s:]*(?:credit\s*note|credit\s*memo|gutschrift|avoir|nota\s*de\s*credito|creditnota|nota\s*di\s*credito|factura\s*rectificativa|rechnungskorrektur)\b`)
)

// gluedBefore reports whether b, just before a label, joins the label to
// the token it stands in: a reference's separator or a letter or digit.
func gluedBefore(b byte) bool {
	return b == '/' || b == '-' || b == '_' || b == '\\' || isAlnumByte[b]
}

// evidence returns a verbatim excerpt of line ln around the raw span
// [s, e): the trimmed line, or a window of at most maxEvidence bytes. It
// never includes a control character (the validator refuses them), so a
// line with one is cut to the control-free part around the match.
func evidence(ln *line, s, e int) string {
	raw := ln.raw
	s, e = max(0, min(s, len(raw))), max(0, min(e, len(raw)))
	lo, hi := 0, len(raw)
	for i, r := range raw {
		if !isControl(r) {
			continue
		}
		switch {
		case i < s:
			lo = i + utf8.RuneLen(r)
		case i < hi:
			hi = i
		}
	}
	if hi < lo {
		return ""
	}
	e = min(e, hi)
	lo, hi = trimSpan(raw, lo, hi)
	t := raw[lo:hi]
	if len(t) <= maxEvidence {
		return t
	}
	s, e = max(0, s-lo), max(0, min(e-lo, len(t)))
	if e-s > maxEvidence {
		e = s + maxEvidence
	}
	// Grow the window around the match, then fix rune boundaries.
	s -= (maxEvidence - (e - s)) / 2
	if s < 0 {
		s = 0
	}
	e = s + maxEvidence
	if e > len(t) {
		e = len(t)
		s = max(0, e-maxEvidence)
	}
	for s < e && !utf8.RuneStart(t[s]) {
		s++
	}
	for e > s && e < len(t) && !utf8.RuneStart(t[e]) {
		e--
	}
	return strings.TrimSpace(t[s:e])
}

// isControl matches the validator: control characters other than "\n" and
// "\t" may not appear in displayed text.
func isControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	}
	return false
}

// hasControl reports whether s holds a character isControl refuses.
func hasControl(s string) bool {
	return strings.IndexFunc(s, isControl) >= 0
}

// lineHasMoney reports whether a line prints an amount with decimals or a
// currency.
func lineHasMoney(ln *line) bool {
	for _, t := range ln.nums {
		if t.percent {
			continue
		}
		if looksDecimal(t.text(ln.raw)) {
			return true
		}
		if _, ok := curNextTo(ln, t); ok {
			return true
		}
	}
	return false
}

// creditLine returns the line that makes the document a credit note, or -1.
func (d *document) creditLine() int {
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		for _, c := range ln.cells {
			cf := ln.foldCell(c)
			if len(cf) > 60 {
				continue
			}
			m := reCreditTitle.FindStringIndex(cf)
			if m == nil {
				continue
			}
			if lineHasMoney(ln) {
				continue // "Gutschrift Anzahlung -500,00": a deduction line
			}
			word := cf[m[0]:m[1]]
			if strings.HasSuffix(word, "avoir") && strings.TrimSpace(word) == "avoir" {
				// French "avoir" is also a verb: only a title or a numbered label.
				rest := strings.TrimSpace(cf[m[1]:])
				if rest != "" && !strings.HasPrefix(rest, "n") && !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "#") {
					continue
				}
			}
			return i
		}
		if m := ln.index(reDocType); m != nil && reCreditNoteWord.MatchString(ln.f.s[m[1]:]) {
			return i
		}
		// A credit-note number label that opens a column ("Credit note no.:
		// CN-7"), not one cited in a sentence or a deduction line.
		for _, m := range ln.labels(reCreditNo) {
			rs, _ := ln.f.rawSpan(m[0], m[1])
			if k := ln.cellAt(rs); k >= 0 && ln.cells[k].start == rs {
				return i
			}
		}
	}
	return -1
}

// actionItems lists at most one item per kind, in a fixed kind order.
func (d *document) actionItems(credit int) []schema.ActionItem {
	var items []schema.ActionItem
	add := func(kind, ev string) {
		ev = strings.TrimSpace(ev)
		if ev == "" || !strings.Contains(d.text, ev) {
			return
		}
		items = append(items, schema.ActionItem{Kind: kind, Evidence: ev})
	}
	if ev, ok := d.poEvidence(); ok {
		add(schema.KindVerifyPurchaseOrder, ev)
	}
taxLines:
	for _, ln := range d.lines {
		if ln.blank {
			continue
		}
		for _, m := range ln.all(reTaxRemark) {
			if reTaxNo.MatchString(ln.f.s[m[1]:]) {
				continue
			}
			s, e := ln.f.rawSpan(m[0], m[1])
			add(schema.KindReviewTax, evidence(ln, s, e))
			break taxLines
		}
	}
	contact := ""
	for _, ln := range d.lines {
		if ln.blank {
			continue
		}
		if m := ln.index(reBankChange); m != nil {
			s, e := ln.f.rawSpan(m[0], m[1])
			contact = evidence(ln, s, e)
			break
		}
	}
	if contact == "" {
		for _, ln := range d.lines {
			if ln.blank {
				continue
			}
			m := ln.index(reDispute)
			if m == nil || ln.has(reDisputeBoilerplate) {
				continue
			}
			s, e := ln.f.rawSpan(m[0], m[1])
			contact = evidence(ln, s, e)
			break
		}
	}
	if contact == "" && credit >= 0 {
		ln := d.lines[credit]
		contact = evidence(ln, 0, len(ln.raw))
	}
	if contact != "" {
		add(schema.KindContactSupplier, contact)
	}
	for k := range items {
		items[k].ID = "a" + itoa(k+1)
	}
	return items
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// poEvidence finds a purchase-order reference with a value.
func (d *document) poEvidence() (string, bool) {
	h, found := d.findPO(nil)
	if !found {
		return "", false
	}
	return h.ev, h.ok
}

// poHit is the first purchase-order reference of a document: its value,
// the action item's evidence and where label and value were read.
type poHit struct {
	value string
	ev    string
	ok    bool
	ref   refSpan
}

// findPO finds the first purchase-order label with a value; skip, when not
// nil, rejects a label match (folded span m of line ln) before its value is
// read.
func (d *document) findPO(skip func(ln *line, m [2]int) bool) (poHit, bool) {
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		for _, m := range ln.labels(rePOLabel) {
			if rePOBox.MatchString(ln.f.s[m[1]:]) {
				continue
			}
			if reOwnOrder().MatchString(ln.f.s[:m[0]]) {
				continue
			}
			if bare := strings.TrimSpace(ln.f.s[m[0]:m[1]]); bare == "po" || bare == "p o" || bare == "p.o." || bare == "p.o" {
				// "72 po" is inches; "PO" must label something.
				if reUnitBefore().MatchString(ln.f.s[:m[0]]) {
					continue
				}
			}
			if skip != nil && skip(ln, m) {
				continue
			}
			ls, le := ln.f.rawSpan(m[0], m[1])
			if ls > 0 && gluedBefore(ln.raw[ls-1]) {
				// Reason: "GSL/PO/7781" is a reference with "PO" in it, not a
				// label of "/7781".
				continue
			}
			if le+1 < len(ln.raw) && (ln.raw[le] == '-' || ln.raw[le] == '/') && isDigitByte(ln.raw[le+1]) {
				// Reason: "Customer Ref: PO-55821" is the order's reference
				// as printed, its "PO" included, not "55821".
				end := le
				for end < len(ln.raw) && ln.raw[end] != ' ' && ln.raw[end] != '\t' {
					end++
				}
				if v, _, ve, ok := readReference(ln, ls, end, d.mdy); ok && len(v) > le-ls+1 {
					return poHit{value: v, ref: refSpan{i, ls, i, ve}, ev: evidence(ln, ls, ve), ok: true}, true
				}
			}
			for _, sp := range d.valueSpans(i, ls, le) {
				vl := d.lines[sp.line]
				if v, _, ve, ok := readReference(vl, sp.start, sp.end, d.mdy); ok && len(v) >= 3 {
					h := poHit{value: v, ref: refSpan{i, ls, sp.line, ve}}
					if sp.line == i {
						h.ev, h.ok = evidence(ln, ls, ve), true
						return h, true
					}
					// Label and value on two lines: quote both, verbatim.
					t, off := trimmedLine(ln.raw)
					from := ln.off + off
					if sp.line == i+1 || sp.line == i+2 {
						to := vl.off + ve
						if to > from && to-from <= maxEvidence && !strings.Contains(d.text[from:to], "\n\n\n") && !hasControl(d.text[from:to]) {
							h.ev, h.ok = d.text[from:to], true
							return h, true
						}
					}
					h.ev, h.ok = evidence(ln, ls, le), t != ""
					return h, true
				}
			}
		}
	}
	return poHit{}, false
}
