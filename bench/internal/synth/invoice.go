package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// item is one line of the invoice table.
type item struct {
	desc  string
	unit  string
	qty   int64
	price int64 // minor units
	total int64 // minor units
}

// invoice is the content of one synthetic document before it is laid out.
type invoice struct {
	seq      int
	l        *lang
	m        money
	layout   string
	supplier string
	supAddr  []string
	customer string
	cusAddr  []string
	number   string
	custNo   string
	po       string
	issued   time.Time
	due      time.Time
	showDue  bool // the due date is stated as a labelled date
	days     int
	ds       dateStyle
	items    []item
	taxTenth int // tax rate, tenths of a percent
	subtotal int64
	tax      int64
	total    int64
	reverse  string // reverse-charge or exemption remark, "" if none
	bankNew  string // bank-change notice, "" if none
	iban     string
	bic      string
	regNo    string
	notes    []string
	pageFeed bool // a form feed and a second page before the totals
}

// layouts are the page arrangements a document may take.
var layouts = []string{"columns", "block", "pipes", "stacked"}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func pickWeighted(r *rand.Rand, ws []weighted) string {
	sum := 0
	for _, w := range ws {
		sum += w.w
	}
	n := r.IntN(sum)
	for _, w := range ws {
		if n < w.w {
			return w.v
		}
		n -= w.w
	}
	return ws[len(ws)-1].v
}

func digits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

func letters(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + r.IntN(26))
	}
	return string(b)
}

// ibanOf writes a fictitious IBAN-shaped account in groups of four.
func ibanOf(r *rand.Rand, l *lang, cur string) string {
	country, n := l.iban, l.ibanLen
	switch cur {
	case "CHF":
		country, n = "CH", 17
	case "BHD":
		country, n = "BH", 18
	case "GBP":
		country, n = "GB", 18
	}
	raw := country + digits(r, 2) + digits(r, n)
	if country == "GB" || country == "BH" || country == "NL" {
		raw = country + digits(r, 2) + letters(r, 4) + digits(r, n-4)
	}
	var b strings.Builder
	for i := 0; i < len(raw); i += 4 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(raw[i:min(i+4, len(raw))])
	}
	return b.String()
}

func company(r *rand.Rand, l *lang) string {
	s, t, f := pick(r, l.surnames), pick(r, l.trades), pick(r, l.forms)
	switch r.IntN(3) {
	case 0:
		return s + " " + t + " " + f
	case 1:
		return t + " " + s + " " + f
	}
	return s + " " + f
}

// newInvoice draws document seq from r. Everything about it follows from
// (seed, seq), so a rerun writes the same bytes; seq is part of the invoice
// number, so no two documents are the same.
func newInvoice(r *rand.Rand, seq int) *invoice {
	l := langs[r.IntN(len(langs))]
	inv := &invoice{seq: seq, l: l, layout: pick(r, layouts)}

	code := pickWeighted(r, l.currencies)
	cur := currencies[code]
	ns := pick(r, l.numStyles)
	if l.code == "en" {
		ns = nsEN
	}
	if code == "CHF" && r.IntN(2) == 0 {
		ns = nsCH
	}
	place := pick(r, []curPlacement{curPrefixSymbol, curSuffixSymbol, curPrefixCode, curSuffixCode, curNone})
	if cur.symbol == "" && (place == curPrefixSymbol || place == curSuffixSymbol) {
		place = curPrefixCode
	}
	if ns.dec == "." && place == curSuffixSymbol {
		place = curPrefixSymbol
	}
	inv.m = money{cur: cur, ns: ns, place: place}

	inv.supplier = company(r, l)
	inv.supAddr = []string{fmt.Sprintf("%s %d", pick(r, l.streets), 1+r.IntN(180)), pick(r, l.cities)}
	for inv.customer == "" || inv.customer == inv.supplier {
		inv.customer = company(r, l)
	}
	inv.cusAddr = []string{fmt.Sprintf("%s %d", pick(r, l.streets), 1+r.IntN(180)), pick(r, l.cities)}

	year := 2025 + r.IntN(2)
	inv.issued = time.Date(year, time.Month(1+r.IntN(12)), 1+r.IntN(28), 0, 0, 0, 0, time.UTC)
	inv.days = pick(r, []int{14, 30, 30, 30, 45, 60})
	inv.due = inv.issued.AddDate(0, 0, inv.days)
	inv.showDue = r.IntN(10) < 8
	inv.ds = pick(r, l.dateStyles)
	if code == "USD" && l.code == "en" {
		inv.ds = pick(r, []dateStyle{dsSlashMDY, dsMonDY, dsISO})
	}

	initials := strings.ToUpper(strings.Map(func(c rune) rune {
		if c >= 'A' && c <= 'Z' {
			return c
		}
		return -1
	}, inv.supplier))
	if len(initials) < 2 {
		initials += "X"
	}
	initials = initials[:2]
	switch r.IntN(4) {
	case 0:
		inv.number = fmt.Sprintf("%s-%d-%06d", initials, year, seq+1)
	case 1:
		inv.number = fmt.Sprintf("%s/INV/%d/%06d", initials, year, seq+1)
	case 2:
		inv.number = fmt.Sprintf("%d%06d", year%100, seq+1)
	default:
		inv.number = fmt.Sprintf("F%d-%06d", year, seq+1)
	}
	inv.custNo = fmt.Sprintf("%s-%04d", letters(r, 1+r.IntN(2)), r.IntN(10000))
	if r.IntN(10) < 3 {
		inv.po = pick(r, []string{"PO-", "45000", "IO-", "BE-"}) + digits(r, 5)
	}

	// Line items: prices are log-uniform (a few cents of material to a few
	// thousand for a machine), quantities mostly small.
	n := 2 + r.IntN(11)
	order := r.Perm(len(l.items))
	for k := range n {
		desc := l.items[order[k%len(order)]]
		if k >= len(order) {
			desc = fmt.Sprintf("%s (%s)", desc, inv.issued.AddDate(0, -1-k/len(order), 0).Format("01/2006"))
		}
		major := math.Exp(r.Float64() * math.Log(4000)) // 1 .. 4000 major units
		if cur.exp == 0 {
			major *= 120 // yen
		}
		price := int64(major * math.Pow10(cur.exp))
		if r.IntN(3) == 0 && cur.exp > 0 {
			price -= price % int64(math.Pow10(cur.exp)) // whole units
		}
		price = max(price, 1)
		qty := int64(1)
		switch r.IntN(4) {
		case 0, 1:
			qty = int64(1 + r.IntN(10))
		case 2:
			qty = int64(1 + r.IntN(200))
		}
		unit := ""
		if r.IntN(2) == 0 {
			unit = pick(r, l.units)
		}
		it := item{desc: desc, unit: unit, qty: qty, price: price, total: qty * price}
		inv.items = append(inv.items, it)
		inv.subtotal += it.total
	}

	// Tax.
	switch code {
	case "CHF":
		inv.taxTenth = 81
	case "JPY", "BHD":
		inv.taxTenth = 100
	case "USD":
		inv.taxTenth = pick(r, []int{0, 60, 70, 85, 100}) // state sales tax
	default:
		inv.taxTenth = parseRate(pick(r, l.taxRates))
	}
	if r.IntN(100) < 15 && code != "JPY" && code != "BHD" {
		inv.reverse = pick(r, l.reverse)
		inv.taxTenth = 0
	}
	inv.tax = (inv.subtotal*int64(inv.taxTenth) + 500) / 1000
	inv.total = inv.subtotal + inv.tax

	inv.iban = ibanOf(r, l, code)
	inv.bic = letters(r, 4) + inv.iban[:2] + letters(r, 2) + pick(r, []string{"", "XXX", digits(r, 3)})
	inv.regNo = digits(r, 5+r.IntN(4))
	if r.IntN(100) < 8 {
		inv.bankNew = fmt.Sprintf(pick(r, l.bankNew), "IBAN "+ibanOf(r, l, code))
	}
	if inv.po != "" && r.IntN(2) == 0 {
		inv.notes = append(inv.notes, pick(r, l.poNote))
	}
	if g := pick(r, l.greeting); g != "" {
		inv.notes = append(inv.notes, g)
	}
	inv.pageFeed = n >= 9 && r.IntN(4) == 0
	return inv
}

func (inv *invoice) date(t time.Time) string { return formatDate(t, inv.ds, inv.l) }
