package rules

import "strings"

// titleNouns end the first word of a headline that names the document,
// compounds included: German and Dutch glue a qualifier to the noun
// ("Handelsrechnung", "Schlussrechnung", "Teilrechnung", "Abschlagsrechnung",
// "Eindfactuur"), so reDocTitle's whole-word match misses them. Folded forms.
var titleNouns = []string{"rechnung", "gutschrift", "factuur", "faktura", "invoice", "facture", "factura", "fattura"}

// minTitleNoun is the length of the shortest of titleNouns.
const minTitleNoun = len("invoice")

// titleNounEnd reports whether c is the last byte of one of titleNouns:
// parseTitleRef runs on every line, and this test turns most first words
// away before eight suffix compares.
func titleNounEnd(c byte) bool { return c == 'g' || c == 't' || c == 'r' || c == 'a' || c == 'e' }

// titleNoLabels are the number labels a headline uses ("Nr.", "No.", "N°").
var titleNoLabels = map[string]bool{"nr": true, "no": true, "n°": true, "nº": true, "nummer": true, "number": true, "numero": true, "#": true, "n": true}

// titleDatePreps introduce the document's date right after its number in a
// headline: "Rechnung Nr. 7 vom 03.06.2025", "Invoice No. 7 dated 3 June 2025".
//
// The keys are folded as the text they are looked up in: folding reads an
// OCR "l" as "i", so "del" is "dei".
var titleDatePreps = map[string]bool{"vom": true, "dated": true, "du": true, "dei": true, "van": true, "d.d.": true, "of": true, "from": true}

// titleRef is a headline "<noun> [qualifiers] [(code)] Nr. <ref> [vom <date>]"
// in folded coordinates of its line.
type titleRef struct {
	labelStart, labelEnd int  // the number label ("nr.")
	dated                bool // "vom <date>" follows the reference directly
	date                 dateHit
	trailing             bool // other words stand between the reference and "vom"
}

// parseTitleRef reads a headline at the start of folded line f: the first
// word ends with a document noun, at most three qualifier words or a
// parenthesised type code follow ("Teilrechnung Bau (875) Nr."), then a
// number label. Only the first ~60 bytes are looked at, so the cost per line
// is a few byte compares.
func parseTitleRef(f string) (titleRef, bool) {
	i := 0
	for i < len(f) && f[i] == ' ' {
		i++
	}
	w0 := i
	// The noun ends the first or the second word ("Handelsrechnung",
	// "Commercial invoice (380) No. 4711 of ...").
	noun := false
	for w := 0; w < 2 && !noun; w++ {
		if w == 1 {
			if i >= len(f) || f[i] != ' ' {
				break
			}
			i++
		}
		s := i
		for i < len(f) && (f[i] >= 'a' && f[i] <= 'z' || f[i] == '-') {
			i++
		}
		if i-s < minTitleNoun || !titleNounEnd(f[i-1]) {
			continue // most first words: no noun can end them
		}
		for _, n := range titleNouns {
			if strings.HasSuffix(f[s:i], n) {
				noun = true
				break
			}
		}
	}
	if !noun {
		return titleRef{}, false
	}
	for words := 0; words <= 4; words++ {
		for i < len(f) && f[i] == ' ' {
			i++
		}
		s := i
		for i < len(f) && f[i] != ' ' {
			i++
		}
		tok := f[s:i]
		if tok == "" || i-w0 > 60 {
			return titleRef{}, false
		}
		bare := strings.TrimRight(tok, ".:")
		if titleNoLabels[bare] {
			return titleRef{labelStart: s, labelEnd: s + len(bare) + min(1, len(tok)-len(bare))}, true
		}
		if tok[0] == '(' && tok[len(tok)-1] == ')' {
			continue // a type code: "(380)"
		}
		for k := 0; k < len(tok); k++ {
			if !(tok[k] >= 'a' && tok[k] <= 'z' || tok[k] == '-') {
				return titleRef{}, false // digits or a colon: not a headline
			}
		}
	}
	return titleRef{}, false
}

// titleRefDate completes t with what follows the reference that ends at
// folded offset ve: directly "vom <date>" (dated), or words and then "vom"
// (trailing: the reference may go on, so it is not read).
func (t *titleRef) titleRefDate(ln *line, ve int) {
	f := ln.f.s
	rest := f[ve:]
	for w := 0; w < 4; w++ {
		rest = strings.TrimLeft(rest, " ,")
		k := strings.IndexByte(rest, ' ')
		if k < 0 {
			return
		}
		if titleDatePreps[rest[:k]] {
			at := len(f) - len(rest) + k
			for _, dh := range ln.dateHits() {
				if dh.start >= at && strings.TrimSpace(f[at:dh.start]) == "" {
					t.dated = w == 0
					t.trailing = w > 0
					t.date = dh
					return
				}
			}
			return
		}
		rest = rest[k:]
	}
}

// insideValue reports whether the label at folded offset fs stands inside a
// cell after another label's colon and value ("Kundennummer: 88 Rechnungs-
// nummer: 7"), not at the start of its own cell or line.
func (ln *line) insideValue(fs int) bool {
	rs, _ := ln.f.rawSpan(fs, fs)
	k := ln.cellAt(rs)
	if k < 0 || ln.cells[k].start >= rs {
		return false
	}
	before := ln.raw[ln.cells[k].start:rs]
	c := strings.IndexByte(before, ':')
	return c >= 0 && strings.TrimSpace(strings.Trim(before[c+1:], ".: ")) != ""
}

// titleDate returns the date of a dated headline on ln ("Handelsrechnung
// Nr. 4711 vom 15.11.2024", "Commercial invoice No. 4711 of 15.11.2024").
func (d *document) titleDate(ln *line) (dateHit, bool) {
	t, ok := parseTitleRef(ln.f.s)
	if !ok {
		return dateHit{}, false
	}
	_, le := ln.f.rawSpan(t.labelStart, t.labelEnd)
	_, _, ve, ok := readReference(ln, le, len(ln.raw), d.mdy)
	if !ok {
		return dateHit{}, false
	}
	t.titleRefDate(ln, ln.f.foldPos(ve))
	return t.date, t.dated
}
