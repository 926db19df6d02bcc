package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// Set is one field a person corrects: FIELD=VALUE as typed on the command
// line (invx review correct --set).
type Set struct {
	Field, Value string
}

// ParseSet splits "FIELD=VALUE" at its first "=".
func ParseSet(s string) (Set, error) {
	field, value, ok := strings.Cut(s, "=")
	field = strings.TrimSpace(field)
	if !ok || field == "" {
		return Set{}, fmt.Errorf("--set %q: want FIELD=VALUE", s)
	}
	return Set{Field: field, Value: value}, nil
}

// Correction is a stored result with a person's values put in: the
// document to validate (schema.Version.ValidateCorrection), the facts it
// changes and their old and new values, for the revision record.
type Correction struct {
	JSON    []byte
	Fields  []string // canonical names, in the order given
	Changes []store.FieldChange
}

// decimalNames are the names under which an amount is typed as a decimal
// of its currency ("total=5385.35") rather than in minor units
// ("total_minor=538535").
var decimalNames = map[string]string{
	"net": "net_minor", "tax": "tax_minor", "total": "total_minor", "amount_due": "amount_due_minor",
}

// Apply puts sets into doc, a stored result of version v, typed per field:
//
//   - the literal null makes a fact null (not document_type: it has none);
//   - amounts are integer minor units under their own name
//     (total_minor=538535), or a decimal with at most the currency's
//     exponent of digits after a dot under the name without _minor
//     (total=5385.35, JPY total=12000, BHD total=1.250), read in the
//     currency the correction leaves (a currency set alongside wins);
//   - supplier_vat_id and supplier_iban lose spaces, dots and dashes and are
//     upper-cased (DE 123 456 789 is DE123456789); currency is upper-cased;
//   - everything else is the text as typed. Dates (YYYY-MM-DD), the
//     document_type enum and every cap are checked by validation after.
//
// v1 facts may be named with or without their "invoice." prefix. A field
// the version cannot correct, a value that is not of the field's type, a
// field set twice or a value equal to the current one is an error, and
// nothing is applied.
func Apply(v *schema.Version, doc []byte, sets []Set) (*Correction, error) {
	if len(sets) == 0 {
		return nil, errors.New("nothing to correct: give --set FIELD=VALUE")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, fmt.Errorf("decode stored result: %w", err)
	}
	facts := top
	if v.Name == schema.V1 {
		// A fresh map: decoding into top would merge the facts into it.
		facts = nil
		if err := json.Unmarshal(top["invoice"], &facts); err != nil || facts == nil {
			return nil, fmt.Errorf("decode stored result: no invoice object")
		}
	}

	type target struct {
		field, value string
		decimal      bool
	}
	targets := make([]target, 0, len(sets))
	for _, s := range sets {
		name, decimal := s.Field, false
		if v.Name == schema.V1 {
			name = strings.TrimPrefix(name, "invoice.")
		}
		if minor, ok := decimalNames[name]; ok {
			name, decimal = minor, true
		}
		field, ok := v.CorrectableField(name)
		if !ok {
			return nil, fmt.Errorf("unknown field %q for %s (fields: %s; amounts also as net, tax, total, amount_due in decimals)",
				s.Field, v.Name, strings.Join(v.CorrectableFields(), ", "))
		}
		if slices.ContainsFunc(targets, func(t target) bool { return t.field == field }) {
			return nil, fmt.Errorf("%s is set twice", field)
		}
		targets = append(targets, target{field: field, value: s.Value, decimal: decimal})
	}

	// The currency decimals are read in: the one set here, else the
	// document's.
	currency := ""
	if raw, ok := facts["currency"]; ok {
		_ = json.Unmarshal(raw, &currency) // null leaves ""
	}
	for _, t := range targets {
		if t.field == "currency" {
			currency = strings.ToUpper(strings.TrimSpace(t.value))
			if t.value == "null" {
				currency = ""
			}
		}
	}

	out := &Correction{}
	for _, t := range targets {
		val, err := typedValue(t.field, t.value, t.decimal, currency)
		if err != nil {
			return nil, err
		}
		old := facts[t.field]
		if old == nil {
			old = json.RawMessage(`null`)
		}
		if bytes.Equal(compact(old), val) {
			return nil, fmt.Errorf("%s is already %s: nothing to correct", t.field, val)
		}
		facts[t.field] = val
		out.Fields = append(out.Fields, t.field)
		out.Changes = append(out.Changes, store.FieldChange{Field: t.field, Old: compact(old), New: val})
	}
	if v.Name == schema.V1 {
		b, err := json.Marshal(facts)
		if err != nil {
			return nil, fmt.Errorf("encode corrected facts: %w", err)
		}
		top["invoice"] = b
	}
	b, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("encode corrected result: %w", err)
	}
	out.JSON = b
	return out, nil
}

// typedValue is the JSON value of one set.
func typedValue(field, value string, decimal bool, currency string) (json.RawMessage, error) {
	if value == "null" {
		if field == "document_type" {
			return nil, errors.New("document_type cannot be null (use other)")
		}
		return json.RawMessage(`null`), nil
	}
	switch {
	case strings.HasSuffix(field, "_minor"):
		if decimal {
			return decimalMinor(field, value, currency)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: want an integer of minor units (538535), or %s=DECIMAL (5385.35)",
				field, value, strings.TrimSuffix(field, "_minor"))
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), nil
	case field == "supplier_vat_id" || field == "supplier_iban":
		value = strings.Map(func(r rune) rune {
			if r == ' ' || r == '.' || r == '-' {
				return -1
			}
			return r
		}, strings.ToUpper(value))
	case field == "currency":
		value = strings.ToUpper(strings.TrimSpace(value))
	}
	b, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", field, err)
	}
	return b, nil
}

// decimalMinor reads a decimal amount ("-5385.35") in minor units of
// currency: digits, at most one dot, at most the currency's exponent of
// digits after it. No grouping separators: 5,385.35 and 5.385,35 are
// refused rather than guessed.
func decimalMinor(field, value, currency string) (json.RawMessage, error) {
	name := strings.TrimSuffix(field, "_minor")
	if currency == "" {
		return nil, fmt.Errorf("%s=%s: the result has no currency; set currency too, or give %s in minor units", name, value, field)
	}
	exp, ok := schema.CurrencyExponent(currency)
	if !ok {
		return nil, fmt.Errorf("%s=%s: unknown currency %q; give %s in minor units", name, value, currency, field)
	}
	s := strings.TrimSpace(value)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || !allDigits(frac) || len(frac) > exp || (strings.Contains(s, ".") && frac == "") {
		return nil, fmt.Errorf("%s=%s: want a decimal with at most %d digit(s) after a dot for %s (or %s in minor units)",
			name, value, exp, currency, field)
	}
	digits := whole + frac + strings.Repeat("0", exp-len(frac))
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: out of range", name, value)
	}
	if neg {
		n = -n
	}
	return json.RawMessage(strconv.FormatInt(n, 10)), nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
