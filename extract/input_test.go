package extract_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
)

const testUBL = "<?xml version=\"1.0\"?>\r\n<Invoice xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2\">\r\n<ID xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2\">1</ID>\r\n</Invoice>\r\n"

// Without --include, discovery takes text and e-invoices: an e-invoice is
// keyed by its bytes (CRLF and all) and carries its syntax; any other XML,
// a DOCTYPE or a file over the e-invoice cap is skipped with a reason that
// needs review.
func TestDiscoverEInvoices(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"a.txt":     "Invoice 1\nTotal 10.00 EUR\n",
		"b.XML":     testUBL,
		"note.xml":  `<note xmlns="urn:example">hi</note>`,
		"lolz.xml":  `<!DOCTYPE x [<!ENTITY a "b">]>` + testUBL,
		"huge.xml":  strings.Repeat(" ", 21<<20),
		"notes.md":  "not taken",
		"empty.xml": "  \n",
		// Over --max-bytes but under the e-invoice cap: XRechnung files
		// carry their PDF rendering in base64.
		"c.xml": strings.Replace(testUBL, "</Invoice>", "<!--"+strings.Repeat("x", 2<<20)+"--></Invoice>", 1),
	})
	type got struct{ path, format, digest string }
	var found []got
	skipped := map[string]string{}
	err := extract.Discover(context.Background(), root, extract.DiscoverOptions{MaxBytes: 1 << 20},
		func(f extract.Found) error {
			digest := f.Digest
			if f.Path == "c.xml" {
				digest = "" // not spelled out here
			}
			found = append(found, got{f.Path, f.Format, digest})
			return nil
		},
		func(s extract.Skipped) { skipped[s.Path] = s.Reason })
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(testUBL))
	want := []got{
		{"a.txt", "txt", extract.Digest("Invoice 1\nTotal 10.00 EUR\n")},
		{"b.XML", "ubl-invoice", hex.EncodeToString(sum[:])},
		{"c.xml", "ubl-invoice", ""},
	}
	if diff := cmp.Diff(want, found, cmp.AllowUnexported(got{})); diff != "" {
		t.Errorf("found (-want +got):\n%s", diff)
	}
	wantSkipped := map[string]string{
		"note.xml":  extract.SkipNotEInvoice,
		"lolz.xml":  extract.SkipNotEInvoice,
		"huge.xml":  extract.SkipOversized,
		"notes.md":  extract.SkipNotIncluded,
		"empty.xml": extract.SkipEmpty,
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if !extract.NeedsReview(extract.SkipNotEInvoice) {
		t.Error("a .xml that is not an e-invoice must need review")
	}
}

// namedProvider answers with its name.
type namedProvider struct{ name string }

func (p namedProvider) Name() string { return p.name }
func (p namedProvider) Extract(context.Context, *extract.Request) (*extract.Response, error) {
	return &extract.Response{Output: []byte(p.name)}, nil
}

// Auto sends an e-invoice to the e-invoice provider and everything else,
// XML that is not an e-invoice included, to the text provider.
func TestAutoRoutes(t *testing.T) {
	t.Parallel()
	a := &extract.Auto{EInvoice: namedProvider{"einvoice"}, Text: namedProvider{"rules"}}
	for text, want := range map[string]string{
		testUBL:                               "einvoice",
		"Invoice 1\nTotal 10.00 EUR\n":        "rules",
		`<note xmlns="urn:example">x</note>`:  "rules",
		"  <Invoice>not namespaced</Invoice>": "rules",
	} {
		resp, err := a.Extract(context.Background(), &extract.Request{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if string(resp.Output) != want || extract.RouteOfText(a, text) != want {
			t.Errorf("%.30q went to %s (route %s), want %s", text, resp.Output, extract.RouteOfText(a, text), want)
		}
	}
	if got := extract.RouteOf(a, "cii"); got != "einvoice" {
		t.Errorf("route of cii = %s, want einvoice", got)
	}
	if got := extract.RouteOf(a, "txt"); got != "rules" {
		t.Errorf("route of txt = %s, want rules", got)
	}
}
