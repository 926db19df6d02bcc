package rules

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/invx/invx/schema"
)

var reCode = regexp.MustCompile(`^[A-Z]{3}$`)

// controlIn reports whether s holds a character the validator refuses in
// displayed text: a C0 or C1 control other than newline and tab. It is
// written out here, not taken from the package, so that a broken
// hasControl cannot also blind the check.
func controlIn(s string) bool {
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f) {
			return true
		}
	}
	return false
}

// checkInvariants asserts what every result must satisfy whatever the input.
func checkInvariants(t *testing.T, text string, got schema.InvoiceSummaryV1) {
	t.Helper()
	if got.SchemaVersion != schema.V1 {
		t.Errorf("schema_version %q", got.SchemaVersion)
	}
	for _, s := range append([]string{got.Title}, got.Bullets...) {
		if controlIn(s) {
			t.Errorf("control character in %q", s)
		}
	}
	if f := got.Invoice; f.SupplierName != nil && (controlIn(*f.SupplierName) || len(*f.SupplierName) > 200 || strings.TrimSpace(*f.SupplierName) == "") ||
		f.InvoiceNumber != nil && (controlIn(*f.InvoiceNumber) || len(*f.InvoiceNumber) > 64 || strings.TrimSpace(*f.InvoiceNumber) == "") {
		t.Errorf("bad supplier or number: %s %s", strp(f.SupplierName), strp(f.InvoiceNumber))
	}
	if f := got.Invoice; f.TotalMinor != nil && *f.TotalMinor > 1<<53-1 {
		t.Errorf("total %d beyond 2^53-1", *f.TotalMinor)
	}
	if got.Title == "" || len(got.Title) > 200 || utf8.ValidString(text) && !utf8.ValidString(got.Title) {
		t.Errorf("bad title %q", got.Title)
	}
	if len(got.Bullets) < 1 || len(got.Bullets) > 5 {
		t.Errorf("%d bullets", len(got.Bullets))
	}
	for _, b := range got.Bullets {
		if b == "" || len(b) > 300 {
			t.Errorf("bad bullet %q", b)
		}
	}
	f := got.Invoice
	if f.TotalMinor != nil && *f.TotalMinor < 0 {
		t.Errorf("negative total %d", *f.TotalMinor)
	}
	if f.Currency != nil && !reCode.MatchString(*f.Currency) {
		t.Errorf("bad currency %q", *f.Currency)
	}
	if f.DueDate != nil {
		if d, err := time.Parse("2006-01-02", *f.DueDate); err != nil || d.Format("2006-01-02") != *f.DueDate {
			t.Errorf("bad due date %q", *f.DueDate)
		}
	}
	if got.ActionItems == nil {
		t.Errorf("action_items is nil")
	}
	seen := map[string]bool{}
	ids := map[string]bool{}
	for _, it := range got.ActionItems {
		switch it.Kind {
		case schema.KindVerifyPurchaseOrder, schema.KindReviewTax, schema.KindContactSupplier:
		default:
			t.Errorf("unknown kind %q", it.Kind)
		}
		if seen[it.Kind] {
			t.Errorf("kind %q twice", it.Kind)
		}
		seen[it.Kind] = true
		if ids[it.ID] || it.ID == "" {
			t.Errorf("bad id %q", it.ID)
		}
		ids[it.ID] = true
		if strings.TrimSpace(it.Evidence) == "" || len(it.Evidence) > 500 || !strings.Contains(text, it.Evidence) || controlIn(it.Evidence) {
			t.Errorf("evidence %q is not a substring of the text (or too long)", it.Evidence)
		}
	}
}

// extractCache shares results between the tests that read the same corpus
// (the development set, the fixture suite and the evidence property).
var extractCache struct {
	sync.Mutex
	m map[string]*cachedResult
}

type cachedResult struct {
	once sync.Once
	res  schema.InvoiceSummaryV1
}

func extractCached(text string) schema.InvoiceSummaryV1 {
	extractCache.Lock()
	if extractCache.m == nil {
		extractCache.m = map[string]*cachedResult{}
	}
	c, ok := extractCache.m[text]
	if !ok {
		c = &cachedResult{}
		extractCache.m[text] = c
	}
	extractCache.Unlock()
	c.once.Do(func() { c.res = Extract(text) })
	return c.res
}
