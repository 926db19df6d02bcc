package rules

import "testing"

// TestPreTaxSum pins the cross-check of dropPreTax: a labelled sum that,
// plus the tax under it, makes a later labelled amount is before tax; a sum
// the arithmetic does not tie to a later total, and a gross total printed
// after its tax, stay.
func TestPreTaxSum(t *testing.T) {
	t.Parallel()
	runLabelledTotals(t, []labelledTotalCase{
		{"gross amount before its tax", "GROSS AMOUNT:   40.00\nTOTAL GST AMT:   2.40\nTOTAL (RM):     42.40\nCASH:           50.00\n", 4240},
		{"the sums do not tie", "GROSS AMOUNT:   40.00\nTOTAL GST AMT:   2.50\nTOTAL (RM):     42.40\n", 4000},
		{"the line under is no tax", "GROSS AMOUNT:   40.00\nDEPOSIT:         2.40\nTOTAL (RM):     42.40\n", 4000},
		{"tax too far below", "GROSS AMOUNT:   40.00\nA\nB\nC\nTOTAL GST AMT:   2.40\nTOTAL (RM):     42.40\n", 4000},
		{"invoice gross after its tax", "Net amount:   EUR 100.00\nVAT 20 %:     EUR 20.00\nGross amount: EUR 120.00\n", 12000},
	})
}

// labelledTotalCase is a text and the total findTotalLabelled should read
// in it (-1: null).
type labelledTotalCase struct {
	name, text string
	want       int64
}

func runLabelledTotals(t *testing.T, tests []labelledTotalCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := newDocument(tc.text).findTotalLabelled()
			switch {
			case got == nil && tc.want >= 0:
				t.Errorf("total = null, want %d", tc.want)
			case got != nil && *got != tc.want:
				t.Errorf("total = %d, want %d", *got, tc.want)
			}
		})
	}
}
