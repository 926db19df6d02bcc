package rules

import (
	"strconv"
	"unicode/utf8"

	"github.com/invx/invx/schema"
)

// The provider writes its answers field by field, the bytes a json.Encoder
// with SetEscapeHTML(false) writes (less its newline): reflection over the
// invoice-v2 value was a fiftieth of a synthetic document's time.
// TestEncodeMatchesEncoder holds both writers to the encoder, and
// TestEncodeKnowsEveryField to the types' fields.

// appendV1 appends the JSON of an invoice-summary-v1 answer.
func appendV1(b []byte, d *schema.InvoiceSummaryV1) []byte {
	b = append(b, `{"schema_version":`...)
	b = appendJSONString(b, d.SchemaVersion)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, d.Title)
	b = append(b, `,"bullets":`...)
	b = appendStrings(b, d.Bullets)
	f := &d.Invoice
	b = append(b, `,"invoice":{"supplier_name":`...)
	b = appendStringPtr(b, f.SupplierName)
	b = append(b, `,"invoice_number":`...)
	b = appendStringPtr(b, f.InvoiceNumber)
	b = append(b, `,"currency":`...)
	b = appendStringPtr(b, f.Currency)
	b = append(b, `,"total_minor":`...)
	b = appendIntPtr(b, f.TotalMinor)
	b = append(b, `,"due_date":`...)
	b = appendStringPtr(b, f.DueDate)
	b = append(b, `},"action_items":`...)
	b = appendActionItems(b, d.ActionItems)
	return append(b, '}')
}

// appendV2 appends the JSON of an invoice-v2 answer.
func appendV2(b []byte, d *schema.InvoiceV2) []byte {
	b = append(b, `{"schema_version":`...)
	b = appendJSONString(b, d.SchemaVersion)
	b = append(b, `,"document_type":`...)
	b = appendJSONString(b, d.DocumentType)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, d.Title)
	b = append(b, `,"bullets":`...)
	b = appendStrings(b, d.Bullets)
	for _, f := range [...]struct {
		key string
		v   *string
	}{
		{`,"supplier_name":`, d.SupplierName}, {`,"supplier_vat_id":`, d.SupplierVATID},
		{`,"supplier_iban":`, d.SupplierIBAN}, {`,"buyer_name":`, d.BuyerName},
		{`,"invoice_number":`, d.InvoiceNumber}, {`,"issue_date":`, d.IssueDate},
		{`,"due_date":`, d.DueDate}, {`,"po_number":`, d.PONumber}, {`,"currency":`, d.Currency},
	} {
		b = append(b, f.key...)
		b = appendStringPtr(b, f.v)
	}
	for _, f := range [...]struct {
		key string
		v   *int64
	}{
		{`,"net_minor":`, d.NetMinor}, {`,"tax_minor":`, d.TaxMinor},
		{`,"total_minor":`, d.TotalMinor}, {`,"amount_due_minor":`, d.AmountDueMinor},
	} {
		b = append(b, f.key...)
		b = appendIntPtr(b, f.v)
	}
	b = append(b, `,"tax_lines":`...)
	if d.TaxLines == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, tl := range d.TaxLines {
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
		for i, li := range d.LineItems {
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
	for _, f := range [...]struct {
		key string
		v   *string
	}{
		{`,"evidence":{"supplier_name":`, ev.SupplierName}, {`,"supplier_vat_id":`, ev.SupplierVATID},
		{`,"supplier_iban":`, ev.SupplierIBAN}, {`,"buyer_name":`, ev.BuyerName},
		{`,"invoice_number":`, ev.InvoiceNumber}, {`,"issue_date":`, ev.IssueDate},
		{`,"due_date":`, ev.DueDate}, {`,"po_number":`, ev.PONumber}, {`,"currency":`, ev.Currency},
		{`,"net_minor":`, ev.NetMinor}, {`,"tax_minor":`, ev.TaxMinor},
		{`,"total_minor":`, ev.TotalMinor}, {`,"amount_due_minor":`, ev.AmountDueMinor},
	} {
		b = append(b, f.key...)
		b = appendStringPtr(b, f.v)
	}
	return append(b, "}}"...)
}

func appendActionItems(b []byte, items []schema.ActionItem) []byte {
	if items == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendJSONString(b, it.ID)
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, it.Kind)
		b = append(b, `,"evidence":`...)
		b = appendJSONString(b, it.Evidence)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
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

// appendJSONString is encoding/json's string writer without HTML escaping:
// quote and backslash escaped, control bytes as \b \f \n \r \t or \u00XX,
// an invalid byte as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
