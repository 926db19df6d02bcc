package desk

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// fact is one field of a result as the document page shows it.
type fact struct {
	Field    string
	Value    string // "" is null
	Evidence string // the excerpt the value was read from; "" when none
	// Found: the evidence was located in the text and is highlighted.
	Found    bool
	Missing  bool     // a field the policy requires, null
	Messages []string // validation messages about this field
	Differs  bool     // differs from the possible duplicate's value
	Other    string   // the possible duplicate's value
}

// factOrder lists the facts of each schema version in reading order.
var factOrder = map[string][]string{
	schema.V2: {"document_type", "supplier_name", "supplier_vat_id", "supplier_iban", "buyer_name", "invoice_number",
		"issue_date", "due_date", "po_number", "currency", "net_minor", "tax_minor", "total_minor", "amount_due_minor"},
	schema.V1: {"supplier_name", "invoice_number", "currency", "total_minor", "due_date"},
}

// lineItem is one line of a v2 result.
type lineItem struct {
	Description, Quantity, UnitPrice, Amount string
}

// readFacts lists a stored result's facts, amounts as decimals of the
// currency and the IBAN masked (as every listing of invx does), with each
// v2 fact's evidence.
func readFacts(res *store.Result) ([]fact, []lineItem, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(res.JSON, &doc); err != nil {
		return nil, nil, fmt.Errorf("decode result %d: %w", res.ID, err)
	}
	values, evidence := doc, map[string]json.RawMessage{}
	if res.SchemaVersion == schema.V1 {
		if err := json.Unmarshal(doc["invoice"], &values); err != nil {
			return nil, nil, fmt.Errorf("decode result %d: %w", res.ID, err)
		}
	} else if raw, ok := doc["evidence"]; ok {
		if err := json.Unmarshal(raw, &evidence); err != nil {
			return nil, nil, fmt.Errorf("decode evidence of result %d: %w", res.ID, err)
		}
	}
	currency := str(values["currency"])
	var facts []fact
	for _, f := range factOrder[res.SchemaVersion] {
		facts = append(facts, fact{Field: f, Value: display(f, values[f], currency), Evidence: str(evidence[f])})
	}
	var lines []lineItem
	if raw, ok := doc["line_items"]; ok {
		var ls []schema.LineItem
		if err := json.Unmarshal(raw, &ls); err != nil {
			return nil, nil, fmt.Errorf("decode line items of result %d: %w", res.ID, err)
		}
		for _, l := range ls {
			lines = append(lines, lineItem{Description: l.Description, Quantity: deref(l.Quantity),
				UnitPrice: minor(l.UnitPriceMinor, currency), Amount: minor(l.AmountMinor, currency)})
		}
	}
	return facts, lines, nil
}

// display renders one value: "" for null, amounts as decimals of the
// currency, the IBAN masked.
func display(field string, raw json.RawMessage, currency string) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if strings.HasSuffix(field, "_minor") {
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return string(raw)
		}
		return strings.TrimSpace(schema.FormatMinor(n, currency) + " " + currency)
	}
	s := str(raw)
	if field == "supplier_iban" {
		return schema.MaskIBAN(s)
	}
	return s
}

func minor(p *int64, currency string) string {
	if p == nil {
		return ""
	}
	return schema.FormatMinor(*p, currency)
}

func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
