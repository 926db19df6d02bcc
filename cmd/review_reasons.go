package cmd

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// reviewReasons are the review reasons of committed results, in the order
// invx review groups them: a possible second payment first.
var reviewReasons = []string{store.ReasonPossibleDuplicate, store.ReasonIncomplete, store.ReasonArithmetic}

// reviewKinds are the values of --reason: the review reasons, then the job
// states and skipped files invx review also lists.
var reviewKinds = append(slices.Clone(reviewReasons), store.StateHeld, store.StateFailed, store.StateRejected, stateSkipped)

// reviewValues are the values of a committed result a clerk decides on.
// Every key is always there (null when the result does not state it), so
// scripts can rely on the names. The IBAN is never among them.
type reviewValues struct {
	ResultID      int64   `json:"id"`
	Revision      int     `json:"revision"`
	SupplierName  *string `json:"supplier_name"`
	InvoiceNumber *string `json:"invoice_number"`
	// IssueDate is null for v1, which has none.
	IssueDate  *string `json:"issue_date"`
	Currency   *string `json:"currency"`
	TotalMinor *int64  `json:"total_minor"`
	// Total is TotalMinor as a decimal of Currency ("5385.35").
	Total *string `json:"total"`
}

// reviewProblem is one arithmetic problem of a result.
type reviewProblem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// reviewDuplicate names the other result of a possible duplicate.
type reviewDuplicate struct {
	JobKey        string `json:"job_key"`
	Path          string `json:"path"`
	SchemaVersion string `json:"schema_version"`
	TotalsAgree   *bool  `json:"totals_agree"`
	DatesAgree    *bool  `json:"dates_agree"`

	// sourcePath is the other job's path in its folder, as the table's
	// PATH column shows paths.
	sourcePath string
}

// reasonItems turns the tenant's open review reasons (all of them, or of
// one reason) into review entries, grouped by reason in reviewReasons
// order, oldest first within a group, with their results' values.
func reasonItems(ctx context.Context, st store.Store, tenant, reason string) ([]reviewItem, error) {
	open, err := st.ListReview(ctx, &store.ListReviewParams{Tenant: tenant, Reason: reason})
	if err != nil {
		return nil, err
	}
	if len(open) == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(open))
	for _, it := range open {
		ids = append(ids, it.ResultID)
	}
	results, err := st.GetResults(ctx, &store.GetResultsParams{IDs: ids})
	if err != nil {
		return nil, err
	}
	jobs := map[string]*store.Job{}
	var out []reviewItem
	for _, group := range reviewReasons {
		for _, it := range open {
			if it.Reason != group {
				continue
			}
			j, ok := jobs[it.JobKey]
			if !ok {
				if j, err = st.GetJob(ctx, &store.GetJobParams{Tenant: it.Tenant, Ref: it.JobKey}); err != nil {
					return nil, fmt.Errorf("review: job %s: %w", shortKey(it.JobKey), err)
				}
				jobs[it.JobKey] = j
			}
			e := reviewItem{JobKey: it.JobKey, Tenant: it.Tenant, State: it.Reason, SourceSystem: j.SourceSystem,
				SourcePath: j.SourcePath, DisplayPath: it.Path, SchemaVersion: it.SchemaVersion, Attempts: j.Attempts,
				Digest: j.SourceDigest, UpdatedAt: ts(it.OpenedAt), opened: it.OpenedAt}
			if res, ok := results[it.ResultID]; ok {
				v, err := valuesOf(res)
				if err != nil {
					return nil, fmt.Errorf("review: result of job %s: %w", shortKey(it.JobKey), err)
				}
				e.Result = v
			}
			if err := e.readDetail(it.Detail); err != nil {
				return nil, fmt.Errorf("review: %s of job %s: %w", it.Reason, shortKey(it.JobKey), err)
			}
			if d := e.Duplicate; d != nil {
				other, err := st.GetJob(ctx, &store.GetJobParams{Tenant: it.Tenant, Ref: d.JobKey})
				switch {
				case err == nil:
					d.sourcePath = other.SourcePath
				case !errors.Is(err, store.ErrNotFound):
					return nil, err
				}
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// readDetail fills the entry's reason-specific part from the stored
// detail: the missing fields, the arithmetic problems, the other job.
func (e *reviewItem) readDetail(detail []byte) error {
	if len(detail) == 0 {
		return nil
	}
	switch e.State {
	case store.ReasonIncomplete:
		var d struct {
			Missing []string `json:"missing"`
		}
		if err := json.Unmarshal(detail, &d); err != nil {
			return err
		}
		e.Missing = d.Missing
	case store.ReasonArithmetic:
		var d struct {
			Problems []reviewProblem `json:"problems"`
		}
		if err := json.Unmarshal(detail, &d); err != nil {
			return err
		}
		e.Problems = d.Problems
	case store.ReasonPossibleDuplicate:
		var d store.DuplicateDetail
		if err := json.Unmarshal(detail, &d); err != nil {
			return err
		}
		e.Duplicate = &reviewDuplicate{JobKey: d.JobKey, Path: d.Path, SchemaVersion: d.SchemaVersion,
			TotalsAgree: d.TotalsAgree, DatesAgree: d.DatesAgree}
	}
	return nil
}

// valuesOf reads the values a clerk decides on from a stored result.
func valuesOf(res *store.Result) (*reviewValues, error) {
	v := &reviewValues{ResultID: res.ID, Revision: res.Revision}
	switch res.SchemaVersion {
	case schema.V2:
		d, err := schema.DecodeStoredV2(res.JSON)
		if err != nil {
			return nil, err
		}
		v.SupplierName, v.InvoiceNumber, v.IssueDate, v.Currency, v.TotalMinor =
			d.SupplierName, d.InvoiceNumber, d.IssueDate, d.Currency, d.TotalMinor
	case schema.V1:
		d, err := schema.DecodeStoredV1(res.JSON)
		if err != nil {
			return nil, err
		}
		f := d.Invoice
		v.SupplierName, v.InvoiceNumber, v.Currency, v.TotalMinor = f.SupplierName, f.InvoiceNumber, f.Currency, f.TotalMinor
	default:
		return nil, fmt.Errorf("schema %q has no review values", res.SchemaVersion)
	}
	if v.TotalMinor != nil {
		s := schema.FormatMinor(*v.TotalMinor, deref(v.Currency))
		v.Total = &s
	}
	return v, nil
}

// reasonText says in one line why a committed result needs a person.
func reasonText(it *reviewItem) string {
	switch it.State {
	case store.ReasonIncomplete:
		return "missing " + strings.Join(it.Missing, ", ")
	case store.ReasonArithmetic:
		var ps []string
		for _, p := range it.Problems {
			ps = append(ps, p.Path+": "+p.Message)
		}
		return strings.Join(ps, "; ")
	case store.ReasonPossibleDuplicate:
		d := it.Duplicate
		if d == nil {
			return "possible duplicate"
		}
		return fmt.Sprintf("same supplier and number as %s (%s): totals %s, dates %s",
			shortKey(d.JobKey), cmp.Or(d.sourcePath, d.Path), agree(d.TotalsAgree), agree(d.DatesAgree))
	}
	return it.State
}

func agree(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "agree"
	default:
		return "differ"
	}
}

// valueCells are the SCHEMA, SUPPLIER, NUMBER, DATE and TOTAL cells of an
// entry; "-" where there is nothing (a null fact, or an entry without a
// result).
func valueCells(it *reviewItem) []string {
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
	if kind == "" || slices.Contains(reviewKinds, kind) {
		return nil
	}
	return &usageError{err: errors.New("review: unknown --reason " + fmt.Sprintf("%q", kind) + " (one of " + strings.Join(reviewKinds, ", ") + ")"),
		try: "invx review --reason " + store.ReasonPossibleDuplicate}
}
