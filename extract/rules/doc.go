package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds that keep the work per document near-linear on odd inputs; real
// invoices are far below them.
const (
	maxLines     = 4000
	maxLineBytes = 2048
)

// cell is a column of a raw line: text separated from its neighbours by a
// tab, a "|" or two or more spaces.
type cell struct {
	start, end  int // raw byte span
	col, colEnd int // display columns
}

// line is one line of the document with its matching form.
type line struct {
	raw   string
	off   int // byte offset of raw in the document
	f     folded
	blank bool
	cells []cell
	curs  []curHit
	nums  []amountTok
	dates []dateHit // in folded coordinates, once datesDone (dateHits)

	datesDone bool
	mdy       bool // the document's date order, for dateHits

	cellM  []cellMemo // what is found once per cell (foldCell, cellLabel); see cellMemos
	lk     lineKeys   // word beginnings for the lexicons (keysOf)
	lkDone bool       // lk is filled

	labelOnly int8 // 0 unknown, 1 yes, 2 no
	bankWord  int8 // hasBankWord: 0 unknown, 1 yes, 2 no

	sumHits  []kindHit // summaryLabels of the line, once sumDone
	sumDone  bool
	idr      []idRun // idRuns of raw, once idrDone
	idrDone  bool
	injected bool // text addressed to a machine; read as blank

	normed   string // normName of raw, once normDone (norm)
	normDone bool
}

// dateHits returns the dates of the line's folded text, read with the
// document's date order, found on first use, so that a field asking about
// a few lines does not pay for every line's (a fortieth of the work). For
// now issueDateFact, dueDateFact's pay-verb pass and stampDate still ask
// every line: gating them is what would make this save.
func (ln *line) dateHits() []dateHit {
	if !ln.datesDone {
		ln.dates, ln.datesDone = findDates(ln.f.s, ln.mdy), true
	}
	return ln.dates
}

// norm is normName(ln.raw), from the line's folded text (fold and
// foldString agree on the text), once: the buyer search asks it of the
// heading lines for each candidate.
func (ln *line) norm() string {
	if !ln.normDone {
		ln.normed, ln.normDone = normFolded(ln.f.s), true
	}
	return ln.normed
}

// document is the parsed input shared by the field extractors. It is built
// per call; nothing is kept between calls.
type document struct {
	text  string
	lines []*line
	ftext string // folded lines joined by "\n"
	cur   docCurrency
	mdy   bool // ambiguous numeric dates read month first (dateOrder)

	orderSure bool // dateOrder has a reason for mdy; else ambiguous dates are null

	domCur  *string // dominantCurrency, once computed
	idrDone bool    // every non-blank line's idRuns are found (idRunsOf)

	scratch *docScratch // the buffers the lines are cut from (release)

	// findTotalLabelled's answer, once totalDone.
	total     *int64
	totalCur  *string
	totalDone bool
}

func isSpaceRune(r rune) bool { return unicode.IsSpace(r) || r == '\u200b' }

// splitCells cuts a raw line into columns.
func splitCells(raw string) []cell {
	cells, _ := appendCells(nil, raw)
	return cells
}

// appendCells is splitCells appending to buf (newDocument passes one buffer
// for all its lines); the line's cells are cut from it with their capacity
// capped, nil when there are none.
func appendCells(buf []cell, raw string) ([]cell, []cell) {
	from := len(buf)
	cells := buf
	col := 0
	start, startCol := -1, 0
	lastNonSpace, lastNonSpaceCol := -1, 0
	spaces := 0
	flush := func() {
		if start >= 0 {
			cells = append(cells, cell{start: start, end: lastNonSpace, col: startCol, colEnd: lastNonSpaceCol})
		}
		start = -1
	}
	for i := 0; i < len(raw); {
		r, w := rune(raw[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(raw[i:])
		} else if r > ' ' && r != '|' {
			// Most bytes: printable ASCII, part of a cell (isSpaceRune
			// asked unicode.IsSpace of each), a run of them at once (a
			// pass of the loop a byte was a fiftieth of the extractor).
			if start < 0 {
				start, startCol = i, col
			}
			// A single space between two such bytes stays in the cell
			// (two end it): the run goes on over it, a word at a time
			// being most of a line's passes of the loop.
			j := i + 1
			for j < len(raw) {
				if c := raw[j]; c > ' ' && c < utf8.RuneSelf && c != '|' {
					j++
				} else if c == ' ' && j+1 < len(raw) && raw[j+1] > ' ' && raw[j+1] < utf8.RuneSelf && raw[j+1] != '|' {
					j += 2
				} else {
					break
				}
			}
			spaces = 0
			col += j - i
			lastNonSpace, lastNonSpaceCol = j, col
			i = j
			continue
		} else if r == ' ' {
			// A run of spaces at once: two or more end the cell, and
			// flushing once at the run's end is flushing at its second.
			j := i + 1
			for j < len(raw) && raw[j] == ' ' {
				j++
			}
			spaces += j - i
			if spaces >= 2 {
				flush()
			}
			col += j - i
			i = j
			continue
		}
		switch {
		case r == '\t':
			flush()
			spaces = 0
			col = (col/8 + 1) * 8
		case r == '|' || r == '¦' || r == '│':
			flush()
			spaces = 0
			col++
		case isSpaceRune(r):
			spaces++
			if spaces >= 2 {
				flush()
			}
			col++
		default:
			if start < 0 {
				start, startCol = i, col
			}
			spaces = 0
			col++
			lastNonSpace, lastNonSpaceCol = i+w, col
		}
		i += w
	}
	flush()
	if len(cells) == from {
		return nil, cells
	}
	return cells[from:len(cells):len(cells)], cells
}

// colOf returns the display column of a raw byte offset.
func colOf(raw string, off int) int {
	col := 0
	for i, r := range raw {
		if i >= off {
			break
		}
		if r == '\t' {
			col = (col/8 + 1) * 8
		} else {
			col++
		}
	}
	return col
}

var langWords = map[string]*lexicon{
	"en": lexRE("invoice", "total", "due", "amount", "payment", "please", "thank you", "bill to", "the", "and", "date", "tax", "qty", "description"),
	"de": lexRE("rechnung", "betrag", "zahlung", "bitte", "summe", "mwst", "ust", "gesamt", "und", "datum", "menge", "beschreibung", "netto", "brutto", "zahlbar"),
	"fr": lexRE("facture", "montant", "paiement", "merci", "tva", "le", "la", "des", "du", "quantite", "ttc", "ht", "echeance"),
	"es": lexRE("factura", "importe", "pago", "gracias", "iva", "el", "los", "las", "del", "cantidad", "fecha", "vencimiento"),
	"nl": lexRE("factuur", "bedrag", "betaling", "btw", "totaal", "het", "van", "een", "aantal", "omschrijving", "datum", "vervaldatum"),
	"it": lexRE("fattura", "importo", "pagamento", "grazie", "iva", "il", "della", "di", "totale", "quantita", "data", "scadenza"),
}

func detectLang(ftext string) string {
	best, bestN := "", 0
	for _, l := range []string{"en", "de", "fr", "es", "nl", "it"} {
		n := len(langWords[l].FindAllStringIndex(ftext, -1))
		if n > bestN {
			best, bestN = l, n
		}
	}
	return best
}

func newDocument(text string) *document {
	sc := docPool.Get().(*docScratch)
	d := &document{text: text, scratch: sc}
	off := 0
	parts := strings.Split(text, "\n")
	if len(parts) > maxLines {
		parts = parts[:maxLines]
	}
	skip := doubleSpaced(parts)
	// The lines live in one array, and their folded texts are cut from the
	// document's (ftext, built in one buffer): a line, a folded string per
	// line and their join were a tenth of the document's allocations.
	// lineArr never grows past its capacity: the lines' pointers stay valid.
	lineArr := sized(sc.lines, len(parts))
	d.lines = sized(sc.ptrs, len(parts))
	fb := sized(sc.fold, len(text)+len(text)/16+16)
	fends := sized(sc.fends, 2*len(parts)) // each line's folded span in fb
	// The lines' folded-to-raw indexes share one buffer (foldTo).
	idxBuf := sized(sc.idx, len(text)+len(parts)+16)
	// And their cells one buffer (appendCells), sized for a few per line.
	cellBuf := sized(sc.cells, 2*len(parts)+8)
	// And their currencies and numbers (claimTail).
	curBuf := sized(sc.curs, len(parts)/2+8)
	numBuf := sized(sc.nums, len(parts)+8)
	for n, raw := range parts {
		raw = strings.TrimSuffix(raw, "\r")
		if len(raw) > maxLineBytes {
			// Only the start of a very long line is read (a prefix is still
			// verbatim text).
			cut := maxLineBytes
			for cut > 0 && !utf8.RuneStart(raw[cut]) {
				cut--
			}
			raw = raw[:cut]
		}
		if skip[n] {
			off += len(parts[n]) + 1
			continue
		}
		lineArr = append(lineArr, line{raw: raw, off: off})
		ln := &lineArr[len(lineArr)-1]
		if len(d.lines) > 0 {
			fb = append(fb, '\n')
		}
		fs := len(fb)
		fb, ln.f, idxBuf = foldAppend(fb, raw, idxBuf, true)
		fends = append(fends, fs, len(fb))
		ln.cells, cellBuf = appendCells(cellBuf, raw)
		ln.curs, curBuf = claimTail(curBuf, appendCurrencies(curBuf[len(curBuf):len(curBuf)], raw))
		ln.nums, numBuf = claimTail(numBuf, appendNumbers(numBuf[len(numBuf):len(numBuf)], raw, ln.curs))
		d.lines = append(d.lines, ln)
		off += len(parts[n]) + 1
	}
	d.ftext = string(fb)
	var kept strings.Builder // raw text of the lines that are read
	kept.Grow(len(text))
	injectedNext := false
	lits := injectionLiteralsIn(d.ftext)
	for k, ln := range d.lines {
		ln.f.s = d.ftext[fends[2*k]:fends[2*k+1]]
		ln.blank = isBlank(ln.f.s)
		if !ln.blank && (isInjectionIn(ln.f.s, lits) || injectedNext) {
			// An instruction to a machine, and the lines that continue its
			// sentence: read as empty.
			injectedNext = !strings.HasSuffix(strings.TrimSpace(ln.f.s), ".") && !injectedNext
			ln.blank = true
			ln.injected = true
		} else {
			injectedNext = false
		}
		if !ln.injected {
			kept.WriteString(ln.raw)
			kept.WriteByte('\n')
		}
	}
	// One array holds every cell's memo (cellMemos): two slices per line
	// were a twentieth of the document's allocations.
	nc := 0
	for _, ln := range d.lines {
		nc += len(ln.cells)
	}
	memo := sized(sc.memo, nc)[:nc]
	clear(memo)
	sc.lines, sc.ptrs, sc.fends, sc.idx, sc.cells, sc.curs, sc.nums, sc.memo, sc.fold = lineArr, d.lines, fends, idxBuf, cellBuf, curBuf, numBuf, memo, fb
	for _, ln := range d.lines {
		ln.cellM, memo = memo[:len(ln.cells):len(ln.cells)], memo[len(ln.cells):]
	}
	d.gatherKeys()
	d.cur = resolveDocCurrency(kept.String(), d.ftext, d.hasKrona())
	d.mdy, d.orderSure = d.dateOrder()
	for _, ln := range d.lines {
		ln.mdy = d.mdy
	}
	return d
}

// foldCell is foldString of the cell's raw text, folded once per cell: the
// header finders each fold the same cells, and folding was a tenth of the
// extractor's time. A cell that is not one of the line's is folded anew.
func (ln *line) foldCell(c cell) string {
	for k, lc := range ln.cells {
		if lc != c {
			continue
		}
		m := &ln.cellMemos()[k]
		if m.f == "" {
			m.f = ln.cellFold(c)
		}
		return m.f
	}
	return foldString(ln.raw[c.start:c.end])
}

// hasKrona reports whether "kr" appears as a currency anywhere.
func (d *document) hasKrona() bool {
	for _, ln := range d.lines {
		for _, h := range ln.curs {
			if h.code == famKrona {
				return true
			}
		}
	}
	return false
}

// nextNonBlank returns the index of the first non-blank line after i,
// skipping at most maxBlank blank lines, or -1.
func (d *document) nextNonBlank(i, maxBlank int) int {
	blanks := 0
	for j := i + 1; j < len(d.lines); j++ {
		if !d.lines[j].blank {
			return j
		}
		blanks++
		if blanks > maxBlank {
			return -1
		}
	}
	return -1
}

// span is a raw byte range of one line.
type span struct {
	line       int
	start, end int
}

// cellAt returns the index of the cell containing raw offset off, or -1.
func (ln *line) cellAt(off int) int {
	for k, c := range ln.cells {
		if off >= c.start && off < c.end {
			return k
		}
	}
	for k, c := range ln.cells {
		if off < c.start {
			return k
		}
	}
	return -1
}

// alignedSpan finds, in the next non-blank line after i, the cell under the
// raw label span [ls, le) of line i: by cell index when both lines have the
// same number of cells, else by column overlap.
func (d *document) alignedSpan(i, ls, le int) (span, bool) {
	j := d.nextNonBlank(i, 1)
	if j < 0 {
		return span{}, false
	}
	src, dst := d.lines[i], d.lines[j]
	if len(dst.cells) == 0 {
		return span{}, false
	}
	if len(src.cells) <= 1 {
		c := dst.cells[0]
		if len(dst.cells) == 1 || c.col <= colOf(src.raw, ls)+4 {
			return span{j, c.start, c.end}, true
		}
		return span{}, false
	}
	k := src.cellAt(ls)
	if k >= 0 && len(src.cells) == len(dst.cells) {
		c := dst.cells[k]
		if d.headsColumn(j, c) {
			// Reason: a till's tax table ("Steuer % Netto Steuer Brutto"
			// over a row per rate) has as many cells as its header; its
			// first row's gross is one rate's, not the total.
			return span{}, false
		}
		return span{j, c.start, c.end}, true
	}
	c0 := colOf(src.raw, ls)
	c1 := colOf(src.raw, le)
	if k >= 0 && src.cells[k].colEnd > c1 {
		c1 = src.cells[k].colEnd
	}
	best, bestOv := -1, 0
	for n, c := range dst.cells {
		lo, hi := max(c.col, c0-2), min(c.colEnd, c1+2)
		if ov := hi - lo; ov > bestOv {
			best, bestOv = n, ov
		}
	}
	if best < 0 {
		bestDist := 7
		for n, c := range dst.cells {
			dist := c.col - c0
			if dist < 0 {
				dist = -dist
			}
			if dist < bestDist {
				best, bestDist = n, dist
			}
		}
	}
	if best < 0 {
		return span{}, false
	}
	c := dst.cells[best]
	if d.headsColumn(j, c) {
		return span{}, false
	}
	return span{j, c.start, c.end}, true
}

// headsColumn reports whether the row below a header row (line j, its cell
// c) is the first of a table's rows: the next row again has a number under
// the same column. Reason: "Wartość brutto" heading an item table's gross
// column is no total; its first row is one item's gross. A summary row
// under its labels ("Net  VAT  Total" / "100.00  19.00  119.00") stands
// alone, and a table of rates with more than one row has no one total.
func (d *document) headsColumn(j int, c cell) bool {
	// The next line, not the next non-blank one: a blank line ends a
	// table, and a summary below it is no second row.
	k := j + 1
	if k >= len(d.lines) || d.lines[k].blank || len(d.lines[j].cells) < 2 || len(d.lines[k].cells) < 2 {
		return false
	}
	for _, o := range d.lines[k].cells {
		if o.colEnd <= c.col || o.col >= c.colEnd {
			continue
		}
		for _, b := range []byte(d.lines[k].raw[o.start:o.end]) {
			if b >= '0' && b <= '9' {
				return true
			}
		}
	}
	return false
}

// maxStack bounds a stacked block of labels.
const maxStack = 12

// isLabelOnly is labelOnly of the line, computed once.
func (ln *line) isLabelOnly() bool {
	if ln.labelOnly == 0 {
		ln.labelOnly = 2
		if labelOnly(ln.f.s) {
			ln.labelOnly = 1
		}
	}
	return ln.labelOnly == 1
}

// stackedSpan handles labels and values printed as two runs of lines:
//
//	Invoice no.:
//	Date:
//	INV-7
//	01.03.2026
//
// It returns the value line paired with label line i.
func (d *document) stackedSpan(i int) (span, bool) {
	if !d.lines[i].isLabelOnly() {
		return span{}, false
	}
	a := i
	for a-1 >= 0 && i-a < maxStack && !d.lines[a-1].blank && d.lines[a-1].isLabelOnly() {
		a--
	}
	b := i
	for b+1 < len(d.lines) && b-i < maxStack && !d.lines[b+1].blank && d.lines[b+1].isLabelOnly() {
		b++
	}
	if a == b || b-a >= maxStack {
		return span{}, false
	}
	n := b - a + 1
	// The value run follows directly (one blank line allowed).
	v := d.nextNonBlank(b, 1)
	if v < 0 {
		return span{}, false
	}
	for k := 0; k < n; k++ {
		if v+k >= len(d.lines) || d.lines[v+k].blank || d.lines[v+k].isLabelOnly() {
			return span{}, false
		}
	}
	ln := d.lines[v+i-a]
	s, e := trimSpan(ln.raw, 0, len(ln.raw))
	return span{v + i - a, s, e}, true
}

// trimSpan narrows [s, e) of raw to exclude surrounding white space.
func trimSpan(raw string, s, e int) (int, int) {
	for s < e {
		r, w := utf8.DecodeRuneInString(raw[s:e])
		if !isSpaceRune(r) {
			break
		}
		s += w
	}
	for e > s {
		r, w := utf8.DecodeLastRuneInString(raw[s:e])
		if !isSpaceRune(r) {
			break
		}
		e -= w
	}
	return s, e
}

// valueSpans lists where the value of a label (raw span [ls, le) of line i)
// may be: the rest of the same line, then the cell below it, then the paired
// line of a stacked layout. The later places are offered only when nothing
// but separators or another label follows the label on its line.
func (d *document) valueSpans(i, ls, le int) []span {
	ln := d.lines[i]
	out := []span{{i, le, len(ln.raw)}}
	rest := ln.raw[le:]
	// Currency codes and symbols after a label ("TOTAL EUR") are not a value.
	for k := len(ln.curs) - 1; k >= 0; k-- {
		if h := ln.curs[k]; h.start >= le {
			rest = rest[:h.start-le] + strings.Repeat(" ", h.end-h.start) + rest[h.end-le:]
		}
	}
	restF := strings.Trim(foldString(rest), " :#.-=|*()")
	rest2 := strings.TrimLeft(rest, ".:#-=*")
	gap := len(rest2) - len(strings.TrimLeft(rest2, " \t\u00a0:|"))
	if strings.HasPrefix(rest2, "\t") || strings.HasPrefix(rest2, "|") {
		gap = 2 // a column separator
	}
	if restF == "" || gap >= 2 || len(restF) < 120 && startsWithLabel(restF) && labelOnly(restF) {
		if restF == "" {
			if sp, ok := d.aboveSpan(i); ok {
				// Reason: a till column of amounts above their labels (above.go).
				return append(out, sp)
			}
		}
		if sp, ok := d.stackedSpan(i); ok {
			out = append(out, sp)
		}
		if sp, ok := d.alignedSpan(i, ls, le); ok {
			out = append(out, sp)
		}
	}
	return out
}

func startsWithLabel(f string) bool {
	return reAnyLabelAt.MatchString(f)
}

func (d *document) dominantCurrency() string {
	if d.domCur == nil {
		c := d.countCurrencies()
		d.domCur = &c
	}
	return *d.domCur
}

// countCurrencies weighs every currency indicator of the document: next to
// an amount, or on a "Currency:" line, counts more.
func (d *document) countCurrencies() string {
	counts := map[string]int{}
	first := map[string]int{}
	n := 0
	rowCodes := d.taxRowCodes()
	for _, ln := range d.lines {
		if ln.injected {
			continue
		}
		for _, h := range ln.curs {
			if rowCodes[h.code] {
				// Reason: a code that opens a tax summary row is a tax code ("SVC").
				continue
			}
			w := 1
			if h.weak {
				if !adjacentToNumber(ln, h) {
					continue
				}
			}
			if adjacentToNumber(ln, h) {
				w = 2
			}
			if ln.has(reCurrencyLabel) {
				w += 3
			}
			code := d.cur.resolve(h.code)
			if code == "" {
				continue
			}
			if _, ok := first[code]; !ok {
				first[code] = n
				n++
			}
			counts[code] += w
		}
	}
	best, bestN := "", 0
	for c, k := range counts {
		if k > bestN || k == bestN && first[c] < first[best] {
			best, bestN = c, k
		}
	}
	return best
}

var reCurrencyLabel = lexRE("currency", "wahrung", "devise", "monnaie", "moneda", "divisa", "valuta", "munt", "all amounts in", "amounts in", "alle betrage in", "betrage in", "montants en", "importes en", "bedragen in", "importi in")

// adjacentToNumber reports whether a currency hit touches a number (at most
// two spaces apart).
func adjacentToNumber(ln *line, h curHit) bool {
	for _, t := range ln.nums {
		if t.percent {
			continue
		}
		if t.numStart >= h.end && t.numStart-h.end <= 3 && strings.TrimLeft(ln.raw[h.end:t.numStart], " \u00a0\u202f-−(") == "" {
			return true
		}
		if h.start >= t.numEnd && h.start-t.numEnd <= 3 && strings.TrimLeft(ln.raw[t.numEnd:h.start], " \u00a0\u202f-−)") == "" {
			return true
		}
	}
	return false
}

// labels finds the matches of a label lexicon in a line. A match that runs
// across a column gap ("Invoice Date   Due Date" read as "date due") is cut
// at the gap when the text after the gap starts a label of its own, and
// matching resumes there; a label merely spread by OCR spacing ("Invoice
// No: 7") is kept.
func (ln *line) labels(re *lexicon) [][2]int { return ln.appendLabels(nil, re) }

// appendLabels is labels appending to out: the summary and total searches
// ask a dozen lexicons of each line into one buffer on the stack, not a
// slice per lexicon.
func (ln *line) appendLabels(out [][2]int, re *lexicon) [][2]int {
	t := re.tables()
	if ln.mayNot(t) || !t.full && !ln.mayHave(t) {
		return out // the lexicon matches nowhere on the line
	}
	// Spans by value: a []int per match was a tenth of the allocations.
	f := ln.f.s
	pos := 0
	for pos <= len(f) {
		// t.find is FindStringIndex without the []int it returns.
		var ms, me int
		var ok bool
		if t.full {
			if m := t.FindStringIndex(f[pos:]); m != nil {
				ms, me, ok = m[0], m[1], true
			}
		} else {
			ms, me, ok = ln.find(t, pos)
			ms, me = ms-pos, me-pos
		}
		if !ok {
			break
		}
		s, e := pos+ms, pos+me
		if e == s {
			pos = e + 1
			continue
		}
		rs, re2 := ln.f.rawSpan(s, e)
		if g := wideGap(ln.raw[rs:re2]); g >= 0 {
			after := ln.f.foldPos(rs + g)
			if after > s && after < e && startsWithLabel(f[after:]) {
				// Keep what matches before the gap on its own ("Due  Date").
				for _, m2 := range re.FindAllStringIndex(f[s:after], -1) {
					out = append(out, [2]int{s + m2[0], s + m2[1]})
				}
				pos = after
				continue
			}
		}
		out = append(out, [2]int{s, e})
		pos = e
	}
	return out
}

// wideGap returns the offset of the end of the first column gap (a tab or
// two or more spaces) in s, or -1.
func wideGap(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\t' {
			return i + 1
		}
		if s[i] == ' ' && i+1 < len(s) && s[i+1] == ' ' {
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			return j
		}
	}
	return -1
}

// doubleSpaced detects text where every line is followed by an empty line
// (a common PDF-to-text artefact) and marks one empty line of each run to
// be skipped, so that blank lines keep their meaning of a break.
func doubleSpaced(parts []string) []bool {
	nonBlank, followed := 0, 0
	for i, p := range parts {
		if isBlank(p) {
			continue
		}
		nonBlank++
		if i+1 < len(parts) && isBlank(parts[i+1]) {
			followed++
		}
	}
	skip := make([]bool, len(parts))
	if nonBlank < 6 || followed*10 < nonBlank*9 {
		return skip
	}
	for i := 1; i < len(parts); i++ {
		if isBlank(parts[i]) && !isBlank(parts[i-1]) {
			skip[i] = true
		}
	}
	return skip
}

// claimTail takes res, which its producer appended to from buf's spare
// capacity (buf[len(buf):len(buf)]), as a line's slice: nil when empty, its
// capacity capped, and buf extended over it when res still lies in buf's
// array (a res that outgrew that capacity has an array of its own).
func claimTail[T any](buf, res []T) ([]T, []T) {
	if len(res) == 0 {
		return nil, buf
	}
	if cap(res) == cap(buf)-len(buf) {
		buf = buf[:len(buf)+len(res)]
	}
	return res[:len(res):len(res)], buf
}
