package rules

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/invx/invx/schema"
)

// checkV2 asserts that an ExtractV2 answer passes invoice-v2's
// ValidateReviewable, with nothing but arithmetic left for review.
func checkV2(t *testing.T, name, text string, got schema.InvoiceV2) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("%s: marshal: %v", name, err)
	}
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.ValidateReviewable(b, text)
	if err != nil {
		t.Errorf("%s: invoice-v2 refuses the answer: %v\n%s", name, err, b)
		return
	}
	for _, r := range res.Review {
		if r.Category != schema.CategoryArithmetic {
			t.Errorf("%s: review reason %s %s: %s", name, r.Category, r.Path, r.Msg)
		}
	}
}

// TestV2FixturesValidate runs ExtractV2 over the fixture suite and the
// development set: every answer validates. Under -v it prints the header
// facts of each fixture, to be read against the text.
func TestV2FixturesValidate(t *testing.T) {
	t.Parallel()
	texts := corpus(t)
	names := make([]string, 0, len(texts))
	for n := range texts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		text := texts[name]
		got := ExtractV2(text)
		checkV2(t, name, text, got)
		if testing.Verbose() && strings.HasPrefix(name, fixtureDir) {
			t.Logf("%s | %s | %s | vat=%s | iban=%s | buyer=%s | no=%s | issue=%s | due=%s | po=%s",
				strings.TrimSuffix(filepath.Base(name), ".txt"), got.DocumentType, orDash(got.SupplierName), orDash(got.SupplierVATID),
				orDash(got.SupplierIBAN), orDash(got.BuyerName), orDash(got.InvoiceNumber), orDash(got.IssueDate), orDash(got.DueDate), orDash(got.PONumber))
		}
	}
}

func orDash(p *string) string {
	if p == nil {
		return "-"
	}
	return *p
}

// checkV2Invariants extracts text as invoice-v2 and asserts what every
// answer must satisfy whatever the input: on valid UTF-8 (all the pipeline
// passes) it validates, with nothing but arithmetic left for review, and its
// action items are v1's; on any input it does not panic and keeps the
// display caps.
func checkV2Invariants(t *testing.T, text string) {
	t.Helper()
	got := ExtractV2(text)
	if got.SchemaVersion != schema.V2 || got.Title == "" || len(got.Title) > 200 || len(got.Bullets) < 1 || len(got.Bullets) > 5 {
		t.Errorf("v2: bad version, title or bullets: %q %q %q", got.SchemaVersion, got.Title, got.Bullets)
	}
	if !utf8.ValidString(text) {
		return
	}
	checkV2(t, "v2", text, got)
	v1 := Extract(text).ActionItems
	if a, b := fmt.Sprint(got.ActionItems), fmt.Sprint(v1); a != b && len(got.ActionItems) == len(v1) {
		t.Errorf("v2 action items %s differ from v1's %s", a, b)
	}
}
