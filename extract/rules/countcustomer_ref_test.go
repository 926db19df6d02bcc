package rules

import (
	"maps"
	"testing"
)

// countCustomerRef is countCustomer as it was before it folded each name
// once (normName of names[0] and of the cell's name were asked twice),
// frozen.
func countCustomerRef(customers map[string]int, cellRaw string, names []string) {
	for _, n := range names {
		customers[normName(n)]++
	}
	t := cellRaw
	cf := foldString(t)
	if kind, end := blockLabel(cf, t); kind == regCustomer {
		rs, _ := fold(t).rawSpan(end, end)
		t = t[rs:]
	}
	if n := cutName(t); looksLikeName(n) && (len(names) == 0 || normName(n) != normName(names[0])) {
		customers[normName(n)]++
	}
}

// TestCountCustomerMatchesReference holds countCustomer to its frozen copy
// on every cell of the fixtures, development texts, synthetic invoices and
// the local dev set where present: each cell with the legal names read
// from it, and again with the names of its line's first cell, so that a
// cell name that differs from names[0] is counted too.
func TestCountCustomerMatchesReference(t *testing.T) {
	t.Parallel()
	cells, counted, extra := 0, 0, 0
	for _, text := range selfCheckTexts(t) {
		d := newDocument(text)
		for _, ln := range d.lines {
			forms := reLegalForm.FindAllStringIndex(ln.raw, -1)
			var firstNames []string
			for k, c := range ln.cells {
				cell := ln.raw[c.start:c.end]
				names := legalNamesMemo(nil, ln.raw, c.start, c.end, forms)
				if k == 0 {
					firstNames = names
				}
				for _, ns := range [][]string{names, firstNames} {
					want, got := map[string]int{}, map[string]int{}
					countCustomerRef(want, cell, ns)
					s := &supplierScan{customers: got}
					s.countCustomer(cell, ns)
					if !maps.Equal(got, want) {
						t.Fatalf("countCustomer(%q, %q) counted %v, want %v", cell, ns, got, want)
					}
					cells++
					counted += len(want)
					n := 0
					for _, v := range want {
						n += v
					}
					if n > len(ns) {
						extra++ // the cell's own name counted besides the legal names
					}
				}
			}
		}
		d.release()
	}
	t.Logf("%d cells, %d names counted, %d with the cell's own name", cells, counted, extra)
	if counted < atLeast(1000) || extra < atLeast(1000) {
		t.Fatalf("only %d names counted, %d cells' own: the comparison proves little", counted, extra)
	}
}
