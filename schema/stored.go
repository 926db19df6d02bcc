package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// DecodeStoredV2 decodes a committed invoice-v2 result for reading
// (export, show, compare). It was validated against its source when it
// was committed, so it is not validated again; it is decoded strictly
// (unknown fields and a second value rejected) and must say it is V2, so
// a result of another version is an error, never re-read as this one. Its
// slices are empty, never nil.
func DecodeStoredV2(raw []byte) (*InvoiceV2, error) {
	var d InvoiceV2
	if err := decodeStored(raw, &d); err != nil {
		return nil, err
	}
	if d.SchemaVersion != V2 {
		return nil, fmt.Errorf("stored result says schema_version %q, want %s", d.SchemaVersion, V2)
	}
	if d.TaxLines == nil {
		d.TaxLines = []TaxLine{}
	}
	if d.LineItems == nil {
		d.LineItems = []LineItem{}
	}
	if d.ActionItems == nil {
		d.ActionItems = []ActionItem{}
	}
	return &d, nil
}

// DecodeStoredV1 is DecodeStoredV2 for invoice-summary-v1.
func DecodeStoredV1(raw []byte) (*InvoiceSummaryV1, error) {
	var d InvoiceSummaryV1
	if err := decodeStored(raw, &d); err != nil {
		return nil, err
	}
	if d.SchemaVersion != V1 {
		return nil, fmt.Errorf("stored result says schema_version %q, want %s", d.SchemaVersion, V1)
	}
	return &d, nil
}

func decodeStored(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode stored result: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("decode stored result: a second value follows the document")
	}
	return nil
}
