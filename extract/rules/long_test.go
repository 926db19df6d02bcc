package rules

import (
	"strings"
	"testing"
)

// TestLongInputs runs the extractor on large, odd inputs and checks its
// invariants; a blow-up shows as go test's timeout, and the speed is
// BenchmarkRulesExtract's business, never a timed assertion.
func TestLongInputs(t *testing.T) {
	t.Parallel()
	inputs := map[string]string{
		"long line of amounts": "Total " + strings.Repeat("1.234,56 € ", 3000),
		"long line of labels":  strings.Repeat("Invoice No. Due date Total PO ", 1000),
		"many lines":           strings.Repeat("Invoice No.:\nTotal:\n12,00\n", 1000),
		"many cells":           strings.Repeat("Total   12,00   ", 2000),
		"digits":               strings.Repeat("1", 50000),
		"spaces":               strings.Repeat(" ", 50000) + "Total 1,00 EUR",
	}
	for _, text := range inputs {
		if raceOn {
			text = text[:len(text)/4]
		}
		got := Extract(text)
		checkInvariants(t, text, got)
		checkV2Invariants(t, text)
	}
}
