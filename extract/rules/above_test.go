package rules

import (
	"strings"
	"testing"
)

// TestAboveSpanPairsByTheRunsEnds holds the pairing of an alternating column
// of lone amounts and lone labels to the column's ends: amounts above the
// labels only when the column opens with an amount and closes with a label.
func TestAboveSpanPairsByTheRunsEnds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		label string // the label line asked about
		want  string // the line its value is read from ("": none found)
	}{
		{"amounts above: opens with an amount, closes with a label",
			[]string{"      93.40", "  SUB TOTAL :", "       5.60", "  TOTAL GST :", "      99.00", "      TOTAL :", "     100.00", "       CASH :", "       1.00", "     CHANGE :", "THANK YOU"},
			"      TOTAL :", "      99.00"},
		{"amounts below: opens with a label",
			[]string{"  SUB TOTAL :", "      93.40", "  TOTAL GST :", "       5.60", "      TOTAL :", "      99.00", "       CASH :", "     100.00", "THANK YOU"},
			"      TOTAL :", "      99.00"},
		{"opens and closes with an amount: read below as before",
			[]string{"       4.00", "  SUB TOTAL :", "      93.40", "  TOTAL GST :", "       5.60", "      TOTAL :", "      99.00", "THANK YOU"},
			"      TOTAL :", "      99.00"},
		{"one amount above one label is too little to tell",
			[]string{"ITEM A        12.00", "      88.00", "      TOTAL :", "      99.00", "THANK YOU"},
			"      TOTAL :", "      99.00"},
		{"a lone integer is no amount of the column",
			[]string{"          2", "  SUB TOTAL :", "          9", "      TOTAL :", "THANK YOU"},
			"      TOTAL :", "THANK YOU"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDocument(strings.Join(tc.lines, "\n"))
			defer d.release()
			i := -1
			for k, ln := range d.lines {
				if ln.raw == tc.label {
					i = k
				}
			}
			if i < 0 {
				t.Fatalf("label line %q not in the document", tc.label)
			}
			ls := strings.Index(tc.label, "TOTAL")
			got := ""
			for _, sp := range d.valueSpans(i, ls, len(tc.label))[1:] {
				got = d.lines[sp.line].raw
				break
			}
			if got != tc.want {
				t.Errorf("value of %q read from %q, want %q", tc.label, got, tc.want)
			}
		})
	}
}
