package rules

import (
	"strings"
	"testing"
	"time"
)

// TestLongInputs keeps the extractor near-linear on large, odd inputs (the
// bound is loose so that it holds under -race on a busy machine).
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
	for name, text := range inputs {
		if raceOn {
			text = text[:len(text)/4]
		}
		start := time.Now()
		got := Extract(text)
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: %v", name, d)
		}
		checkInvariants(t, text, got)
		checkV2Invariants(t, text)
	}
}
