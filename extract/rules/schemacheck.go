package rules

import (
	"encoding/json"

	"github.com/invx/invx/schema"
)

// v2Version is invoice-v2's validator, looked up once.
var v2Version = onFirstUse(func() *schema.Version {
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		panic("rules: " + err.Error()) // a build without invoice-v2 is a programming error
	}
	return v
})

// schemaAccepts reports whether invoice-v2's validator accepts a minimal
// document with the facts set by set, source being the whole text. The
// finders ask it whether a VAT id or an IBAN passes the schema's own syntax
// and checksum rules, so the two never drift apart: the schema, not a copy
// of its tables here, is the authority.
func schemaAccepts(source string, set func(*schema.InvoiceV2)) bool {
	doc := minimalV2()
	set(&doc)
	b, err := json.Marshal(doc)
	if err != nil {
		return false
	}
	_, err = v2Version().ValidateReviewable(b, source)
	return err == nil
}

func minimalV2() schema.InvoiceV2 {
	return schema.InvoiceV2{
		SchemaVersion: schema.V2,
		DocumentType:  schema.DocOther,
		Title:         "t",
		Bullets:       []string{"b"},
		TaxLines:      []schema.TaxLine{},
		LineItems:     []schema.LineItem{},
		ActionItems:   []schema.ActionItem{},
	}
}

// validVATID reports whether the compact id passes the schema's VAT id check.
func validVATID(id string) bool {
	return schemaAccepts(id, func(d *schema.InvoiceV2) {
		d.SupplierVATID, d.Evidence.SupplierVATID = &id, &id
	})
}

// validIBAN reports whether the electronic-form IBAN passes the schema's
// IBAN check (registry country and length, mod 97).
func validIBAN(iban string) bool {
	return schemaAccepts(iban, func(d *schema.InvoiceV2) {
		d.SupplierIBAN, d.Evidence.SupplierIBAN = &iban, &iban
	})
}
