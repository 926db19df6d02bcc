// Package compare measures how far two schema versions agree on the same
// documents: the report behind invx compare, the check of a shadow rollout
// (run a new version with --shadow beside the old one, compare, then switch).
//
// Documents are matched by tenant and source digest, so the same text
// found under another path is still the same document. Only facts both
// versions state are compared (Fields); a version's facts are projected
// onto those shared names by a function per version, never by re-reading a
// result as another version.
package compare

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/invx/invx/schema"
)

// Fields are the facts compared, in report order.
var Fields = []string{"supplier_name", "invoice_number", "currency", "total_minor", "due_date", "action_kinds"}

// Doc is one committed result to compare.
type Doc struct {
	Tenant       string
	SourceDigest string
	// Path is the document's path as the user named it, for the report.
	Path    string
	JobKey  string
	Version string
	JSON    []byte
	// Shadow marks a result committed with --shadow.
	Shadow bool
}

// Report is what Compare found.
type Report struct {
	Schema string `json:"schema"`
	With   string `json:"with"`
	// Compared counts documents with a result under both versions; Only*
	// count those with a result under one of them, which are not compared.
	Compared   int `json:"compared"`
	OnlySchema int `json:"only_schema"`
	OnlyWith   int `json:"only_with"`
	// Fields holds one entry per compared fact, in Fields order.
	Fields []FieldAgreement `json:"fields"`
	// Differences lists every (document, fact) pair the versions disagree
	// on, by tenant, path and fact.
	Differences []Difference `json:"differences"`
}

// FieldAgreement counts the compared documents whose values of one fact
// are equal (both null counts as equal: both versions say the document
// does not state it).
type FieldAgreement struct {
	Field   string  `json:"field"`
	Agree   int     `json:"agree"`
	Differ  int     `json:"differ"`
	Percent float64 `json:"percent"`
}

// Difference is one fact of one document on which the versions disagree.
// A nil value is a null fact.
type Difference struct {
	Tenant     string  `json:"tenant"`
	Path       string  `json:"path"`
	SchemaKey  string  `json:"schema_job_key"`
	WithKey    string  `json:"with_job_key"`
	Field      string  `json:"field"`
	SchemaVal  *string `json:"schema_value"`
	WithVal    *string `json:"with_value"`
	WithShadow bool    `json:"with_shadow,omitempty"`
}

// facts are a result's values of Fields, as comparable strings.
type facts map[string]*string

// project maps a stored result of its version onto Fields.
//
// total_minor is compared as a magnitude of what the document asks to be
// paid: v1's total_minor is the amount due, always positive; v2 states the
// amount due apart from the gross total and signs a credit note negative,
// so v2 contributes |amount_due_minor| when it states one, else
// |total_minor|. action_kinds are the distinct kinds, sorted, joined by ";".
func project(version string, raw []byte) (facts, error) {
	switch version {
	case schema.V1:
		d, err := schema.DecodeStoredV1(raw)
		if err != nil {
			return nil, err
		}
		in := d.Invoice
		return facts{"supplier_name": in.SupplierName, "invoice_number": in.InvoiceNumber, "currency": in.Currency,
			"total_minor": magnitude(in.TotalMinor), "due_date": in.DueDate, "action_kinds": kinds(d.ActionItems)}, nil
	case schema.V2:
		d, err := schema.DecodeStoredV2(raw)
		if err != nil {
			return nil, err
		}
		total := d.AmountDueMinor
		if total == nil {
			total = d.TotalMinor
		}
		return facts{"supplier_name": d.SupplierName, "invoice_number": d.InvoiceNumber, "currency": d.Currency,
			"total_minor": magnitude(total), "due_date": d.DueDate, "action_kinds": kinds(d.ActionItems)}, nil
	}
	return nil, fmt.Errorf("schema %s: compare does not know this version's fields", version)
}

// Comparable reports whether compare knows version's facts.
func Comparable(version string) bool { return version == schema.V1 || version == schema.V2 }

func magnitude(p *int64) *string {
	if p == nil {
		return nil
	}
	v := *p
	if v < 0 {
		v = -v
	}
	s := strconv.FormatInt(v, 10)
	return &s
}

func kinds(items []schema.ActionItem) *string {
	var ks []string
	for _, a := range items {
		if !slices.Contains(ks, a.Kind) {
			ks = append(ks, a.Kind)
		}
	}
	slices.Sort(ks)
	s := strings.Join(ks, ";")
	return &s
}

type docKey struct{ tenant, digest string }

// Compare compares the results of versions a and b among docs; results of
// other versions are ignored. An error means a result could not be read
// as the version it was stored under.
func Compare(a, b string, docs []Doc) (*Report, error) {
	if a == b {
		return nil, fmt.Errorf("compare %s with itself: name two versions", a)
	}
	for _, v := range []string{a, b} {
		if !Comparable(v) {
			return nil, fmt.Errorf("schema %s: compare does not know this version's fields", v)
		}
	}
	as, bs := map[docKey]*Doc{}, map[docKey]*Doc{}
	for i := range docs {
		d := &docs[i]
		switch d.Version {
		case a:
			as[docKey{d.Tenant, d.SourceDigest}] = d
		case b:
			bs[docKey{d.Tenant, d.SourceDigest}] = d
		}
	}
	r := &Report{Schema: a, With: b, Differences: []Difference{}}
	agree := make([]int, len(Fields))
	for k, da := range as {
		db, ok := bs[k]
		if !ok {
			r.OnlySchema++
			continue
		}
		r.Compared++
		fa, err := project(a, da.JSON)
		if err != nil {
			return nil, fmt.Errorf("read %s result of job %s: %w", a, da.JobKey, err)
		}
		fb, err := project(b, db.JSON)
		if err != nil {
			return nil, fmt.Errorf("read %s result of job %s: %w", b, db.JobKey, err)
		}
		for i, f := range Fields {
			if equal(fa[f], fb[f]) {
				agree[i]++
				continue
			}
			r.Differences = append(r.Differences, Difference{Tenant: k.tenant, Path: da.Path, SchemaKey: da.JobKey,
				WithKey: db.JobKey, Field: f, SchemaVal: fa[f], WithVal: fb[f], WithShadow: db.Shadow})
		}
	}
	for k := range bs {
		if _, ok := as[k]; !ok {
			r.OnlyWith++
		}
	}
	for i, f := range Fields {
		fa := FieldAgreement{Field: f, Agree: agree[i], Differ: r.Compared - agree[i]}
		if r.Compared > 0 {
			fa.Percent = float64(agree[i]) * 100 / float64(r.Compared)
		}
		r.Fields = append(r.Fields, fa)
	}
	slices.SortFunc(r.Differences, func(x, y Difference) int {
		return cmp.Or(strings.Compare(x.Tenant, y.Tenant), strings.Compare(x.Path, y.Path),
			strings.Compare(x.SchemaKey, y.SchemaKey), cmp.Compare(slices.Index(Fields, x.Field), slices.Index(Fields, y.Field)))
	})
	return r, nil
}

func equal(x, y *string) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return *x == *y
}
