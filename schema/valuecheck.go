package schema

import (
	"encoding/json"
	"sync"
	"unicode/utf8"
)

// CheckV2Reviewable decides whether ValidateReviewable would accept
// json.Marshal(doc) for source, without the JSON: the walker reads the
// document's tokens straight from the Go value, then the later phases run
// on a copy as they would on the decoded bytes. A non-nil error is the
// *ValidationError ValidateReviewable would return, path, category and
// message alike; problems it would only list in Result.Review pass.
//
// It is for a provider that builds its answer as an InvoiceV2 and checks it
// before handing it out (the rules extractor); the runner still validates
// the bytes it receives with Validate or ValidateReviewable. A document
// whose bytes could differ from its value (a string that is not UTF-8,
// which json.Marshal rewrites) or that could reach the size cap takes the
// byte path, so the answer is the same either way.
func CheckV2Reviewable(doc *InvoiceV2, source string) error {
	vt, ok := v2ValueTokens(doc)
	if vt != nil {
		defer vt.release()
	}
	if !ok {
		raw, err := json.Marshal(doc)
		if err != nil {
			return verr(CategoryDecode, "$", "cannot be encoded")
		}
		_, err = v2.ValidateReviewable(raw, source)
		return err
	}
	w := &walker{dec: vt, source: source, version: v2.Name}
	if e := w.document(v2Fields); e != nil {
		return e
	}
	// The walk passed, so the bytes would decode into an equal value; the
	// later phases only read it, apart from filling nil slices, which a
	// shallow copy keeps from the caller's document.
	d := *doc
	if e := checkDecodedV2(&d, checks{}); e != nil {
		return e
	}
	return nil
}

// tokenBuilder collects a document's tokens in json.Marshal's order and an
// upper bound of the bytes json.Marshal would write for them.
type tokenBuilder struct {
	toks  []valueToken
	bound int
	// bad is set by a string that is not valid UTF-8: json.Marshal would
	// replace its invalid bytes, so the value is not what gets validated.
	bad bool
}

func (b *tokenBuilder) delim(d json.Delim) {
	b.toks = append(b.toks, valueToken{tok: d})
	b.bound += 2 // the delimiter and a comma or colon after it
}

// key takes the key already as a token: the callers pass constants, which
// become interface values at compile time, so keys cost no allocation.
func (b *tokenBuilder) key(k json.Token) {
	b.toks = append(b.toks, valueToken{tok: k})
	b.bound += len(k.(string)) + 4 // quotes, colon, comma
}

func (b *tokenBuilder) str(s string) {
	if !utf8.ValidString(s) {
		b.bad = true
	}
	b.toks = append(b.toks, valueToken{s: s, kind: tokString})
	b.bound += 6*len(s) + 3 // every byte at worst a \u00XX escape
}

func (b *tokenBuilder) strPtr(s *string) {
	if s == nil {
		b.null()
		return
	}
	b.str(*s)
}

func (b *tokenBuilder) null() {
	b.toks = append(b.toks, valueToken{})
	b.bound += 5
}

func (b *tokenBuilder) int(n int64) {
	b.toks = append(b.toks, valueToken{n: n, kind: tokInt})
	b.bound += 21
}

func (b *tokenBuilder) intPtr(n *int64) {
	if n == nil {
		b.null()
		return
	}
	b.int(*n)
}

// v2ValueTokens returns the tokens of json.Marshal(doc), in the order the
// encoder writes InvoiceV2's fields; false when the value cannot stand in
// for its bytes (see CheckV2Reviewable). TestValueTokensMatchMarshal keeps
// it in step with the type.
func v2ValueTokens(doc *InvoiceV2) (*valueTokens, bool) {
	vt := valueTokensPool.Get().(*valueTokens)
	b := &tokenBuilder{toks: vt.toks[:0]}
	b.delim('{')
	b.key("schema_version")
	b.str(doc.SchemaVersion)
	b.key("document_type")
	b.str(doc.DocumentType)
	b.key("title")
	b.str(doc.Title)
	b.key("bullets")
	if doc.Bullets == nil {
		b.null()
	} else {
		b.delim('[')
		for _, s := range doc.Bullets {
			b.str(s)
		}
		b.delim(']')
	}
	for _, f := range []struct {
		name json.Token
		v    *string
	}{
		{"supplier_name", doc.SupplierName}, {"supplier_vat_id", doc.SupplierVATID},
		{"supplier_iban", doc.SupplierIBAN}, {"buyer_name", doc.BuyerName},
		{"invoice_number", doc.InvoiceNumber}, {"issue_date", doc.IssueDate},
		{"due_date", doc.DueDate}, {"po_number", doc.PONumber}, {"currency", doc.Currency},
	} {
		b.key(f.name)
		b.strPtr(f.v)
	}
	for _, f := range []struct {
		name json.Token
		v    *int64
	}{
		{"net_minor", doc.NetMinor}, {"tax_minor", doc.TaxMinor},
		{"total_minor", doc.TotalMinor}, {"amount_due_minor", doc.AmountDueMinor},
	} {
		b.key(f.name)
		b.intPtr(f.v)
	}
	b.key("tax_lines")
	if doc.TaxLines == nil {
		b.null()
	} else {
		b.delim('[')
		for i := range doc.TaxLines {
			tl := &doc.TaxLines[i]
			b.delim('{')
			b.key("rate_bp")
			b.int(tl.RateBP)
			b.key("base_minor")
			b.intPtr(tl.BaseMinor)
			b.key("tax_minor")
			b.int(tl.TaxMinor)
			b.delim('}')
		}
		b.delim(']')
	}
	b.key("line_items")
	if doc.LineItems == nil {
		b.null()
	} else {
		b.delim('[')
		for i := range doc.LineItems {
			li := &doc.LineItems[i]
			b.delim('{')
			b.key("description")
			b.str(li.Description)
			b.key("quantity")
			b.strPtr(li.Quantity)
			b.key("unit_price_minor")
			b.intPtr(li.UnitPriceMinor)
			b.key("amount_minor")
			b.intPtr(li.AmountMinor)
			b.key("tax_rate_bp")
			b.intPtr(li.TaxRateBP)
			b.delim('}')
		}
		b.delim(']')
	}
	b.key("lines_complete")
	b.toks = append(b.toks, valueToken{tok: doc.LinesComplete})
	b.bound += 5
	b.key("action_items")
	if doc.ActionItems == nil {
		b.null()
	} else {
		b.delim('[')
		for i := range doc.ActionItems {
			a := &doc.ActionItems[i]
			b.delim('{')
			b.key("id")
			b.str(a.ID)
			b.key("kind")
			b.str(a.Kind)
			b.key("evidence")
			b.str(a.Evidence)
			b.delim('}')
		}
		b.delim(']')
	}
	ev := &doc.Evidence
	b.key("evidence")
	b.delim('{')
	for _, f := range []struct {
		name json.Token
		v    *string
	}{
		{"supplier_name", ev.SupplierName}, {"supplier_vat_id", ev.SupplierVATID},
		{"supplier_iban", ev.SupplierIBAN}, {"buyer_name", ev.BuyerName},
		{"invoice_number", ev.InvoiceNumber}, {"issue_date", ev.IssueDate},
		{"due_date", ev.DueDate}, {"po_number", ev.PONumber}, {"currency", ev.Currency},
		{"net_minor", ev.NetMinor}, {"tax_minor", ev.TaxMinor},
		{"total_minor", ev.TotalMinor}, {"amount_due_minor", ev.AmountDueMinor},
	} {
		b.key(f.name)
		b.strPtr(f.v)
	}
	b.delim('}')
	b.delim('}')
	// Past the cap the byte path decides: it refuses documents, and
	// canonical forms, larger than maxDocumentBytes, which only the bytes
	// can measure exactly.
	vt.toks, vt.pos = b.toks, 0
	if b.bad || b.bound > maxDocumentBytes {
		vt.release()
		return nil, false
	}
	return vt, true
}

// valueTokensPool keeps the token buffers of value checks: built anew, the
// buffer and its growth were half the CPU of a check (its tokens hold
// pointers, so every growth copies under the write barrier).
var valueTokensPool = sync.Pool{New: func() any {
	return &valueTokens{toks: make([]valueToken, 0, 256)}
}}

// release hands t's buffer back to the pool, cleared so the pool keeps no
// document's strings alive; t must not be used afterwards.
func (t *valueTokens) release() {
	clear(t.toks)
	t.toks, t.pos = t.toks[:0], 0
	valueTokensPool.Put(t)
}
