package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	reBareNo   = anchoredRegexp(`^\s*(?:(?:no|nr|n|number|nummer|numero|num|nro)\b\.?(?:\s*/\s*(?:no|nr|n|number|nummer|numero)\b\.?)?\s*[:#]|nr\.)`)
	reInvNo    = lexRE(invNoPhrases...)
	reCreditNo = lexRE(creditNoPhrases...)
	reDocNo    = lexRE(docNoPhrases...)
)

// subLabelWords may stand between a label and its value ("Invoice Number:
// No. 123", "Facture n° 7").
var subLabelWords = map[string]bool{
	"no": true, "nr": true, "n": true, "number": true, "nummer": true, "numero": true, "num": true,
	"nro": true, "o": true, "id": true, "ref": true, "#": true, "nb": true,
}

func isValueRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '/' || r == '.' || r == '_')
}

// readReference reads an identifier at the start of raw[s:e] (after
// separators and sub-labels): letters, digits and - / . _, with at least one
// digit, not a date, not an amount with a currency. It returns the value
// and its raw span.
func readReference(ln *line, s, e int, mdy bool) (string, int, int, bool) {
	raw := ln.raw
	i := s
	for round := 0; round < 3; round++ {
		for i < e {
			r, w := utf8.DecodeRuneInString(raw[i:])
			if isSpaceRune(r) || strings.ContainsRune(":#=.-–—|*°º()[]", r) {
				i += w
				continue
			}
			break
		}
		// A sub-label word?
		j := i
		degree := false
		for j < e {
			r, w := utf8.DecodeRuneInString(raw[j:])
			if !unicode.IsLetter(r) && r != '°' && r != 'º' {
				break
			}
			j += w
			if r == '°' || r == 'º' {
				degree = true // "N°FA-7": the sign ends the sub-label
				break
			}
		}
		word := foldString(raw[i:j])
		if j > i && (subLabelWords[strings.TrimRight(word, "o")] || subLabelWords[word]) && j < e {
			next, _ := utf8.DecodeRuneInString(raw[j:])
			if degree || next == '.' || next == ':' || next == ' ' || next == '#' || next == '\u00a0' {
				i = j
				continue
			}
		}
		break
	}
	j := i
	for j < e {
		r, w := utf8.DecodeRuneInString(raw[j:])
		if !isValueRune(r) {
			break
		}
		j += w
	}
	// Trailing punctuation is not part of the value.
	for j > i && strings.ContainsRune(".-/_", rune(raw[j-1])) {
		j--
	}
	if j <= i || j-i > 40 {
		return "", 0, 0, false
	}
	if k := spacedReference(raw, i, j, e); k > j {
		j = k // "A 2026 0042" printed with single spaces, alone in its column
	}
	v := raw[i:j]
	if !strings.ContainsAny(v, "0123456789") {
		return "", 0, 0, false
	}
	// Glued to more letters (e.g. "12abc€")? Then not an identifier.
	if j < e {
		r, _ := utf8.DecodeRuneInString(raw[j:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return "", 0, 0, false
		}
	}
	fv := foldString(v)
	for _, dh := range findDates(fv, mdy) {
		if dh.start == 0 && dh.end == len(fv) {
			return "", 0, 0, false
		}
	}
	// An amount ("1.234,56 EUR") is not an identifier.
	for _, t := range ln.nums {
		if t.numStart == i && t.numEnd == j && looksDecimal(v) {
			return "", 0, 0, false
		}
	}
	for _, h := range ln.curs {
		if !h.weak && (h.end <= i && strings.TrimSpace(raw[h.end:i]) == "" || h.start >= j && strings.TrimSpace(raw[j:h.start]) == "") {
			return "", 0, 0, false
		}
	}
	return v, i, j, true
}

// spacedReference extends the identifier raw[i:j] over up to two more
// single-space-separated parts made of capitals and digits ("A 1234",
// "2026 0042") when the run fills the rest of its column. It returns the new
// end, or j.
func spacedReference(raw string, i, j, e int) int {
	isPart := func(p string) bool {
		if p == "" || len(p) > 20 {
			return false
		}
		for _, r := range p {
			if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '/' || r == '.') {
				return false
			}
		}
		return true
	}
	first := raw[i:j]
	if !isPart(first) || !strings.ContainsAny(first, "0123456789") && len(first) > 3 {
		return j
	}
	k := j
	for range 2 {
		if k+1 >= e || raw[k] != ' ' || raw[k+1] == ' ' {
			break
		}
		m := k + 1
		for m < e && raw[m] != ' ' && raw[m] != '\t' {
			m++
		}
		p := strings.TrimRight(raw[k+1:m], ".")
		if !isPart(p) || !strings.ContainsAny(p, "0123456789") || len(findDates(foldString(p), false)) > 0 || looksDecimal(p) {
			break
		}
		k = k + 1 + len(p)
	}
	if k == j {
		return j
	}
	// The run must end its column: end of line, a tab, "|" or a wide gap.
	rest := raw[k:e]
	if strings.TrimSpace(rest) == "" || strings.HasPrefix(rest, "  ") || strings.HasPrefix(rest, "\t") || strings.HasPrefix(strings.TrimLeft(rest, " "), "|") {
		return k
	}
	return j
}

// numCand is a candidate invoice number.
type numCand struct {
	score int
	line  int
	value string
	ev    refSpan
}

// refSpan is where a labelled reference was read: the label's raw start on
// its line and the value's raw end on its own line.
type refSpan struct {
	labelLine, labelStart int
	valueLine, valueEnd   int
}

// findInvoiceNumber returns the document's own number.
func (d *document) findInvoiceNumber(credit bool) *string {
	if f := d.invoiceNumberFact(credit); f != nil {
		return &f.V
	}
	return nil
}

// invoiceNumberFact is findInvoiceNumber with the label and value it was
// read from as evidence.
func (d *document) invoiceNumberFact(credit bool) *fact[string] {
	var cands []numCand
	try := func(i, fs, fe, score int, sameLine bool) {
		ln := d.lines[i]
		ls, le := ln.f.rawSpan(fs, fe)
		if reRefContext.MatchString(ln.f.s[:fs]) {
			score -= 15
		}
		var spans []span
		if sameLine {
			// valueSpans' first place only: its search below the label
			// (a fold and an allocation per title cell) went unread.
			spans = []span{sameLineSpan(ln, i, le)}
		} else {
			spans = d.valueSpans(i, ls, le)
		}
		for k, sp := range spans {
			vl := d.lines[sp.line]
			if v, _, ve, ok := readReference(vl, sp.start, sp.end, d.mdy); ok {
				if k > 0 {
					score--
				}
				cands = append(cands, numCand{score, i, v, refSpan{i, ls, sp.line, ve}})
				return
			}
		}
	}
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		creditScore, invScore := 20, 22
		if credit {
			creditScore, invScore = 24, 18
		}
		for _, m := range ln.labels(reCreditNo) {
			try(i, m[0], m[1], creditScore, false)
		}
		for _, m := range ln.labels(reInvNo) {
			score := invScore
			if ln.insideValue(m[0]) {
				// "Zahlungsreferenz:  Kundennr.: 88 Rechnungsnummer: 6069":
				// quoted in another reference's text, it may name another
				// document than this one.
				score -= 5
			}
			try(i, m[0], m[1], score, false)
		}
		for _, m := range ln.labels(reDocNo) {
			try(i, m[0], m[1], 8, false)
		}
		if t, ok := parseTitleRef(ln.f.s); ok {
			// A headline "Handelsrechnung (380) Nr. 4711 vom 15.11.2024"
			// names the document's own number: dated, it outranks a
			// "Rechnungsnummer" quoted inside another reference.
			ls, le := ln.f.rawSpan(t.labelStart, t.labelEnd)
			if _, _, ve, ok := readReference(ln, le, len(ln.raw), d.mdy); ok && ls < le {
				t.titleRefDate(ln, ln.f.foldPos(ve))
				switch {
				case t.dated:
					try(i, t.labelStart, t.labelEnd, 21, true)
				case !t.trailing:
					try(i, t.labelStart, t.labelEnd, 12, true)
				}
			}
		}
		for _, c := range ln.cells {
			cf := ln.foldCell(c)
			if m := reDocTitle.FindStringIndex(cf); m != nil {
				fs := ln.f.foldPos(c.start)
				try(i, fs+m[0], fs+m[1], 10, true)
				if sub := reTitleSubLabel.FindStringIndex(ln.f.s[fs+m[1]:]); sub != nil {
					try(i, fs+m[1]+sub[0], fs+m[1]+sub[1], 12, true)
				}
			}
		}
	}
	// A bare "No.:" right under the document title ("FACTURE / FACTUUR",
	// "N° / Nr: 2026/0099"). Reason: "Rechnung" over "Nr. 2026-0456" is
	// the same; a bare "No." with no colon is not ("No. 12, Jalan ..." is
	// an address), a German "Nr." opening a line is.
	title := -10
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		if reDocTitle.MatchString(ln.f.s) {
			title = i
			continue
		}
		if i-title <= 4 {
			if m := reBareNo.FindStringIndex(ln.f.s); m != nil {
				try(i, m[0], m[1], 9, false)
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	best := 0
	for k, c := range cands {
		if c.score > cands[best].score {
			best = k
		}
	}
	if cands[best].score <= 0 {
		return nil
	}
	c := cands[best]
	return &fact[string]{V: c.value, Ev: d.refEvidence(c.ev)}
}

// sameLineSpan is the first place valueSpans offers for a label ending at
// raw position le of line i: the rest of its line.
func sameLineSpan(ln *line, i, le int) span { return span{i, le, len(ln.raw)} }

// refEvidence quotes a label and its value verbatim: the excerpt of their
// line when both share one, else the text from the label to the value when
// the value sits at most two lines below, else the value's line.
func (d *document) refEvidence(r refSpan) string {
	ln := d.lines[r.labelLine]
	if r.valueLine == r.labelLine {
		return evidence(ln, r.labelStart, r.valueEnd)
	}
	vl := d.lines[r.valueLine]
	if r.valueLine > r.labelLine && r.valueLine-r.labelLine <= 2 {
		from := ln.off + r.labelStart
		to := vl.off + r.valueEnd
		if to > from && to-from <= maxEvidence && !hasControl(d.text[from:to]) {
			return d.text[from:to]
		}
	}
	return evidence(vl, 0, r.valueEnd)
}
