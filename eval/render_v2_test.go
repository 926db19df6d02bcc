package eval

import (
	"bytes"
	"strings"
	"testing"
)

// v2Report is a one-provider invoice-v2 report with a masked IBAN mismatch,
// as ScoreVersion writes it.
func v2Report(t *testing.T) *Report {
	t.Helper()
	r := report("llm", 100, map[string]int{FieldLineCount: 97, FieldNetMinor: 91})
	r.Suite, r.SchemaVersion, r.Fields, r.Documents = "invoices", "invoice-v2", FieldsV2, 100
	p := r.Providers[0]
	p.Timing = &ProviderTiming{}
	p.Results = []*DocResult{{Name: "a.txt", SubSuite: "invoices", State: "succeeded", Timing: &DocTiming{},
		Mismatches: []Mismatch{mismatch(FieldSupplierIBAN, "DE89370400440532013000", "DE02120300000000202051")}}}
	return r
}

func TestRenderV2Fields(t *testing.T) {
	t.Parallel()
	r := v2Report(t)
	write := map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return WriteText(b, r, false) },
		"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, r) },
		"junit":    func(b *bytes.Buffer) error { return WriteJUnit(b, r) },
		"html":     func(b *bytes.Buffer) error { return WriteHTML(b, r) },
	}
	for name, w := range write {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := w(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "line_count") {
				t.Errorf("%s report does not list the v2 field line_count:\n%s", name, out)
			}
			for _, iban := range []string{"DE89370400440532013000", "DE02120300000000202051", "0532013000"} {
				if strings.Contains(out, iban) {
					t.Errorf("%s report shows the IBAN %s unmasked", name, iban)
				}
			}
		})
	}
}
