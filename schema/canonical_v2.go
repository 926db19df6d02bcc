package schema

import "strconv"

// appendCanonicalV2 appends d as canonicalJSON would write it: the bytes of
// encoding/json's Encoder with HTML escaping off, without the trailing
// newline. Written out by hand because reflection made the encoder a tenth
// of a validation; TestValidateEquivalent and FuzzValidateEquivalent hold it
// to the encoder byte for byte.
func appendCanonicalV2(b []byte, d *InvoiceV2) []byte {
	b = append(b, `{"schema_version":`...)
	b = appendJSONString(b, d.SchemaVersion)
	b = append(b, `,"document_type":`...)
	b = appendJSONString(b, d.DocumentType)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, d.Title)
	b = append(b, `,"bullets":`...)
	b = appendStrings(b, d.Bullets)
	b = append(b, `,"supplier_name":`...)
	b = appendStringPtr(b, d.SupplierName)
	b = append(b, `,"supplier_vat_id":`...)
	b = appendStringPtr(b, d.SupplierVATID)
	b = append(b, `,"supplier_iban":`...)
	b = appendStringPtr(b, d.SupplierIBAN)
	b = append(b, `,"buyer_name":`...)
	b = appendStringPtr(b, d.BuyerName)
	b = append(b, `,"invoice_number":`...)
	b = appendStringPtr(b, d.InvoiceNumber)
	b = append(b, `,"issue_date":`...)
	b = appendStringPtr(b, d.IssueDate)
	b = append(b, `,"due_date":`...)
	b = appendStringPtr(b, d.DueDate)
	b = append(b, `,"po_number":`...)
	b = appendStringPtr(b, d.PONumber)
	b = append(b, `,"currency":`...)
	b = appendStringPtr(b, d.Currency)
	b = append(b, `,"net_minor":`...)
	b = appendIntPtr(b, d.NetMinor)
	b = append(b, `,"tax_minor":`...)
	b = appendIntPtr(b, d.TaxMinor)
	b = append(b, `,"total_minor":`...)
	b = appendIntPtr(b, d.TotalMinor)
	b = append(b, `,"amount_due_minor":`...)
	b = appendIntPtr(b, d.AmountDueMinor)
	b = append(b, `,"tax_lines":`...)
	if d.TaxLines == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.TaxLines {
			tl := &d.TaxLines[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"rate_bp":`...)
			b = strconv.AppendInt(b, tl.RateBP, 10)
			b = append(b, `,"base_minor":`...)
			b = appendIntPtr(b, tl.BaseMinor)
			b = append(b, `,"tax_minor":`...)
			b = strconv.AppendInt(b, tl.TaxMinor, 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"line_items":`...)
	if d.LineItems == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.LineItems {
			li := &d.LineItems[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"description":`...)
			b = appendJSONString(b, li.Description)
			b = append(b, `,"quantity":`...)
			b = appendStringPtr(b, li.Quantity)
			b = append(b, `,"unit_price_minor":`...)
			b = appendIntPtr(b, li.UnitPriceMinor)
			b = append(b, `,"amount_minor":`...)
			b = appendIntPtr(b, li.AmountMinor)
			b = append(b, `,"tax_rate_bp":`...)
			b = appendIntPtr(b, li.TaxRateBP)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"lines_complete":`...)
	b = strconv.AppendBool(b, d.LinesComplete)
	b = append(b, `,"action_items":`...)
	b = appendActionItems(b, d.ActionItems)
	ev := &d.Evidence
	b = append(b, `,"evidence":{"supplier_name":`...)
	b = appendStringPtr(b, ev.SupplierName)
	b = append(b, `,"supplier_vat_id":`...)
	b = appendStringPtr(b, ev.SupplierVATID)
	b = append(b, `,"supplier_iban":`...)
	b = appendStringPtr(b, ev.SupplierIBAN)
	b = append(b, `,"buyer_name":`...)
	b = appendStringPtr(b, ev.BuyerName)
	b = append(b, `,"invoice_number":`...)
	b = appendStringPtr(b, ev.InvoiceNumber)
	b = append(b, `,"issue_date":`...)
	b = appendStringPtr(b, ev.IssueDate)
	b = append(b, `,"due_date":`...)
	b = appendStringPtr(b, ev.DueDate)
	b = append(b, `,"po_number":`...)
	b = appendStringPtr(b, ev.PONumber)
	b = append(b, `,"currency":`...)
	b = appendStringPtr(b, ev.Currency)
	b = append(b, `,"net_minor":`...)
	b = appendStringPtr(b, ev.NetMinor)
	b = append(b, `,"tax_minor":`...)
	b = appendStringPtr(b, ev.TaxMinor)
	b = append(b, `,"total_minor":`...)
	b = appendStringPtr(b, ev.TotalMinor)
	b = append(b, `,"amount_due_minor":`...)
	b = appendStringPtr(b, ev.AmountDueMinor)
	return append(b, "}}"...)
}

func appendActionItems(b []byte, items []ActionItem) []byte {
	if items == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range items {
		a := &items[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendJSONString(b, a.ID)
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, a.Kind)
		b = append(b, `,"evidence":`...)
		b = appendJSONString(b, a.Evidence)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

func appendIntPtr(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

// appendJSONString quotes s as encoding/json does with HTML escaping off.
func appendJSONString(b []byte, s string) []byte {
	return appendJSONQuoted(b, s, false)
}
