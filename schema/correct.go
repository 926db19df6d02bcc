package schema

import (
	"fmt"
	"slices"
	"strings"
)

// checks relax validation for a person's correction. The zero value is
// the full validation a provider's answer gets.
type checks struct {
	// corrected are the facts (invoice-v2 names) a person typed: their
	// evidence is not required, and is set to null.
	corrected map[string]bool
	// noSource: the document text is no longer stored (pruned), so
	// evidence is not looked up in it. The evidence a correction keeps was
	// checked against the text when the result was committed.
	noSource bool
}

// correctable are the fields a correction may set, per version: the facts
// (v1 also as invoice.NAME, its path in the document) and v2's
// document_type.
var correctable = map[string][]string{
	V1: {"supplier_name", "invoice_number", "currency", "total_minor", "due_date"},
	V2: append([]string{"document_type"}, v2FactNames...),
}

// CorrectableFields returns the fields of the version a person may correct,
// in schema order (v1 facts without their "invoice." prefix).
func (v *Version) CorrectableFields() []string {
	return slices.Clone(correctable[v.Name])
}

// CorrectableField returns the canonical name of field ("invoice.total_minor"
// is v1's total_minor), or false when the version has no such correctable
// field.
func (v *Version) CorrectableField(field string) (string, bool) {
	if v.Name == V1 {
		field = strings.TrimPrefix(field, "invoice.")
	}
	if slices.Contains(correctable[v.Name], field) {
		return field, true
	}
	return "", false
}

// ValidateCorrection validates raw, a stored result of this version with
// fields changed by a person, exactly as ValidateReviewable does, with two
// differences. The facts named in corrected (see CorrectableField) need no
// evidence: a person typed them, so whatever evidence raw gives them is
// ignored and set to null in the result. Corrected names every fact a
// person has typed, in this correction and in the earlier revisions the
// stored result carries: their evidence is already null. And when source is empty (the
// text was pruned) evidence is not looked up in the text; the evidence of
// the facts not corrected was checked against it at commit, and their
// value is still checked against their evidence. Arithmetic problems come
// back in Result.Review, for review.Assess to reopen.
//
// The error is a *ValidationError for a document that does not validate,
// or a plain error for a corrected name the version does not have.
func (v *Version) ValidateCorrection(raw []byte, source string, corrected []string) (*Result, error) {
	c := checks{corrected: map[string]bool{}, noSource: source == ""}
	for _, f := range corrected {
		name, ok := v.CorrectableField(f)
		if !ok {
			return nil, fmt.Errorf("%s has no correctable field %q (fields: %s)", v.Name, f,
				strings.Join(correctable[v.Name], ", "))
		}
		c.corrected[name] = true
	}
	res, verr := v.validate(v, raw, source, c)
	if verr != nil {
		return nil, verr
	}
	return res, nil
}

// nullEvidence sets the evidence of the corrected facts to null.
func nullEvidence(ev *EvidenceV2, corrected map[string]bool) {
	if len(corrected) == 0 {
		return // a provider's answer: nothing to clear, no table to build
	}
	for name, p := range map[string]**string{
		"supplier_name": &ev.SupplierName, "supplier_vat_id": &ev.SupplierVATID, "supplier_iban": &ev.SupplierIBAN,
		"buyer_name": &ev.BuyerName, "invoice_number": &ev.InvoiceNumber, "issue_date": &ev.IssueDate,
		"due_date": &ev.DueDate, "po_number": &ev.PONumber, "currency": &ev.Currency, "net_minor": &ev.NetMinor,
		"tax_minor": &ev.TaxMinor, "total_minor": &ev.TotalMinor, "amount_due_minor": &ev.AmountDueMinor,
	} {
		if corrected[name] {
			*p = nil
		}
	}
}
