package rules

import (
	"context"
	"errors"
	"testing"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
)

// TestProviderVersions checks that the provider answers each released
// version with a document of that version that validates, and refuses any
// other version as a permanent error.
func TestProviderVersions(t *testing.T) {
	t.Parallel()
	const text = "Acme Ltd\nVAT No. GB 284 5519 07\n\nINVOICE\nInvoice No. INV-1\nInvoice date: 01/03/2026\nPO Number: 4500012345\nTotal 10.00 EUR\n"
	for _, name := range []string{schema.V1, schema.V2} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := schema.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := New().Extract(context.Background(), &extract.Request{Text: text, Schema: v})
			if err != nil {
				t.Fatalf("extract: %v", err)
			}
			if resp.Model != Model {
				t.Errorf("model %q, want %q", resp.Model, Model)
			}
			res, err := v.ValidateReviewable(resp.Output, text)
			if err != nil {
				t.Fatalf("%s answer refused: %v\n%s", name, err, resp.Output)
			}
			if res.Version != name {
				t.Errorf("version %q, want %q", res.Version, name)
			}
			if name == schema.V2 && (res.InvoiceV2 == nil || orDash(res.InvoiceV2.PONumber) != "4500012345" || orDash(res.InvoiceV2.SupplierVATID) != "GB284551907") {
				t.Errorf("v2 facts not carried: %s", resp.Output)
			}
		})
	}
	t.Run("unknown version", func(t *testing.T) {
		t.Parallel()
		v := *schema.Latest()
		v.Name = "invoice-v9"
		_, err := New().Extract(context.Background(), &extract.Request{Text: text, Schema: &v})
		var pe *extract.ProviderError
		if !errors.As(err, &pe) || pe.Class != extract.ClassPermanent {
			t.Fatalf("got %v, want a permanent provider error", err)
		}
	})
}
