package schema

// AppendV1 appends d's JSON as invx stores it: the bytes of encoding/json's
// Encoder with HTML escaping off, without the trailing newline. A provider
// that builds its answer in Go (rules) writes it with this instead of
// reflection; TestEncodeMatchesEncoder in extract/rules holds it to the
// encoder on every fixture and dev-set answer.
func AppendV1(b []byte, d *InvoiceSummaryV1) []byte {
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

// AppendV2 appends d's JSON as invx stores it (as AppendV1).
func AppendV2(b []byte, d *InvoiceV2) []byte { return appendCanonicalV2(b, d) }

// AppendJSONString appends s quoted as encoding/json's Encoder quotes it
// with HTML escaping off.
func AppendJSONString(b []byte, s string) []byte { return appendJSONString(b, s) }

// AppendJSONStringHTML appends s quoted as json.Marshal quotes it: HTML
// escaping on (<, > and & as \u003c, \u003e, \u0026).
func AppendJSONStringHTML(b []byte, s string) []byte { return appendJSONQuoted(b, s, true) }

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
