package cmd

import (
	"bytes"
	"encoding/json"

	"github.com/invx/invx/schema"
)

// ibanHidden replaces a text that holds an IBAN invx could not locate in it
// exactly enough to mask: hiding the whole text beats printing a number.
const ibanHidden = "[hidden: holds the IBAN; --reveal shows it]"

// maskV2 hides the supplier IBAN of an invoice-v2 document for a listing:
// the fact itself becomes MaskIBAN's "DE89…3000", and every text of the
// document that repeats it (its evidence, a title, a bullet, an action's
// evidence) has the number masked in place. Listings print IBANs this way
// everywhere except invx export (a clerk pays from it) and show --reveal.
// It changes d and returns the IBAN it hid ("" when there is none).
func maskV2(d *schema.InvoiceV2) string {
	if d.SupplierIBAN == nil {
		return ""
	}
	iban := *d.SupplierIBAN
	m := schema.MaskIBAN(iban)
	d.SupplierIBAN = &m
	if e := d.Evidence.SupplierIBAN; e != nil {
		// The evidence of the IBAN must hold it; if it cannot be found the
		// whole excerpt is hidden.
		s, found := schema.MaskIBANIn(*e, iban)
		if !found {
			s = ibanHidden
		}
		d.Evidence.SupplierIBAN = &s
	}
	d.Title, _ = schema.MaskIBANIn(d.Title, iban)
	for i := range d.Bullets {
		d.Bullets[i], _ = schema.MaskIBANIn(d.Bullets[i], iban)
	}
	for i := range d.ActionItems {
		d.ActionItems[i].Evidence, _ = schema.MaskIBANIn(d.ActionItems[i].Evidence, iban)
	}
	for _, p := range []**string{&d.Evidence.SupplierName, &d.Evidence.SupplierVATID, &d.Evidence.BuyerName,
		&d.Evidence.InvoiceNumber, &d.Evidence.IssueDate, &d.Evidence.DueDate, &d.Evidence.PONumber, &d.Evidence.Currency,
		&d.Evidence.NetMinor, &d.Evidence.TaxMinor, &d.Evidence.TotalMinor, &d.Evidence.AmountDueMinor} {
		if *p != nil {
			s, _ := schema.MaskIBANIn(**p, iban)
			*p = &s
		}
	}
	return iban
}

// maskedDocument returns a stored result as a listing prints it, with the
// IBAN masked (see maskV2), and the IBAN it hid. Versions without an IBAN
// fact are returned as stored. A v2 document that does not decode is not
// printed at all: it cannot be masked.
func maskedDocument(version string, raw []byte) (json.RawMessage, string, error) {
	if version != schema.V2 {
		return raw, "", nil
	}
	d, err := schema.DecodeStoredV2(raw)
	if err != nil {
		return nil, "", err
	}
	iban := maskV2(d)
	if iban == "" {
		return raw, "", nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, "", err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), iban, nil
}
