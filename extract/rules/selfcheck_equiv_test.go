package rules

import (
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/invx/invx/schema"
)

// ensureValidBytes is ensureValid as it was before schema.CheckV2Reviewable:
// each round marshals the answer and validates the bytes, as the runner
// does. It is the reference the value check is held to.
func ensureValidBytes(text string, doc schema.InvoiceV2) schema.InvoiceV2 {
	v2, err := schema.Lookup(schema.V2)
	if err != nil {
		panic(err)
	}
	for range maxRepairs {
		b, err := json.Marshal(doc)
		if err != nil {
			break
		}
		if _, err = v2.ValidateReviewable(b, text); err == nil {
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

// selfCheckTexts are the texts the self-check is compared on: fixtures,
// development texts, the rules package's synthetic invoices, and where
// present the local dev set and a bench corpus (go run ./bench/gen -out DIR,
// named by INVX_SYNTH_DIR); neither of the last two is committed.
func selfCheckTexts(t *testing.T) []string {
	t.Helper()
	pats := []string{"../../fixtures/*/*.txt", "../../fixtures/*/*/*.txt", "testdata/dev/*.txt",
		"/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt"}
	if dir := os.Getenv("INVX_SYNTH_DIR"); dir != "" {
		pats = append(pats, filepath.Join(dir, "*", "*.txt"))
	}
	texts := globTexts(t, pats...)
	if len(texts) < 100 {
		t.Fatalf("only %d texts found; the comparison would prove little", len(texts))
	}
	r := rand.New(rand.NewSource(15))
	for range 200 {
		text, _ := synthInvoice(r)
		texts = append(texts, text)
	}
	return raceSample(texts)
}

// selfCheckDamage spoils a draft the ways ensureValid repairs, so its
// repair loop runs on every text, not only on the odd one that needs it.
var selfCheckDamage = []func(*schema.InvoiceV2){
	func(*schema.InvoiceV2) {},
	func(d *schema.InvoiceV2) { d.Evidence.TotalMinor = d.Evidence.SupplierName },
	func(d *schema.InvoiceV2) {
		if d.SupplierName != nil {
			d.Evidence.SupplierName = ptrTo("\u202e" + *d.SupplierName)
		}
	},
	func(d *schema.InvoiceV2) { d.Currency = ptrTo("XYZ") },
	func(d *schema.InvoiceV2) {
		d.ActionItems = append(d.ActionItems, schema.ActionItem{ID: "a9", Kind: schema.KindReviewTax, Evidence: "never in any text"})
	},
	func(d *schema.InvoiceV2) {
		d.LinesComplete = true
		d.LineItems = append(d.LineItems, schema.LineItem{Description: "x"})
	},
	func(d *schema.InvoiceV2) { d.IssueDate = ptrTo("2026-13-01") },
	func(d *schema.InvoiceV2) { d.Title = "" },
	func(d *schema.InvoiceV2) { d.InvoiceNumber = ptrTo("bad \xff") },
}

func ptrTo[T any](v T) *T { return &v }

// TestSelfCheckMatchesBytes holds ensureValid to ensureValidBytes: the same
// answer, field for field, for every text's draft as built and as damaged.
func TestSelfCheckMatchesBytes(t *testing.T) {
	t.Parallel()
	texts := selfCheckTexts(t)
	repaired := 0
	for i, text := range texts {
		draft := draftV2(text)
		for k, damage := range selfCheckDamage {
			want := ensureValidBytes(text, copyV2(t, draft, damage))
			got := ensureValid(text, copyV2(t, draft, damage))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("text %d (%d bytes), damage %d: value check answer differs from byte check answer", i, len(text), k)
			}
			if !reflect.DeepEqual(want, copyV2(t, draft, damage)) {
				repaired++
			}
		}
	}
	if repaired < len(texts) {
		t.Fatalf("only %d of %d answers needed repair; the loop was barely exercised", repaired, len(texts)*len(selfCheckDamage))
	}
	t.Logf("%d texts, %d answers, %d repaired", len(texts), len(texts)*len(selfCheckDamage), repaired)
}

// copyV2 deep-copies a draft (strings stay as they are, bytes and all) and
// applies damage to the copy.
func copyV2(t *testing.T, d schema.InvoiceV2, damage func(*schema.InvoiceV2)) schema.InvoiceV2 {
	t.Helper()
	c := d
	c.Bullets = append([]string(nil), d.Bullets...)
	if d.Bullets == nil {
		c.Bullets = nil
	}
	c.TaxLines = append(d.TaxLines[:0:0], d.TaxLines...)
	c.LineItems = append(d.LineItems[:0:0], d.LineItems...)
	c.ActionItems = append(d.ActionItems[:0:0], d.ActionItems...)
	damage(&c)
	return c
}
