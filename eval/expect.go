package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ParseExpect decodes an expectation: one JSON object whose keys are fields
// of some schema version (see FieldsFor), gross_minor, or an alias of the dev
// set (payable_minor, seller_vat, iban), stored under the key it stands for.
// String facts are a string or null; v1's total_minor a non-negative integer
// or null; the other amounts an integer or null (magnitudes as printed;
// a negative one is read as written and scored by its magnitude);
// line_count a non-negative integer; action_kinds an array of distinct
// strings.
func ParseExpect(b []byte) (Expect, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if raw == nil {
		return nil, errors.New("not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	exp := Expect{}
	for _, name := range keys {
		k := name
		if to, ok := expectAliases[name]; ok {
			// Both spellings at once could disagree: refuse rather than
			// pick one.
			if _, dup := raw[to]; dup {
				return nil, fmt.Errorf("%s and %s: the same fact twice (%s is an alias of %s)", name, to, name, to)
			}
			k = to
		}
		v, err := expectValue(k, raw[name])
		if errors.Is(err, errUnknownKey) {
			return nil, fmt.Errorf("unknown key %q (known: %s)", name, strings.Join(expectKeys, ", "))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		exp[k] = v
	}
	return exp, nil
}

// expectValue checks and converts one expectation value of key k.
func expectValue(k string, v any) (any, error) {
	switch k {
	case FieldSupplierName, FieldInvoiceNumber, FieldCurrency, FieldDueDate,
		FieldDocumentType, FieldSupplierVATID, FieldSupplierIBAN, FieldBuyerName, FieldIssueDate, FieldPONumber:
		switch s := v.(type) {
		case nil:
			return nil, nil
		case string:
			return s, nil
		}
		return nil, errors.New("want a string or null")
	case FieldTotalMinor, FieldNetMinor, FieldTaxMinor, KeyGrossMinor, FieldAmountDueMinor, FieldLineSumMinor:
		switch n := v.(type) {
		case nil:
			return nil, nil
		case json.Number:
			i, err := n.Int64()
			// A negative total (an e-invoice with a negative grand total,
			// as its XML states it) is read as written and, like every
			// amount, scored by its magnitude.
			if err != nil {
				return nil, fmt.Errorf("%s is not an integer of minor units", n)
			}
			return i, nil
		}
		return nil, errors.New("want an integer or null")
	case FieldLineCount:
		n, ok := v.(json.Number)
		if !ok {
			return nil, errors.New("want a non-negative integer")
		}
		i, err := n.Int64()
		if err != nil || i < 0 {
			return nil, fmt.Errorf("%s is not a non-negative integer", n)
		}
		return i, nil
	case FieldActionKinds:
		xs, ok := v.([]any)
		if !ok {
			return nil, errors.New("want an array of action kinds")
		}
		kinds := make([]string, 0, len(xs))
		for _, x := range xs {
			s, ok := x.(string)
			if !ok || s == "" {
				return nil, errors.New("want an array of action kinds (strings)")
			}
			if slices.Contains(kinds, s) {
				return nil, fmt.Errorf("%q twice", s)
			}
			kinds = append(kinds, s)
		}
		slices.Sort(kinds)
		return kinds, nil
	}
	return nil, errUnknownKey
}

var errUnknownKey = errors.New("unknown key")
