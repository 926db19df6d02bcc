package rules

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/schema"
)

// wrapV2 builds the smallest invoice-v2 document around the amounts read,
// so schema validation (evidence and arithmetic) judges them exactly as it
// judges a provider's answer. The document type is "other": the sign is
// R1's business (ExtractV2), not the amount readers'.
func wrapV2(t *testing.T, a amountsV2) []byte {
	t.Helper()
	doc := schema.InvoiceV2{
		SchemaVersion: schema.V2, DocumentType: schema.DocOther, Title: "t", Bullets: []string{"b"},
		TaxLines: a.TaxLines, LineItems: a.Lines, LinesComplete: a.LinesComplete, ActionItems: []schema.ActionItem{},
	}
	if doc.TaxLines == nil {
		doc.TaxLines = []schema.TaxLine{}
	}
	if doc.LineItems == nil {
		doc.LineItems = []schema.LineItem{}
	}
	if a.Currency != nil {
		doc.Currency, doc.Evidence.Currency = &a.Currency.V, &a.Currency.Ev
	}
	set := func(f *fact[int64], v **int64, ev **string) {
		if f != nil {
			*v, *ev = &f.V, &f.Ev
		}
	}
	set(a.Net, &doc.NetMinor, &doc.Evidence.NetMinor)
	set(a.Tax, &doc.TaxMinor, &doc.Evidence.TaxMinor)
	set(a.Total, &doc.TotalMinor, &doc.Evidence.TotalMinor)
	set(a.Due, &doc.AmountDueMinor, &doc.Evidence.AmountDueMinor)
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return raw
}

func factStr(f *fact[int64]) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprint(f.V)
}

// fixtureTexts returns every fixture text by its path under fixtureDir.
func fixtureTexts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(fixtureDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txt") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixtureDir, p)
		out[filepath.ToSlash(strings.TrimSuffix(rel, ".txt"))] = normalizeText(b)
		return nil
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("read fixtures: %v (%d)", err, len(out))
	}
	return out
}

// TestAmountsV2FixturesValidate: every fixture's and development
// invoice's amounts, wrapped into an invoice-v2 document, pass validation,
// arithmetic included.
func TestAmountsV2FixturesValidate(t *testing.T) {
	t.Parallel()
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	texts := fixtureTexts(t)
	dev, err := filepath.Glob("testdata/dev/*.txt")
	if err != nil || len(dev) == 0 {
		t.Fatalf("glob dev: %v (%d)", err, len(dev))
	}
	for _, p := range dev {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts["dev/"+filepath.Base(p)] = normalizeText(b)
	}
	for name, text := range texts {
		a := newDocument(text).readAmountsV2()
		if _, err := v.Validate(wrapV2(t, a), text); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
