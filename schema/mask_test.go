package schema

import "testing"

func TestMaskIBAN(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"DE89370400440532013000", "DE89…3000"},
		{"DE89 3704 0044 0532 0130 00", "DE89…3000"},
		{"gb29nwbk60161331926819", "GB29…6819"},
		{"NO9386011117947", "NO93…7947"},
		{"DE89", "…"},
		{"", "…"},
		{"DE89-3704-0044-0532", "…"},
	} {
		if got := MaskIBAN(tc.in); got != tc.want {
			t.Errorf("MaskIBAN(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMaskIBANIn(t *testing.T) {
	t.Parallel()
	const iban = "DE89370400440532013000"
	for _, tc := range []struct {
		name, text, want string
		found            bool
	}{
		{"print form", "IBAN DE89 3704 0044 0532 0130 00", "IBAN DE89…3000", true},
		{"electronic", "IBAN: DE89370400440532013000.", "IBAN: DE89…3000.", true},
		{"dashes and lower case", "de89-3704-0044-0532-0130-00 BIC", "DE89…3000 BIC", true},
		{"no-break spaces", "DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000", "DE89…3000", true},
		{"twice", "DE89370400440532013000 / DE89 3704 0044 0532 0130 00", "DE89…3000 / DE89…3000", true},
		{"inside a longer token", "XDE89370400440532013000", "XDE89370400440532013000", false},
		{"one digit off", "DE89 3704 0044 0532 0130 01", "DE89 3704 0044 0532 0130 01", false},
		{"absent", "Bankverbindung folgt", "Bankverbindung folgt", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, found := MaskIBANIn(tc.text, iban)
			if got != tc.want || found != tc.found {
				t.Errorf("MaskIBANIn(%q) = %q, %v; want %q, %v", tc.text, got, found, tc.want, tc.found)
			}
		})
	}
}
