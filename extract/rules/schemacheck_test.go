package rules

import (
	"fmt"
	"testing"
)

// TestIDCheckerBudget checks that the schema is asked about at most
// maxIDChecks ids per document, that answers are remembered, and that the
// local checksum keeps a bad IBAN from reaching the schema at all.
func TestIDCheckerBudget(t *testing.T) {
	t.Parallel()
	c := newIDChecker()
	valid := 0
	for n := range maxIDChecks + 50 {
		if c.vatID(fmt.Sprintf("DE%09d", n)) {
			valid++
		}
	}
	if valid != maxIDChecks {
		t.Errorf("%d ids accepted, want the budget %d", valid, maxIDChecks)
	}
	if !c.vatID("DE000000000") {
		t.Errorf("a remembered answer was lost once the budget was spent")
	}
	c = newIDChecker()
	if c.iban("DE12670923000033447100") || c.budget != maxIDChecks {
		t.Errorf("a bad checksum reached the schema (budget %d)", c.budget)
	}
	if !c.iban("DE89370400440532013000") || c.budget != maxIDChecks-1 {
		t.Errorf("a good IBAN was refused (budget %d)", c.budget)
	}
}
