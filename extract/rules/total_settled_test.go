package rules

import "testing"

// TestSettledTotal pins adjustedLater: an earlier total that, with the
// charges, taxes, roundings and deductions printed under it, makes a later
// total is not the amount payable, whichever label reads stronger; an
// addition nobody labels, a later total too far below, or a table row
// between leave the labels to decide, and two equal labels that disagree
// without a cross-check give no total (rivalTotal).
func TestSettledTotal(t *testing.T) {
	t.Parallel()
	runLabelledTotals(t, []labelledTotalCase{
		{"charge, tax and rounding", "TOTAL AMOUNT :   49.60\nSERV CHARGE 10%   4.96\nGST @ 6%          3.27\nROUNDING ADJ :   -0.03\nTOTAL :          57.80\n", 5780},
		{"a deposit deducted", "Invoice total    EUR 10,588.27\nLess deposit received\n  02/03/2026     -EUR 5,000.00\nTotal            EUR 5,588.27\n", 558827},
		{"an unlabelled addition", "TOTAL AMOUNT :   40.00\nBAG              2.40\nTOTAL :          42.40\n", 4000},
		{"too far below", "TOTAL AMOUNT :   40.00\nSERV CHARGE 10%   4.00\nA\nB\nC\nTOTAL :          44.00\n", 4000},
		{"near enough", "TOTAL AMOUNT :   40.00\nSERV CHARGE 10%   4.00\nA\nB\nTOTAL :          44.00\n", 4400},
		{"a table row between", "TOTAL AMOUNT :   40.00\nSERV CHARGE 10%   4.00   4.00\nTOTAL :          44.00\n", 4000},
		{"another total between", "TOTAL AMOUNT :   10.00\nSERV CHARGE 10%   1.00\nTOTAL :          12.00\nTOTAL :          11.00\n", 1000},
		{"the sums do not tie", "TOTAL AMOUNT :   49.60\nSERV CHARGE 10%   4.96\nTOTAL :          57.80\n", 4960},
		{"two equal labels disagree", "TOTAL AMOUNT :   49.60\nSERV CHARGE 10%   4.96\nTOTAL AMOUNT :   57.80\n", -1},
		{"two equal labels, a rounding apart", "TOTAL :   102.39\n          0.01\nTOTAL :   102.40\n", 10240},
		{"two equal labels, one zero", "TOTAL :   0.00\nTOTAL :   327.00\n", 32700},
		{"two equal labels, a cross-check", "TOTAL AMOUNT :   49.60\nSERV CHARGE 10%   4.96\nTOTAL AMOUNT :   54.56\n", 5456},
	})
}
