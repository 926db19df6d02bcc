package review

import "testing"

func ptr(s string) *string { return &s }

func TestNormalizeInvoiceNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   *string
		want string
	}{
		{"nil is unknown", nil, ""},
		{"only separators is unknown", ptr(" # - / "), ""},
		{"plain", ptr("RE-2026-00417"), "re2026417"},
		{"spaces and case", ptr("re 2026 00417"), "re2026417"},
		{"hash and slashes", ptr("#RE/2026/417"), "re2026417"},
		{"dots", ptr("RE.2026.0417"), "re2026417"},
		{"leading zeros per run", ptr("INV007A01"), "inv7a1"},
		{"zeros inside a run count", ptr("20260417"), "20260417"},
		{"all zeros keeps one", ptr("000"), "0"},
		{"full-width digits", ptr("ＲＥ－２０２６－４１７"), "re2026417"},
		{"accents dropped", ptr("FÄ-12"), "fa12"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := NormalizeInvoiceNumber(tc.in); got != tc.want {
				t.Fatalf("NormalizeInvoiceNumber(%q) = %q, want %q", deref(tc.in), got, tc.want)
			}
		})
	}
}

func TestNameKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   *string
		want string
	}{
		{"nil is unknown", nil, ""},
		{"punctuation only is unknown", ptr(" - . "), ""},
		{"German compound form", ptr("ACME Tools GmbH & Co. KG"), "acmetools"},
		{"hyphen and case", ptr("Acme-Tools"), "acmetools"},
		{"accents", ptr("Société Générale SA"), "societegenerale"},
		{"eszett", ptr("Müller & Straße AG"), "mullerstrasse"},
		{"dotted Italian form", ptr("Rossi Forniture S.p.A."), "rossiforniture"},
		{"spaced dotted Spanish form", ptr("Gráficas Norte, S. L."), "graficasnorte"},
		{"Dutch form", ptr("Van Dijk B.V."), "vandijk"},
		{"Polish form", ptr("Kowalski Sp. z o.o."), "kowalski"},
		{"English", ptr("Northwind Traders Ltd."), "northwindtraders"},
		{"form inside the name stays", ptr("AG Solutions Berlin"), "agsolutionsberlin"},
		{"a name that is only a form keeps it", ptr("GmbH"), "gmbh"},
		{"initials inside a name join", ptr("J. P. Smith Inc"), "jpsmith"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := NameKey(tc.in); got != tc.want {
				t.Fatalf("NameKey(%q) = %q, want %q", deref(tc.in), got, tc.want)
			}
		})
	}
}

func TestVATKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   *string
		want string
	}{
		{"nil is unknown", nil, ""},
		{"no digits is unknown", ptr("n/a"), ""},
		{"with prefix", ptr("DE 123 456 789"), "123456789"},
		{"lowercase prefix", ptr("de123456789"), "123456789"},
		{"without prefix", ptr("123456789"), "123456789"},
		{"Italian cited bare", ptr("00994470962"), "00994470962"},
		{"Italian with prefix", ptr("IT00994470962"), "00994470962"},
		{"Swiss keeps its form", ptr("CHE-123.456.789 MWST"), "CHE123456789MWST"},
		{"Dutch letters inside stay", ptr("NL 8530.12.345.B01"), "853012345B01"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := VATKey(tc.in); got != tc.want {
				t.Fatalf("VATKey(%q) = %q, want %q", deref(tc.in), got, tc.want)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
