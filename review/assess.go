package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// defaultRequire are the fields a result needs to be paid, per schema
// version, when the tenant has no policy (DESIGN.md, "Review policy").
var defaultRequire = map[string][]string{
	schema.V1: {"supplier_name", "invoice_number", "currency", "total_minor"},
	schema.V2: {"document_type", "supplier_name", "invoice_number", "issue_date", "currency", "total_minor"},
}

// requirable are the facts a policy may require, per version, in schema
// order.
var requirable = map[string][]string{
	schema.V1: {"supplier_name", "invoice_number", "currency", "total_minor", "due_date"},
	schema.V2: {"document_type", "supplier_name", "supplier_vat_id", "supplier_iban", "buyer_name",
		"invoice_number", "issue_date", "due_date", "po_number", "currency",
		"net_minor", "tax_minor", "total_minor", "amount_due_minor"},
}

// DefaultRequire returns the fields version requires without a policy.
func DefaultRequire(version string) []string {
	return slices.Clone(defaultRequire[version])
}

// Requirable returns the facts of version a policy may require.
func Requirable(version string) []string {
	return slices.Clone(requirable[version])
}

// CheckRequire reports the first field of require that no released version
// has, so a policy typo is refused when it is set rather than silently
// requiring nothing. A field only one version has is accepted: a policy is
// per tenant, not per version, and applies to the versions that have it.
func CheckRequire(require []string) error {
	for _, f := range require {
		if !slices.Contains(requirable[schema.V1], f) && !slices.Contains(requirable[schema.V2], f) {
			return fmt.Errorf("field %q cannot be required (fields: %s)", f, strings.Join(requirable[schema.V2], ", "))
		}
	}
	return nil
}

// Missing returns the fields of require that res leaves null, in the
// order of require. A field res's version does not have is not missing. A
// v2 document_type of "other" counts as missing: the extractor could not
// tell what the document is, which is exactly what a clerk must look at.
func Missing(res *schema.Result, require []string) []string {
	have := requirable[res.Version]
	var out []string
	for _, f := range require {
		if !slices.Contains(have, f) {
			continue
		}
		if isNull(res, f) {
			out = append(out, f)
		}
	}
	return out
}

func isNull(res *schema.Result, field string) bool {
	if d := res.InvoiceV2; d != nil {
		switch field {
		case "document_type":
			return d.DocumentType == "" || d.DocumentType == schema.DocOther
		case "supplier_name":
			return d.SupplierName == nil
		case "supplier_vat_id":
			return d.SupplierVATID == nil
		case "supplier_iban":
			return d.SupplierIBAN == nil
		case "buyer_name":
			return d.BuyerName == nil
		case "invoice_number":
			return d.InvoiceNumber == nil
		case "issue_date":
			return d.IssueDate == nil
		case "due_date":
			return d.DueDate == nil
		case "po_number":
			return d.PONumber == nil
		case "currency":
			return d.Currency == nil
		case "net_minor":
			return d.NetMinor == nil
		case "tax_minor":
			return d.TaxMinor == nil
		case "total_minor":
			return d.TotalMinor == nil
		case "amount_due_minor":
			return d.AmountDueMinor == nil
		}
		return false
	}
	f := res.Facts
	switch field {
	case "supplier_name":
		return f.SupplierName == nil
	case "invoice_number":
		return f.InvoiceNumber == nil
	case "currency":
		return f.Currency == nil
	case "total_minor":
		return f.TotalMinor == nil
	case "due_date":
		return f.DueDate == nil
	}
	return false
}

// Identity returns the keys the store compares to find a possible
// duplicate of res: supplier (VAT id, name) and invoice number, with the
// total (v1: the amount due; v2: the gross total) and issue date a
// duplicate's detail reports agreement on. nil when res has no invoice
// number or no supplier at all: nothing to compare.
func Identity(res *schema.Result) *store.DocIdentity {
	var vat, name, number, issue *string
	var total *int64
	if d := res.InvoiceV2; d != nil {
		vat, name, number, issue, total = d.SupplierVATID, d.SupplierName, d.InvoiceNumber, d.IssueDate, d.TotalMinor
	} else {
		name, number, total = res.Facts.SupplierName, res.Facts.InvoiceNumber, res.Facts.TotalMinor
	}
	id := &store.DocIdentity{VATKey: VATKey(vat), NameKey: NameKey(name), NumberKey: NormalizeInvoiceNumber(number),
		TotalMinor: total, IssueDate: issue}
	if id.NumberKey == "" || (id.VATKey == "" && id.NameKey == "") {
		return nil
	}
	return id
}

// incompleteDetail is the Detail of an incomplete reason.
type incompleteDetail struct {
	Missing []string `json:"missing"`
}

// arithmeticDetail is the Detail of an arithmetic reason: the validator's
// paths and messages, which name keys and tolerances, never amounts.
type arithmeticDetail struct {
	Problems []problem `json:"problems"`
}

type problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Assess returns what a commit of res brings for review: an incomplete
// reason when a required field is null, an arithmetic reason for the
// reviewable problems validation let through (res.Review), and the
// identity the store checks for duplicates. Never nil: a result without
// reasons still carries its identity.
func Assess(res *schema.Result, require []string) *store.CommitReview {
	out := &store.CommitReview{Identity: Identity(res)}
	if miss := Missing(res, require); len(miss) > 0 {
		b, _ := json.Marshal(incompleteDetail{Missing: miss})
		out.Reasons = append(out.Reasons, store.ReviewReason{Reason: store.ReasonIncomplete, Detail: b})
	}
	if len(res.Review) > 0 {
		d := arithmeticDetail{}
		for _, e := range res.Review {
			d.Problems = append(d.Problems, problem{Path: e.Path, Message: e.Msg})
		}
		b, _ := json.Marshal(d)
		out.Reasons = append(out.Reasons, store.ReviewReason{Reason: store.ReasonArithmetic, Detail: b})
	}
	return out
}

// PolicyReader reads a tenant's stored policy (store.Store has it).
type PolicyReader interface {
	GetPolicy(ctx context.Context, p *store.GetPolicyParams) (*store.Policy, error)
}

// StoredRequire returns tenant's stored policy: its fields and true, or
// nil and false when the tenant has none. A stored empty list comes back
// empty and non-nil: the tenant chose to require nothing, which is not the
// same as having no policy.
func StoredRequire(ctx context.Context, st PolicyReader, tenant string) ([]string, bool, error) {
	p, err := st.GetPolicy(ctx, &store.GetPolicyParams{Tenant: tenant})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read review policy of tenant %s: %w", tenant, err)
	}
	return append([]string{}, p.Require...), true, nil
}

// Require is the policy a result of version is checked against for
// tenant: the stored one, else the version's default.
func Require(ctx context.Context, st PolicyReader, tenant, version string) ([]string, error) {
	req, ok, err := StoredRequire(ctx, st, tenant)
	if err != nil || ok {
		return req, err
	}
	return DefaultRequire(version), nil
}
