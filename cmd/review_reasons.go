package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/invx/invx/review"
	"github.com/invx/invx/store"
)

// valueCells are the SCHEMA, SUPPLIER, NUMBER, DATE and TOTAL cells of an
// entry; "-" where there is nothing (a null fact, or an entry without a
// result).
func valueCells(it *review.Item) []string {
	schemaName := it.SchemaVersion
	if it.State == stateSkipped {
		schemaName = ""
	}
	v := it.Result
	if v == nil {
		return []string{dash(schemaName), "-", "-", "-", "-"}
	}
	total := ""
	if v.Total != nil {
		total = strings.TrimSpace(*v.Total + " " + deref(v.Currency))
	}
	return []string{dash(schemaName), dash(deref(v.SupplierName)), dash(deref(v.InvoiceNumber)), dash(deref(v.IssueDate)), dash(total)}
}

// checkReviewKind checks --reason.
func checkReviewKind(kind string) error {
	if kind == "" || slices.Contains(review.Kinds, kind) {
		return nil
	}
	return &usageError{err: errors.New("review: unknown --reason " + fmt.Sprintf("%q", kind) + " (one of " + strings.Join(review.Kinds, ", ") + ")"),
		try: "invx review --reason " + store.ReasonPossibleDuplicate}
}
