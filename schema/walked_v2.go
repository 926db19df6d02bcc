package schema

import (
	"encoding/json"
	"strconv"
	"sync"
)

// walked reads back the tokens of a document the walker accepted, to fill
// the Go type without parsing the bytes a second time: the walk has
// already checked every key (exact, once), type and integer, so decoding
// is a matter of putting each value in its field. Anything unexpected sets
// bad, and the caller falls back to json.Unmarshal.
type walked struct {
	toks []json.Token
	i    int
	bad  bool
	// strs and ints back the document's pointer fields, a few allocations
	// instead of one per field. Growing them leaves earlier pointers on
	// the old array, which nothing changes afterwards.
	strs []string
	ints []int64
}

func (t *walked) next() json.Token {
	if t.i >= len(t.toks) {
		t.bad = true
		return nil
	}
	tok := t.toks[t.i]
	t.i++
	return tok
}

// more reports whether the object or array being read has another element.
func (t *walked) more() bool {
	if t.bad || t.i >= len(t.toks) {
		return false
	}
	d, ok := t.toks[t.i].(json.Delim)
	return !ok || (d != '}' && d != ']')
}

func (t *walked) delim(want json.Delim) {
	if d, ok := t.next().(json.Delim); !ok || d != want {
		t.bad = true
	}
}

func (t *walked) str() string {
	s, ok := t.next().(string)
	if !ok {
		t.bad = true
	}
	return s
}

func (t *walked) strPtr() *string {
	tok := t.next()
	if tok == nil {
		return nil
	}
	s, ok := tok.(string)
	if !ok {
		t.bad = true
	}
	t.strs = append(t.strs, s)
	return &t.strs[len(t.strs)-1]
}

func (t *walked) int() int64 {
	num, ok := t.next().(json.Number)
	if !ok {
		t.bad = true
		return 0
	}
	n, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil {
		t.bad = true
	}
	return n
}

func (t *walked) intPtr() *int64 {
	if t.i < len(t.toks) && t.toks[t.i] == nil {
		t.i++
		return nil
	}
	t.ints = append(t.ints, t.int())
	return &t.ints[len(t.ints)-1]
}

// objects reads an array of objects, calling add before each object and
// member for each key.
func (t *walked) objects(member func(key string), add func()) {
	t.delim('[')
	for t.more() {
		add()
		t.object(member)
	}
	t.delim(']')
}

// object reads one object, calling member for each key with the value
// still to be read.
func (t *walked) object(member func(key string)) {
	t.delim('{')
	for t.more() {
		member(t.str())
	}
	t.delim('}')
}

// decodeWalkedV2 fills d from the tokens of an accepted invoice-v2
// document as json.Unmarshal would (an empty array is an empty, non-nil
// slice); false when the tokens are not what the walk guarantees.
func decodeWalkedV2(toks []json.Token, d *InvoiceV2) bool {
	t := &walked{toks: toks, strs: make([]string, 0, 32), ints: make([]int64, 0, 16)}
	t.object(func(key string) {
		switch key {
		case "schema_version":
			d.SchemaVersion = t.str()
		case "document_type":
			d.DocumentType = t.str()
		case "title":
			d.Title = t.str()
		case "bullets":
			d.Bullets = []string{}
			t.delim('[')
			for t.more() {
				d.Bullets = append(d.Bullets, t.str())
			}
			t.delim(']')
		case "supplier_name":
			d.SupplierName = t.strPtr()
		case "supplier_vat_id":
			d.SupplierVATID = t.strPtr()
		case "supplier_iban":
			d.SupplierIBAN = t.strPtr()
		case "buyer_name":
			d.BuyerName = t.strPtr()
		case "invoice_number":
			d.InvoiceNumber = t.strPtr()
		case "issue_date":
			d.IssueDate = t.strPtr()
		case "due_date":
			d.DueDate = t.strPtr()
		case "po_number":
			d.PONumber = t.strPtr()
		case "currency":
			d.Currency = t.strPtr()
		case "net_minor":
			d.NetMinor = t.intPtr()
		case "tax_minor":
			d.TaxMinor = t.intPtr()
		case "total_minor":
			d.TotalMinor = t.intPtr()
		case "amount_due_minor":
			d.AmountDueMinor = t.intPtr()
		case "tax_lines":
			d.TaxLines = []TaxLine{}
			t.objects(func(key string) {
				tl := &d.TaxLines[len(d.TaxLines)-1]
				switch key {
				case "rate_bp":
					tl.RateBP = t.int()
				case "base_minor":
					tl.BaseMinor = t.intPtr()
				case "tax_minor":
					tl.TaxMinor = t.int()
				default:
					t.bad = true
				}
			}, func() { d.TaxLines = append(d.TaxLines, TaxLine{}) })
		case "line_items":
			d.LineItems = []LineItem{}
			t.objects(func(key string) {
				li := &d.LineItems[len(d.LineItems)-1]
				switch key {
				case "description":
					li.Description = t.str()
				case "quantity":
					li.Quantity = t.strPtr()
				case "unit_price_minor":
					li.UnitPriceMinor = t.intPtr()
				case "amount_minor":
					li.AmountMinor = t.intPtr()
				case "tax_rate_bp":
					li.TaxRateBP = t.intPtr()
				default:
					t.bad = true
				}
			}, func() { d.LineItems = append(d.LineItems, LineItem{}) })
		case "lines_complete":
			b, ok := t.next().(bool)
			d.LinesComplete = b
			t.bad = t.bad || !ok
		case "action_items":
			d.ActionItems = []ActionItem{}
			t.objects(func(key string) {
				a := &d.ActionItems[len(d.ActionItems)-1]
				switch key {
				case "id":
					a.ID = t.str()
				case "kind":
					a.Kind = t.str()
				case "evidence":
					a.Evidence = t.str()
				default:
					t.bad = true
				}
			}, func() { d.ActionItems = append(d.ActionItems, ActionItem{}) })
		case "evidence":
			ev := &d.Evidence
			t.object(func(key string) {
				p := ev.field(key)
				if p == nil {
					t.bad = true
					return
				}
				*p = t.strPtr()
			})
		default:
			t.bad = true
		}
	})
	return !t.bad && t.i == len(t.toks)
}

// field returns the field of the fact named key, or nil.
func (ev *EvidenceV2) field(key string) **string {
	switch key {
	case "supplier_name":
		return &ev.SupplierName
	case "supplier_vat_id":
		return &ev.SupplierVATID
	case "supplier_iban":
		return &ev.SupplierIBAN
	case "buyer_name":
		return &ev.BuyerName
	case "invoice_number":
		return &ev.InvoiceNumber
	case "issue_date":
		return &ev.IssueDate
	case "due_date":
		return &ev.DueDate
	case "po_number":
		return &ev.PONumber
	case "currency":
		return &ev.Currency
	case "net_minor":
		return &ev.NetMinor
	case "tax_minor":
		return &ev.TaxMinor
	case "total_minor":
		return &ev.TotalMinor
	case "amount_due_minor":
		return &ev.AmountDueMinor
	}
	return nil
}

// tokenPool holds the token buffers of walks that record, so a validation
// does not grow a new one token by token.
var tokenPool = sync.Pool{New: func() any {
	b := make([]json.Token, 0, 512)
	return &b
}}
