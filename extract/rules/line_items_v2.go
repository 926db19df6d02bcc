package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/invx/invx/schema"
)

// Column roles of an item table header.
type colRole int8

const (
	colOther colRole = iota
	colPos
	colDesc
	colQty
	colUnitOf
	colUnitPrice
	colAmount
	colTax
)

// headerCol is one labelled column of an item table header.
type headerCol struct {
	role        colRole
	col, colEnd int
}

// itemTable is what the item reader found: the lines and the document lines
// they came from, so the summary readers do not mistake a row ("Delivery
// 1 x 45.00") for a summary line.
type itemTable struct {
	lines    []schema.LineItem
	rows     map[int]bool // line indices read as rows, headers and carry lines
	complete bool         // every row was read with confidence and the table ended cleanly
}

// roleOf classifies one header cell by the longest column word it holds.
func roleOf(f string) colRole { return roleOfIn(nil, 0, f) }

// roleOfIn is roleOf of a cell whose fold is the line's folded text from
// off on (ln nil: of a text alone), the column words read from the line's
// matches where they answer (cellMatches).
func roleOfIn(ln *line, off int, f string) colRole {
	best, bestLen := colOther, 0
	for _, c := range &colRoleLexes {
		if ln != nil && ln.cellMatches(c.re, off, f, func(s, e int) {
			if e-s > bestLen {
				best, bestLen = c.role, e-s
			}
		}) {
			continue
		}
		for _, m := range c.re.FindAllStringIndex(f, -1) {
			if n := m[1] - m[0]; n > bestLen {
				best, bestLen = c.role, n
			}
		}
	}
	if bestLen == 0 {
		return colOther
	}
	// The word must be most of the cell: "Amount in words" is no column.
	// Letters are counted only for a cell that names a column, ASCII by
	// a byte test.
	letters := 0
	for i := 0; i < len(f); {
		if b := f[i]; b < utf8.RuneSelf {
			if 'a' <= b|0x20 && b|0x20 <= 'z' {
				letters++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(f[i:])
		if unicode.IsLetter(r) {
			letters++
		}
		i += n
	}
	if letters > 2*bestLen+6 {
		return colOther
	}
	return best
}

// colRoleLexes are the column lexicons roleOfIn tries, in order: a package
// array, not a slice literal built again for every cell.
var colRoleLexes = [...]struct {
	role colRole
	re   *lexicon
}{
	{colAmount, reColAmount}, {colUnitPrice, reColUnit}, {colQty, reColQty}, {colTax, reColTax},
	{colDesc, reColDesc}, {colPos, reColPos}, {colUnitOf, reColUnitOf},
}

// tableHeader returns the columns of line i when it is an item table
// header: at least three labelled cells, one of them an amount or price
// column and one a description or quantity column, and no amounts.
func (d *document) tableHeader(i int) ([]headerCol, bool) {
	ln := d.lines[i]
	if ln.blank || len(ln.cells) < 2 {
		return nil, false
	}
	for _, t := range ln.nums {
		if looksMoney(t.text(ln.raw), 3) {
			return nil, false
		}
	}
	cols := make([]headerCol, 0, len(ln.cells))
	var money, what, labelled bool
	n := 0
	for _, c := range ln.cells {
		// foldCell: the cell's fold, cut from the line's where it can be
		// and kept for the other finders.
		cf := ln.foldCell(c)
		var r colRole
		if off, ok := ln.foldedAt(c, cf); ok {
			r = roleOfIn(ln, off, cf)
		} else {
			r = roleOf(cf)
		}
		cols = append(cols, headerCol{r, c.col, c.colEnd})
		switch r {
		case colAmount, colUnitPrice:
			money = true
		case colDesc, colQty:
			what = true
		}
		if r != colOther {
			n++
		}
		labelled = labelled || r == colAmount
	}
	// "Description  Amount" is a header too; anything else needs a third
	// labelled column.
	if !money || !what || n < 3 && !(labelled && n == 2 && hasRole(cols, colDesc)) {
		return nil, false
	}
	return cols, true
}

// roleAt returns the role of the header column a cell [col, colEnd) falls
// under: the one it overlaps most, else the nearest within four columns.
func roleAt(cols []headerCol, col, colEnd int) colRole {
	best, bestOv := colOther, 0
	for _, h := range cols {
		if ov := min(colEnd, h.colEnd) - max(col, h.col); ov > bestOv {
			best, bestOv = h.role, ov
		}
	}
	if bestOv > 0 {
		return best
	}
	bestDist := 5
	for _, h := range cols {
		dist := min(abs(col-h.colEnd), abs(colEnd-h.col), abs(col-h.col), abs(colEnd-h.colEnd))
		if dist < bestDist {
			best, bestDist = h.role, dist
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// maxItemRows bounds the rows read, as the schema does.
const maxItemRows = 500

// readLineItems reads the document's item table: from its header down to
// the first summary line, across page breaks when a carried-forward line or
// a repeated header says the table goes on. exp is the currency's exponent.
func (d *document) readLineItems(exp int) itemTable {
	t := itemTable{rows: map[int]bool{}}
	start := -1
	var cols []headerCol
	for i := range d.lines {
		if c, ok := d.tableHeader(i); ok {
			start, cols = i, c
			break
		}
	}
	if start < 0 {
		return t
	}
	t.rows[start] = true
	clean := true   // every amount-bearing line in the table was read
	paused := false // after a carried-forward line or a page break, until the table resumes
	ended := false
	since := 0       // rows read since the table last resumed
	var rowSum int64 // the amounts of the rows read so far
	firstCol := 0
	if len(cols) > 0 {
		firstCol = cols[0].col
	}
	for i := start + 1; i < len(d.lines) && !ended; i++ {
		ln := d.lines[i]
		if strings.ContainsRune(ln.raw, '\f') {
			paused = true
		}
		if ln.blank || isRuleLine(ln.raw) {
			continue
		}
		if c, ok := d.tableHeader(i); ok {
			cols, paused, since = c, false, 0
			t.rows[i] = true
			continue
		}
		kind := d.leadingLabel(ln)
		item, ok, amountLine := d.readRow(ln, cols, exp)
		priced := ok && item.Quantity != nil && item.UnitPriceMinor != nil
		switch {
		case (kind == akIgnore || kind == akPrior) && !priced:
			// Carried or brought forward, page totals: never items. A
			// carry line ends a page of the table, a brought-forward line
			// (or a repeated header) resumes it.
			t.rows[i] = true
			switch f := ln.f.s; {
			case containsAny(f, "brought", "b/f", "vortrag", "riporto", "report ", "anterior"):
				paused, since = false, 0
			case containsAny(f, "ubertrag", "transport"):
				paused = since > 0
				since = 0
			case containsAny(f, "carried", "c/f", "page", "seite", "a reporter", "riportare", "suma y sigue", "sigue", "reportar"):
				paused, since = true, 0
			}
			continue
		}
		switch kind {
		case akNet, akSub, akGross, akDue, akTax, akTaxSum, akPaid, akFee:
			if !priced {
				ended = true // the summary block begins
				continue
			}
		case akAdjust:
			if !priced && len(ln.cells) > 0 && ln.cells[0].col > firstCol+10 {
				ended = true // a shipping or discount line of the summary block
				continue
			}
		}
		if paused {
			// A row-like line after a page break the table did not say it
			// continues across: not read, so the lines are not complete.
			if ok {
				clean = false
			}
			continue
		}
		if !ok {
			if amountLine {
				clean = false
			}
			continue
		}
		if !priced && (len(t.lines) >= 2 && near(rowSum, *item.AmountMinor, 1) || len(ln.cells) > 0 && ln.cells[0].col > descCol(cols)+10) {
			// "Goods & services  15,174.00" under the items: a line that
			// sums the rows above it, or a label standing right of the
			// description column, belongs to the summary block.
			ended = true
			continue
		}
		if len(t.lines) >= maxItemRows {
			clean = false
			break
		}
		t.lines = append(t.lines, item)
		t.rows[i] = true
		rowSum += *item.AmountMinor
		since++
	}
	// A credit note printed with negative lines: magnitudes, as the
	// summary amounts are (the caller applies the document's sign).
	allNeg := len(t.lines) > 0
	for _, li := range t.lines {
		if li.AmountMinor == nil || *li.AmountMinor >= 0 {
			allNeg = false
		}
	}
	if allNeg {
		for k := range t.lines {
			v := -*t.lines[k].AmountMinor
			t.lines[k].AmountMinor = &v
			if u := t.lines[k].UnitPriceMinor; u != nil && *u < 0 {
				w := -*u
				t.lines[k].UnitPriceMinor = &w
			}
		}
	}
	t.complete = clean && ended && len(t.lines) > 0
	return t
}

// isRuleLine reports a line of dashes, equals signs or underscores.
func isRuleLine(raw string) bool {
	// The table reader asks this of every line below a header, and a
	// cutset with non-ASCII runes sends strings.Trim through its slow
	// path rune by rune: an ASCII line is answered with a byte loop.
	i, j := 0, len(raw)
	for i < j && isASCIISpace(raw[i]) {
		i++
	}
	for j > i && isASCIISpace(raw[j-1]) {
		j--
	}
	for k := i; k < j; k++ {
		switch c := raw[k]; {
		case c >= utf8.RuneSelf || c < ' ':
			// Unicode spaces and control bytes: TrimSpace may still
			// trim them at an end, so the general form decides.
			return isRuleLineRunes(raw)
		case c != '-' && c != '=' && c != '_' && c != '*' && c != '.' && c != ' ':
			return false
		}
	}
	return i < j
}

// isRuleLineRunes is isRuleLine of any text.
func isRuleLineRunes(raw string) bool {
	s := strings.TrimSpace(raw)
	return s != "" && strings.Trim(s, "-=_–—*.· \t") == ""
}

// isASCIISpace is unicode.IsSpace of an ASCII byte, as strings.TrimSpace
// trims it.
func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// leadingLabel returns the kind of the first summary label of the line when
// it comes before every amount of the line.
func (d *document) leadingLabel(ln *line) amtKind {
	hits := summaryLabels(ln)
	if len(hits) == 0 {
		return akNone
	}
	h := hits[0]
	_, re := ln.f.rawSpan(h.start, h.end)
	for _, t := range ln.nums {
		if !t.percent && t.numStart < re {
			return akNone
		}
	}
	return h.kind
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// readRow reads one table row: its amount is the last number of the line
// and ends it; quantity and unit price are the pair of earlier numbers
// whose product is the amount. amountLine reports a line that ends in an
// amount although it was not read (so the table is not complete).
func (d *document) readRow(ln *line, cols []headerCol, exp int) (schema.LineItem, bool, bool) {
	var li schema.LineItem
	var rate *amountTok
	money := usableNums(ln, nil) // without percentages; read only
	for k := range ln.nums {
		if ln.nums[k].percent {
			rate = &ln.nums[k]
		}
	}
	if len(money) == 0 {
		return li, false, false
	}
	last := money[len(money)-1]
	// The amount ends the line (a currency or a tax code may follow).
	tail := ln.raw[last.end:]
	for _, h := range ln.curs {
		if h.start >= last.end {
			tail = strings.Replace(tail, ln.raw[h.start:h.end], "", 1)
		}
	}
	if tr := strings.TrimSpace(strings.Trim(tail, " *")); len(tr) > 2 {
		return li, false, false
	}
	text := last.text(ln.raw)
	_, hasCur := curNextTo(ln, last)
	if exp > 0 && !looksMoney(text, exp) && !hasCur {
		return li, false, false
	}
	amount, _, ok := parseNumber(text, exp, true)
	if !ok {
		return li, false, true
	}
	if last.neg {
		amount = -amount
	}
	// The description: the text under the description column, else the
	// longest cell with letters that is not a number's cell.
	desc := ""
	descCell := -1
	for k, c := range ln.cells {
		cellText := strings.TrimSpace(ln.raw[c.start:c.end])
		if !hasLetters(cellText) || numberCell(ln, c) {
			continue
		}
		if cols != nil && roleAt(cols, c.col, c.colEnd) == colDesc {
			desc, descCell = cellText, k
			break
		}
		if len(cellText) > len(desc) {
			desc, descCell = cellText, k
		}
	}
	if desc == "" || len(desc) > 300 || hasControl(desc) {
		return li, false, true
	}
	li.Description = desc
	li.AmountMinor = &amount
	// Numbers before the amount and outside the description.
	var preArr [8]amountTok // on the stack for the usual few
	pre := preArr[:0]
	for _, t := range money[:len(money)-1] {
		if descCell >= 0 && t.numStart >= ln.cells[descCell].start && t.numEnd <= ln.cells[descCell].end {
			continue
		}
		pre = append(pre, t)
	}
	qtyCol := func(t amountTok) bool {
		if cols == nil {
			return false
		}
		c0 := colOf(ln.raw, t.numStart)
		return roleAt(cols, c0, c0+(t.numEnd-t.numStart)) == colQty
	}
	// The rightmost pair (quantity, unit price) whose product is the amount.
	found := false
	for u := len(pre) - 1; u >= 0 && !found; u-- {
		unit, _, ok := parseNumber(pre[u].text(ln.raw), exp, true)
		if !ok {
			continue
		}
		if pre[u].neg {
			unit = -unit
		}
		for q := u - 1; q >= 0; q-- {
			qs, qmicro, ok := quantityOf(pre[q].text(ln.raw))
			if !ok || cols != nil && !qtyCol(pre[q]) && hasQtyCol(cols) {
				continue
			}
			if productMatches(qmicro, unit, amount) {
				li.Quantity, li.UnitPriceMinor = &qs, &unit
				found = true
				break
			}
		}
		// Quantity after the price ("12,50 x 4") is rare; a single price
		// equal to the amount means a quantity of one not printed.
	}
	if !found {
		for _, t := range pre {
			if qtyCol(t) {
				if qs, _, ok := quantityOf(t.text(ln.raw)); ok {
					li.Quantity = &qs
				}
			}
		}
	}
	if rate != nil {
		if bp, ok := rateBP(rate.text(ln.raw)); ok && (cols == nil || roleAt(cols, colOf(ln.raw, rate.numStart), colOf(ln.raw, rate.numEnd)) == colTax) {
			li.TaxRateBP = &bp
		}
	}
	return li, true, true
}

func hasRole(cols []headerCol, r colRole) bool {
	for _, c := range cols {
		if c.role == r {
			return true
		}
	}
	return false
}

// descCol returns the start column of the description column, or of the
// first column when none is labelled so.
func descCol(cols []headerCol) int {
	for _, c := range cols {
		if c.role == colDesc {
			return c.col
		}
	}
	if len(cols) > 0 {
		return cols[0].col
	}
	return 0
}

// hasQtyCol reports whether a header names a quantity column.
func hasQtyCol(cols []headerCol) bool {
	for _, c := range cols {
		if c.role == colQty {
			return true
		}
	}
	return false
}

// numberCell reports whether a cell is only a number with its currency,
// sign or percent sign.
func numberCell(ln *line, c cell) bool {
	for _, t := range ln.nums {
		if t.start >= c.start && t.end <= c.end {
			rest := ln.raw[c.start:t.start] + ln.raw[t.end:c.end]
			for _, h := range ln.curs {
				if h.start >= c.start && h.end <= c.end {
					rest = strings.Replace(rest, ln.raw[h.start:h.end], "", 1)
				}
			}
			if !hasLetters(rest) {
				return true
			}
		}
	}
	return false
}

func hasLetters(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// quantityOf reads a printed quantity as a decimal string with a dot ("1,25"
// is "1.25") and in millionths.
func quantityOf(text string) (string, int64, bool) {
	micro, _, ok := parseNumber(text, 6, false)
	if !ok || micro <= 0 {
		return "", 0, false
	}
	s := itoa64(micro)
	for len(s) <= 6 {
		s = "0" + s
	}
	intPart, frac := s[:len(s)-6], strings.TrimRight(s[len(s)-6:], "0")
	if frac == "" {
		return intPart, micro, true
	}
	return intPart + "." + frac, micro, true
}

// productMatches reports whether quantity (millionths) times unit price is
// the amount, allowing half a minor unit of rounding per unit of quantity:
// a unit price is itself rounded.
func productMatches(qmicro, unit, amount int64) bool {
	if qmicro <= 0 || unit == 0 {
		return false
	}
	// Work in float64: the check tolerates rounding anyway, and products of
	// real quantities and prices stay far below 2^53.
	prod := float64(qmicro) * float64(unit) / 1e6
	tol := max(1.0, float64(qmicro)/1e6*0.5)
	diff := prod - float64(amount)
	return diff <= tol && diff >= -tol
}

// rateBP reads a printed percentage ("19", "7,7", "5.5") in basis points.
// A single separator in a percentage is always decimal ("9,975"); a rate
// finer than a basis point (9.975 % is 997.5) cannot be stated and is
// refused rather than rounded.
func rateBP(text string) (int64, bool) {
	v, _, ok := parseNumber(text, 3, true) // thousandths of a percent
	if !ok || v < 0 || v > 100000 || v%10 != 0 {
		return 0, false
	}
	return v / 10, true
}
