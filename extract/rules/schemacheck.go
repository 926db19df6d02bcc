package rules

import (
	"sync"

	"github.com/invx/invx/schema"
)

// schemaAccepts reports whether invoice-v2's validator accepts a minimal
// document with the facts set by set, source being the whole text. The
// finders ask it whether a VAT id or an IBAN passes the schema's own syntax
// and checksum rules, so the two never drift apart: the schema, not a copy
// of its tables here, is the authority.
func schemaAccepts(source string, set func(*schema.InvoiceV2)) bool {
	doc := minimalV2()
	set(&doc)
	return schema.CheckV2Reviewable(&doc, source) == nil
}

func minimalV2() schema.InvoiceV2 {
	return schema.InvoiceV2{
		SchemaVersion: schema.V2,
		DocumentType:  schema.DocOther,
		Title:         "t",
		Bullets:       []string{"b"},
		TaxLines:      []schema.TaxLine{},
		LineItems:     []schema.LineItem{},
		ActionItems:   []schema.ActionItem{},
	}
}

// validVATID reports whether the compact id passes the schema's VAT id check.
func validVATID(id string) bool {
	return schemaAnswers.get("v"+id, func() bool {
		return schemaAccepts(id, func(d *schema.InvoiceV2) {
			d.SupplierVATID, d.Evidence.SupplierVATID = &id, &id
		})
	})
}

// validIBAN reports whether the electronic-form IBAN passes the schema's
// IBAN check (registry country and length, mod 97).
func validIBAN(iban string) bool {
	return schemaAnswers.get("i"+iban, func() bool {
		return schemaAccepts(iban, func(d *schema.InvoiceV2) {
			d.SupplierIBAN, d.Evidence.SupplierIBAN = &iban, &iban
		})
	})
}

// schemaAnswers keeps the schema's answers about ids across documents: a
// check is a full validation of a (minimal) document, its answer depends on
// the id alone, and
// a supplier prints the same ids on every invoice. Bounded, so a stream of
// distinct ids cannot grow it without limit; past the bound it only reads.
var schemaAnswers = &answerCache{m: map[string]bool{}}

// maxSchemaAnswers bounds schemaAnswers (a few hundred kilobytes).
const maxSchemaAnswers = 4096

type answerCache struct {
	mu sync.Mutex
	m  map[string]bool
}

// get returns the answer for key, computing it with check when unknown.
func (c *answerCache) get(key string, check func() bool) bool {
	c.mu.Lock()
	ok, seen := c.m[key]
	c.mu.Unlock()
	if seen {
		return ok
	}
	ok = check()
	c.mu.Lock()
	if len(c.m) < maxSchemaAnswers {
		c.m[key] = ok
	}
	c.mu.Unlock()
	return ok
}

// maxIDChecks bounds the schema checks of VAT ids and IBANs per document: a
// real invoice holds a handful of ids, and a text made of id-shaped runs
// must not take minutes. Past the budget, ids are not read (null).
const maxIDChecks = 128

// idChecker asks the schema about candidate ids, remembering each answer
// and spending a fixed budget per document.
type idChecker struct {
	memo   map[string]bool
	budget int
}

func newIDChecker() *idChecker {
	return &idChecker{memo: map[string]bool{}, budget: maxIDChecks}
}

func (c *idChecker) check(key string, valid func(string) bool) bool {
	if ok, seen := c.memo[key]; seen {
		return ok
	}
	if c.budget <= 0 {
		return false
	}
	c.budget--
	ok := valid(key[1:])
	c.memo[key] = ok
	return ok
}

// vatID reports whether the compact id passes the schema's VAT id check.
func (c *idChecker) vatID(id string) bool {
	return len(id) >= 4 && len(id) <= 20 && vatPrefixes[id[:2]] && c.check("v"+id, validVATID)
}

// iban reports whether the electronic-form IBAN passes the schema's check;
// the mod-97 checksum runs here first, so the schema sees only candidates
// that already add up.
func (c *idChecker) iban(s string) bool {
	if len(s) < 15 || len(s) > 34 || s[2] < '0' || s[2] > '9' || s[3] < '0' || s[3] > '9' || mod97(s) != 1 {
		return false
	}
	return c.check("i"+s, validIBAN)
}

// mod97 is ISO 13616's checksum of an IBAN of upper-case letters and
// digits: 1 when it adds up.
func mod97(s string) int {
	rem := 0
	for _, c := range s[4:] + s[:4] {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return -1
		}
	}
	return rem
}
