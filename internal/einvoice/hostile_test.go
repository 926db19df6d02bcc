package einvoice

import (
	"errors"
	"strings"
	"testing"
)

// ublHead opens a minimal UBL invoice.
const ublHead = `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">`

// TestHostileXML feeds documents built to hurt an XML reader: each must be
// refused with one line naming the reason, quickly and without a panic.
func TestHostileXML(t *testing.T) {
	t.Parallel()
	laughs := `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
` + ublHead + `<cbc:ID>&lol3;</cbc:ID></Invoice>`
	xxe := `<?xml version="1.0"?>
<!DOCTYPE Invoice [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
` + ublHead + `<cbc:ID>&xxe;</cbc:ID></Invoice>`
	big := ublHead + `<cbc:Note>` + strings.Repeat("A", 50<<20) + `</cbc:Note></Invoice>`
	deep := ublHead + strings.Repeat("<a>", MaxDepth+1) + strings.Repeat("</a>", MaxDepth+1) + `</Invoice>`
	tests := []struct {
		name, src, want string
	}{
		{"billion laughs", laughs, "DOCTYPE"},
		{"external entity", xxe, "DOCTYPE"},
		{"undeclared entity", ublHead + `<cbc:ID>&xxe;</cbc:ID></Invoice>`, "not well-formed XML"},
		{"50 MB", big, "over the 20971520 byte e-invoice limit"},
		{"wrong namespace", `<Invoice xmlns="urn:example:not-ubl"><ID>1</ID></Invoice>`, "not a recognised e-invoice: root <Invoice> in urn:example:not-ubl"},
		{"no namespace", `<Invoice><ID>1</ID></Invoice>`, "not a recognised e-invoice: root <Invoice> in no namespace"},
		{"truncated", ublHead + `<cbc:ID>1</cbc:ID><cbc:IssueDate>2026-0`, "not well-formed XML"},
		{"two roots", ublHead + `</Invoice>` + ublHead + `</Invoice>`, "a second root element"},
		{"text after the root", ublHead + `</Invoice>trailing`, "text outside the root element"},
		{"too deep", deep, "nested deeper than 64"},
		{"not XML", "Invoice 42\nTotal 10.00 EUR\n", "not XML: no root element"},
		{"empty", "", "not XML: no root element"},
		{"latin-1 declared", `<?xml version="1.0" encoding="ISO-8859-1"?>` + ublHead + `</Invoice>`, "only UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inv, err := Parse(tt.src)
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", inv)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %T, want *Error", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, want it to contain %q", msg, tt.want)
			}
			if strings.ContainsAny(msg, "\n\r") || len(msg) > 400 {
				t.Errorf("error is not one short line: %q", msg)
			}
		})
	}
}

// TestParseSources checks that a field's Source is the element exactly as
// the file writes it, entities and attributes included, and Value its
// decoded content.
func TestParseSources(t *testing.T) {
	t.Parallel()
	src := ublHead + "\n  <cbc:ID>A&amp;B-1</cbc:ID>\n  <cbc:DocumentCurrencyCode listID=\"ISO 4217\">EUR</cbc:DocumentCurrencyCode>\n</Invoice>\n"
	inv, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Format != FormatUBLInvoice {
		t.Errorf("format %q, want %q", inv.Format, FormatUBLInvoice)
	}
	if got, want := inv.Number.Value, "A&B-1"; got != want {
		t.Errorf("number value %q, want %q", got, want)
	}
	if got, want := inv.Number.Source, "<cbc:ID>A&amp;B-1</cbc:ID>"; got != want {
		t.Errorf("number source %q, want %q", got, want)
	}
	if got, want := inv.Currency.Source, `<cbc:DocumentCurrencyCode listID="ISO 4217">EUR</cbc:DocumentCurrencyCode>`; got != want {
		t.Errorf("currency source %q, want %q", got, want)
	}
}

// FuzzEInvoice: Parse (and Detect) never panic, and a parsed field's
// Source is always a substring of the input.
func FuzzEInvoice(f *testing.F) {
	f.Add(ublHead + `<cbc:ID>1</cbc:ID><cbc:IssueDate>2026-01-02</cbc:IssueDate></Invoice>`)
	f.Add(`<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"><rsm:ExchangedDocument><ID>1</ID></rsm:ExchangedDocument></rsm:CrossIndustryInvoice>`)
	f.Add(`<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"/>`)
	f.Add(`<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>`)
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = Detect(src)
		inv, err := Parse(src)
		if err != nil {
			return
		}
		for _, fl := range []Field{inv.Number, inv.IssueDate, inv.DueDate, inv.Currency, inv.SellerName, inv.Net, inv.Gross, inv.Due} {
			if fl.Source != "" && !strings.Contains(src, fl.Source) {
				t.Fatalf("source %q not in the input", fl.Source)
			}
		}
		for _, l := range inv.Lines {
			_, _ = Minor(l.Amount.Value, 2)
			_, _ = Quantity(l.Quantity.Value)
			_, _ = Date(l.Name)
		}
	})
}
