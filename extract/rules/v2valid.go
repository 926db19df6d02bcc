package rules

import (
	"errors"
	"strings"

	"github.com/invx/invx/schema"
)

// maxRepairs bounds ensureValid's loop: each round clears one fact, and
// invoice-v2 has 13 facts, the lines and the action items.
const maxRepairs = 40

// ensureValid runs invoice-v2's validator on the answer and, while it
// refuses it, clears what it refuses: a fact and its evidence, the tax or
// item lines, an action item. The finders already cut evidence from the
// text around the value, so this only fires on odd input (a value whose
// spelling the text's folding changed, a bidirectional mark in an
// excerpt); right or silent, it keeps the rest of the answer. An answer
// that still fails is replaced by an empty one, which always passes.
func ensureValid(text string, doc schema.InvoiceV2) schema.InvoiceV2 {
	for range maxRepairs {
		// The value is checked as the bytes json.Marshal makes of it would
		// be (CheckV2Reviewable), without making them: the runner
		// validates the bytes it receives anyway.
		err := schema.CheckV2Reviewable(&doc, text)
		if err == nil {
			return doc
		}
		var ve *schema.ValidationError
		if !errors.As(err, &ve) || !clearPath(&doc, ve.Path) {
			break
		}
		doc.Title, doc.Bullets = summarizeV2(&doc)
	}
	empty := minimalV2()
	empty.DocumentType = doc.DocumentType
	empty.Title, empty.Bullets = summarizeV2(&empty)
	return empty
}

// clearPath clears the value a validation error points at; false when the
// path is not one it knows.
func clearPath(doc *schema.InvoiceV2, path string) bool {
	path = strings.TrimPrefix(path, "evidence.")
	switch {
	case strings.HasPrefix(path, "tax_lines"):
		doc.TaxLines = []schema.TaxLine{}
		return true
	case strings.HasPrefix(path, "line_items") || path == "lines_complete":
		doc.LineItems = []schema.LineItem{}
		doc.LinesComplete = false
		return true
	case strings.HasPrefix(path, "action_items"):
		i := indexOf(path)
		if i < 0 || i >= len(doc.ActionItems) {
			doc.ActionItems = []schema.ActionItem{}
			return true
		}
		doc.ActionItems = append(doc.ActionItems[:i:i], doc.ActionItems[i+1:]...)
		for k := range doc.ActionItems {
			doc.ActionItems[k].ID = "a" + itoa(k+1)
		}
		return true
	}
	ev := &doc.Evidence
	texts := map[string][2]**string{
		"supplier_name":   {&doc.SupplierName, &ev.SupplierName},
		"supplier_vat_id": {&doc.SupplierVATID, &ev.SupplierVATID},
		"supplier_iban":   {&doc.SupplierIBAN, &ev.SupplierIBAN},
		"buyer_name":      {&doc.BuyerName, &ev.BuyerName},
		"invoice_number":  {&doc.InvoiceNumber, &ev.InvoiceNumber},
		"issue_date":      {&doc.IssueDate, &ev.IssueDate},
		"due_date":        {&doc.DueDate, &ev.DueDate},
		"po_number":       {&doc.PONumber, &ev.PONumber},
	}
	if p, ok := texts[path]; ok {
		*p[0], *p[1] = nil, nil
		return true
	}
	amounts := map[string]struct {
		v  **int64
		ev **string
	}{
		"net_minor":        {&doc.NetMinor, &ev.NetMinor},
		"tax_minor":        {&doc.TaxMinor, &ev.TaxMinor},
		"total_minor":      {&doc.TotalMinor, &ev.TotalMinor},
		"amount_due_minor": {&doc.AmountDueMinor, &ev.AmountDueMinor},
	}
	if a, ok := amounts[path]; ok {
		*a.v, *a.ev = nil, nil
		return true
	}
	if path == "currency" {
		// Amounts mean nothing without their currency.
		doc.Currency, ev.Currency = nil, nil
		for _, a := range amounts {
			*a.v, *a.ev = nil, nil
		}
		doc.TaxLines, doc.LineItems, doc.LinesComplete = []schema.TaxLine{}, []schema.LineItem{}, false
		return true
	}
	return false
}

// indexOf reads the first "[n]" of a path, or -1.
func indexOf(path string) int {
	i := strings.IndexByte(path, '[')
	j := strings.IndexByte(path, ']')
	if i < 0 || j <= i+1 {
		return -1
	}
	n := 0
	for _, c := range path[i+1 : j] {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
