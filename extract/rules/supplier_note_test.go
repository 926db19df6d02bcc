package rules

import "testing"

// TestHeaderNoteBeforeRegistration: a licence, branch or former-name line
// between a name and its registration number leaves the number the name's.
func TestHeaderNoteBeforeRegistration(t *testing.T) {
	t.Parallel()
	// A company under the letterhead (a customer) wins when the name's
	// registration line is not found.
	const below = "   NO 14 JALAN KENANGA\n   SIMPLIFIED TAX INVOICE\n SERI ANGKASA TRADING SDN BHD\n RECEIPT#: CB00017734\n"
	tests := []struct{ name, text, want string }{
		{"licence line, a company below", "   KEDAI BUKU CAHAYA\n   LESEN NO: MBSA/2019/00871\n   (JM0412207-T)\n" + below, "KEDAI BUKU CAHAYA"},
		{"branch line, a company below", "   KEDAI BUKU CAHAYA\n   BRANCH: TAMAN MELATI\n   (JM0412207-T)\n" + below, "KEDAI BUKU CAHAYA"},
		{"licence line", "   KEDAI BUKU CAHAYA\n   LESEN NO: MBSA/2019/00871\n   (JM0412207-T)\n   NO 14 JALAN KENANGA\n", "KEDAI BUKU CAHAYA"},
		{"branch line", "   SERI MAJU MART\n   BRANCH: TAMAN MELATI\n   CO. REG: 1122334-K\n   NO 3 JALAN API\n", "SERI MAJU MART"},
		{"former name in parentheses", "   SERI MAJU MART\n   (FORMERLY KNOWN AS MAJU NIAGA)\n   (1122334-K)\n   NO 3 JALAN API\n", "SERI MAJU MART"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := supplierOf(t, tc.text); got != tc.want {
				t.Errorf("supplier = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHeaderNote(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw  string
		want bool
	}{
		{"  LICENCE NO: KPDN/2018/004512", true},
		{"BRANCH: TAMAN SERI ORKID OUTLET", true},
		{"(FORMERLY KNOWN AS BRIGHTWAVE TRADING)", true},
		{"OWNED BY: RIVER GATE SDN BHD", false}, // a company of its own
		{"NO 3, JALAN API: LOT 5", false},       // digits before the colon
		{"TAX INVOICE", false},
		{"TEL:", false},
	} {
		if got := headerNote(c.raw); got != c.want {
			t.Errorf("headerNote(%q) = %v, want %v", c.raw, got, c.want)
		}
	}
}
