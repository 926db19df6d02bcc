package synth

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// amountsIn states the currency once when amounts are written bare.
var amountsIn = map[string]string{
	"en": "All amounts in %s.",
	"de": "Alle Beträge in %s.",
	"fr": "Montants exprimés en %s.",
	"es": "Importes en %s.",
	"nl": "Alle bedragen in %s.",
	"it": "Importi in %s.",
}

var pageWord = map[string]string{"en": "Page", "de": "Seite", "fr": "Page", "es": "Página", "nl": "Pagina", "it": "Pagina"}

// field is a labelled header value.
type field struct{ label, value string }

// render lays inv out as text. The rendering choices that are not part of
// the invoice itself (which label variant, amount-due line or not) are drawn
// from r too, so they are as deterministic as the content.
func render(r *rand.Rand, inv *invoice) []byte {
	l := inv.l
	var b strings.Builder
	b.Grow(3072)
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }

	fields := []field{
		{pick(r, l.number), inv.number},
		{pick(r, l.date), inv.date(inv.issued)},
		{pick(r, l.customer), inv.custNo},
	}
	if inv.po != "" {
		fields = append(fields, field{pick(r, l.po), inv.po})
	}
	if inv.showDue {
		fields = append(fields, field{pick(r, l.due), inv.date(inv.due)})
	}
	title := pick(r, l.title)
	billTo := pick(r, l.billTo)
	supplierLine := inv.supplier
	if r.IntN(3) == 0 {
		supplierLine = strings.ToUpper(inv.supplier)
	}

	switch inv.layout {
	case "columns":
		w("%s · %s · %s\n\n", inv.supplier, inv.supAddr[0], inv.supAddr[1])
		left := append([]string{inv.customer}, inv.cusAddr...)
		rows := max(len(left), len(fields))
		for i := range rows {
			lv, fv := "", ""
			if i < len(left) {
				lv = left[i]
			}
			if i < len(fields) {
				fv = padRight(fields[i].label, 22) + fields[i].value
			}
			if fv == "" {
				w("%s\n", lv)
			} else {
				w("%s%s\n", padRight(lv, 50), fv)
			}
		}
		w("\n%s\n\n", title)
	case "block":
		w("%s\n\n", center(title, 80))
		w("%s\n%s\n%s\nTel. %s %s %s\n\n", supplierLine, inv.supAddr[0], inv.supAddr[1], digits(r, 3), digits(r, 3), digits(r, 4))
		for _, f := range fields {
			w("%s%s\n", padRight(f.label, 24), f.value)
		}
		w("\n%s\n%s\n%s\n%s\n\n", billTo, inv.customer, inv.cusAddr[0], inv.cusAddr[1])
	case "pipes":
		w("%s | %s | %s\n", supplierLine, inv.supAddr[0], inv.supAddr[1])
		w("%s\n\n%s\n", strings.Repeat("=", 78), title)
		for _, f := range fields {
			w("| %s | %s |\n", padRight(strings.TrimRight(f.label, " :"), 24), padRight(f.value, 24))
		}
		w("\n%s %s, %s, %s\n\n", billTo, inv.customer, inv.cusAddr[0], inv.cusAddr[1])
	case "stacked":
		w("%s\n%s\n%s\n\n%s\n\n", supplierLine, inv.supAddr[0], inv.supAddr[1], title)
		for _, f := range fields {
			w("%s\n", f.label)
		}
		for _, f := range fields {
			w("%s\n", f.value)
		}
		w("\n%s\n%s\n%s\n%s\n\n", billTo, inv.customer, inv.cusAddr[0], inv.cusAddr[1])
	}

	if inv.m.place == curNone {
		w(amountsIn[l.code]+"\n\n", inv.m.cur.code)
	}
	inv.table(&b, r)
	inv.totals(&b, r)

	// Remarks, terms and footer.
	b.WriteByte('\n')
	if inv.reverse != "" {
		w("%s\n", inv.reverse)
	}
	if inv.showDue {
		w(pick(r, l.terms)+"\n", inv.date(inv.due))
	} else {
		w(pick(r, l.termsDays)+"\n", inv.days)
	}
	for _, n := range inv.notes {
		w("%s\n", n)
	}
	if inv.bankNew != "" {
		w("\n%s\n", inv.bankNew)
	}
	w("\n%s\n%s\n\n", pick(r, l.closing), inv.supplier)
	w("%s\n", strings.Repeat("-", 78))
	w("%s | %s, %s\n", inv.supplier, inv.supAddr[0], inv.supAddr[1])
	w("%s: IBAN %s | BIC %s\n", l.bank, inv.iban, inv.bic)
	w(pick(r, l.footer)+"\n", inv.regNo)
	return []byte(b.String())
}

// table writes the line items in the layout's style.
func (inv *invoice) table(b *strings.Builder, r *rand.Rand) {
	l := inv.l
	const wPos, wDesc, wQty, wPrice, wAmt = 5, 42, 10, 17, 18
	sep := ""
	if inv.layout == "pipes" {
		sep = "| "
	}
	row := func(pos, desc, qty, price, amt string) {
		fmt.Fprintf(b, "%s%s%s%s%s%s%s%s%s%s\n",
			padRight(pos, wPos), sep, padRight(truncate(desc, wDesc-1), wDesc), sep,
			padLeft(qty, wQty), sep, padLeft(price, wPrice), sep, padLeft(amt, wAmt), strings.TrimRight(" "+sep, " "))
	}
	row(l.colPos, l.colDesc, l.colQty, l.colPrice, l.colAmount)
	rule := strings.Repeat("-", wPos+wDesc+wQty+wPrice+wAmt)
	if inv.layout == "block" || inv.layout == "pipes" {
		fmt.Fprintln(b, rule)
	}
	half := len(inv.items) / 2
	for i, it := range inv.items {
		if inv.pageFeed && i == half {
			fmt.Fprintf(b, "\n%s %d/2\n\f%s – %s – %s 2/2\n\n", pageWord[l.code], 1, inv.supplier, inv.number, pageWord[l.code])
			row(l.colPos, l.colDesc, l.colQty, l.colPrice, l.colAmount)
		}
		qty := strconv.FormatInt(it.qty, 10)
		if it.unit != "" {
			qty += " " + it.unit
		}
		pos := strconv.Itoa(i + 1)
		if inv.layout == "columns" && r.IntN(2) == 0 {
			pos = fmt.Sprintf("%02d", i+1)
		}
		row(pos, it.desc, qty, inv.m.amount(it.price), inv.m.amount(it.total))
	}
	if inv.layout == "block" || inv.layout == "pipes" {
		fmt.Fprintln(b, rule)
	}
	b.WriteByte('\n')
}

// totals writes subtotal, tax and total, right-aligned under the table.
func (inv *invoice) totals(b *strings.Builder, r *rand.Rand) {
	l := inv.l
	line := func(label string, minor int64) {
		if inv.layout == "pipes" {
			fmt.Fprintf(b, "%s| %s | %s |\n", strings.Repeat(" ", 38), padRight(label, 22), padLeft(inv.m.amount(minor), 16))
			return
		}
		fmt.Fprintf(b, "%s%s%s\n", strings.Repeat(" ", 40), padRight(label, 26), padLeft(inv.m.amount(minor), 16))
	}
	line(pick(r, l.subtotal), inv.subtotal)
	if inv.taxTenth == 0 {
		line(pick(r, l.taxZero), 0)
	} else {
		line(fmt.Sprintf(pick(r, l.tax), rate(inv.taxTenth, inv.m.ns)), inv.tax)
	}
	line(pick(r, l.total), inv.total)
	if r.IntN(3) == 0 {
		b.WriteByte('\n')
		line(pick(r, l.amountDue), inv.total)
	}
}
