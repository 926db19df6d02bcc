package e2e_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The invoice generator: deterministic, every document distinct (the
// invoice number carries the document's index), about two in five with a
// purchase order number so that action items and their outbox rows exist.

var suppliers = []string{
	"Harrowgate Consulting Ltd", "Brightwater Office Supplies Ltd", "Kestrel Facility Services Ltd",
	"Nordlicht Logistik GmbH", "Alpenblick Software AG", "Van Dijk Installaties B.V.",
	"Tamsin & Rowe Engineering Ltd", "Lumière Conseil SARL", "Oakridge Catering Ltd",
	"Fjordline Shipping AS", "Castellana Servicios S.L.", "Pennine Print Works Ltd",
}

var streets = []string{"Bridge Street", "Market Lane", "Hafenstraße", "Station Road", "Keizersgracht", "Mill Road"}

var cities = []string{"Harrogate HG1 2AB", "Leeds LS1 4DT", "80331 München", "1015 CJ Amsterdam", "York YO1 7HH", "Bristol BS1 5TR"}

var items = []string{
	"Consulting services", "Office chairs", "Printer toner", "Freight Rotterdam-Leeds", "Software licence (annual)",
	"Catering, staff event", "Cleaning, March", "Network cabling", "Maintenance visit", "Translation services",
}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September",
	"October", "November", "December"}

// formatEUR writes minor units the continental way: 123456 -> "1.234,56".
func formatEUR(minor int64) string {
	euros, cents := minor/100, minor%100
	s := fmt.Sprint(euros)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s,%02d", b.String(), cents)
}

// invoice is one generated document.
type invoice struct {
	name string
	text string
	po   bool
}

// genInvoice returns document i of a batch; the same (seed, i) always gives
// the same text.
func genInvoice(seed uint64, i int) invoice {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	sup := suppliers[rng.IntN(len(suppliers))]
	prefix := strings.ToUpper(strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' {
			return r
		}
		return -1
	}, sup))[:3]
	month := rng.IntN(10)
	day := 1 + rng.IntN(28)
	po := rng.IntN(5) < 2

	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", sup)
	fmt.Fprintf(&b, "%d %s, %s\n", 1+rng.IntN(120), streets[rng.IntN(len(streets))], cities[rng.IntN(len(cities))])
	fmt.Fprintf(&b, "accounts@%s.example\n\n", strings.ToLower(prefix))
	b.WriteString("INVOICE\n\n")
	fmt.Fprintf(&b, "Invoice No.:    %s-2026-%05d\n", prefix, i)
	fmt.Fprintf(&b, "Invoice Date:   %d %s 2026\n", day, months[month])
	fmt.Fprintf(&b, "Due Date:       %d %s 2026\n", day, months[month+1])
	if po {
		fmt.Fprintf(&b, "PO Number: 45000%05d\n", rng.IntN(100000))
	}
	b.WriteString("\nDescription                              Qty        Amount\n")
	var total int64
	for n := 1 + rng.IntN(4); n > 0; n-- {
		amt := int64(1000 + rng.IntN(250000))
		total += amt
		fmt.Fprintf(&b, "%-40s %3d   %11s\n", items[rng.IntN(len(items))], 1+rng.IntN(9), formatEUR(amt))
	}
	fmt.Fprintf(&b, "\nTotal due: EUR %s\n\n", formatEUR(total))
	fmt.Fprintf(&b, "Payment terms: %d days. Please quote the invoice number with your payment.\n", 14+rng.IntN(4)*8)
	return invoice{name: fmt.Sprintf("inv-%05d.txt", i), text: b.String(), po: po}
}

// genInvoices returns n distinct documents keyed by file name.
func genInvoices(t *testing.T, seed uint64, n int) map[string]string {
	t.Helper()
	docs := make(map[string]string, n)
	seen := make(map[string]bool, n)
	for i := range n {
		inv := genInvoice(seed, i)
		if seen[inv.text] {
			t.Fatalf("generator produced the same text twice (document %d)", i)
		}
		seen[inv.text] = true
		docs[inv.name] = inv.text
	}
	return docs
}

func TestFormatEUR(t *testing.T) {
	t.Parallel()
	for minor, want := range map[int64]string{0: "0,00", 5: "0,05", 123456: "1.234,56", 100000000: "1.000.000,00", 99999: "999,99"} {
		if got := formatEUR(minor); got != want {
			t.Errorf("formatEUR(%d) = %q, want %q", minor, got, want)
		}
	}
}
