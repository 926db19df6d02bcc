package rules

import (
	"math/rand"
	"testing"
)

// TestSameLineSpanIsValueSpansFirst holds invoiceNumberFact's short cut to
// valueSpans: for every line of the corpus, dev-set and synthetic texts and
// label ends along it, sameLineSpan is valueSpans' first place.
func TestSameLineSpanIsValueSpansFirst(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, pat := range []string{"../../fixtures/*/*.txt", "../../fixtures/*/*/*.txt", "testdata/dev/*.txt",
		"/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt"} {
		texts = append(texts, globTexts(t, pat)...)
	}
	r := rand.New(rand.NewSource(11))
	for range 100 {
		text, _ := synthInvoice(r)
		texts = append(texts, text)
	}
	texts = raceSample(texts)
	checked := 0
	for _, text := range texts {
		d := newDocument(text)
		for i, ln := range d.lines {
			for _, le := range []int{0, len(ln.raw) / 3, len(ln.raw) / 2, len(ln.raw)} {
				ls := le / 2
				if got, want := sameLineSpan(ln, i, le), d.valueSpans(i, ls, le)[0]; got != want {
					t.Fatalf("line %q, label [%d,%d): sameLineSpan = %+v, valueSpans[0] = %+v", ln.raw, ls, le, got, want)
				}
				checked++
			}
		}
	}
	if checked < atLeast(10000) {
		t.Fatalf("only %d label spans checked: the test would prove little", checked)
	}
}
