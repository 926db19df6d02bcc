package rules

import "strings"

// reRounding finds a rounding adjustment line ("ROUNDING ADJ -0.01",
// "Rundung 0,02").
var reRounding = lexRE("rounding", "rounding adj", "rounding adjustment", "round adj", "adj rounding",
	"rounding adj.", "rundung", "arrondi", "redondeo", "afronding", "arrotondamento")

// maxRoundingMinor bounds a rounding adjustment: less than one major unit.
const maxRoundingMinor = 99

// roundedTotal applies a rounding adjustment printed below the total read at
// line at: till receipts round the total to the nearest five cents and the
// rounded figure is what the customer pays. The adjustment counts only when
// the receipt prints the rounded figure within the next lines as a total of
// its own; cash rounding applies to a cash payment only, so a figure that is
// merely the cash tendered, or cash minus change, leaves the bill's printed
// total standing.
func (d *document) roundedTotal(at int, total int64, exp int, known bool) int64 {
	v, _ := d.roundedAfter(at, total, exp, known)
	return v
}

// roundedAfter is roundedTotal that also returns the line printing the
// rounded figure (-1 when there is none).
func (d *document) roundedAfter(at int, total int64, exp int, known bool) (int64, int) {
	for i := at + 1; i < len(d.lines) && i <= at+4; i++ {
		ln := d.lines[i]
		if ln.blank || len(ln.labels(reRounding)) == 0 {
			continue
		}
		var adj int64 = -1
		neg := false
		for _, t := range usableNums(ln, nil) {
			if v, _, ok := parseNumber(t.text(ln.raw), exp, known); ok && looksDecimal(t.text(ln.raw)) {
				adj, neg = v, t.neg
			}
		}
		if adj < 0 {
			adj, neg = bareFraction(ln.raw, exp)
		}
		if adj <= 0 || adj > maxRoundingMinor {
			return total, -1
		}
		want := []int64{total + adj, total - adj}
		if neg {
			want = []int64{total - adj}
		}
		printed := d.printedAfter(i, exp, known)
		for _, w := range want {
			for _, c := range printed {
				if c.minor == w {
					return w, c.line
				}
			}
		}
		return total, -1
	}
	return total, -1
}

// printedAmount is a money amount and the line that prints it.
type printedAmount struct {
	minor int64
	line  int
}

// printedAfter lists the money amounts printed on the line i itself and the
// three lines after it, but for what the customer handed over ("CASH 1.40"
// after "TOTAL 1.38 / ROUNDING 0.02" is the tender, not a total).
func (d *document) printedAfter(i int, exp int, known bool) []printedAmount {
	var out []printedAmount
	for k := i; k < len(d.lines) && k <= i+3; k++ {
		ln := d.lines[k]
		if len(ln.labels(reCash)) > 0 {
			continue
		}
		for _, t := range usableNums(ln, nil) {
			if !looksDecimal(t.text(ln.raw)) {
				continue
			}
			if v, _, ok := parseNumber(t.text(ln.raw), exp, known); ok && v != 0 {
				out = append(out, printedAmount{v, k})
			}
		}
	}
	return out
}

// reCash finds what a customer handed over.
var reCash = lexRE("cash", "cash tendered", "tendered", "cash received", "amount tendered", "bar", "espèces", "efectivo", "contanti")

// bareFraction reads an amount printed without its integer part at the end
// of a line ("ROUNDING ADJUSTMENT RM .02", "CHANGE RM -.01"), which the
// number scanner leaves out; -1 when the line does not end in one.
func bareFraction(raw string, exp int) (int64, bool) {
	s := strings.TrimRight(raw, " \t")
	k := len(s)
	for k > 0 && isDigit(s[k-1]) {
		k--
	}
	digits := s[k:]
	if len(digits) == 0 || len(digits) > exp || k == 0 || s[k-1] != '.' && s[k-1] != ',' {
		return -1, false
	}
	if k >= 2 && isDigit(s[k-2]) {
		return -1, false // a whole number: the scanner's business
	}
	v, _, ok := parseNumber("0."+digits, exp, true)
	if !ok {
		return -1, false
	}
	neg := k >= 2 && (s[k-2] == '-' || s[k-2] == '(')
	return v, neg
}
