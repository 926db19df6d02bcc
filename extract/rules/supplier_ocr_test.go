package rules

import "testing"

func TestGarbledTradeWord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want bool
	}{
		{"SWC ENTERORISE SDN BHD", true},    // one letter misread
		{"HAPPY SNACKS ENTYERPRISE", true},  // one stray letter
		{"KOTA ENTERPRISES SDN BHD", false}, // a plural, not noise
		{"BECON STATIONER", false},          // a real word one letter short
		{"ALPHA STATIONARY", false},         // a common real spelling
		{"PRIME SUPPLIER SDN BHD", false},   // a real word one letter off "supplies"
		{"Acme Enterorise Ltd", false},      // only upper-case receipt text is judged
		{"SWC ENTERPRISE SDN BHD", false},
	}
	for _, tc := range tests {
		if got := garbledTradeWord(tc.name); got != tc.want {
			t.Errorf("garbledTradeWord(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMisreadOwnerMark(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want string // the text after the mark, "" for none
	}{
		{"    DWNER BY CASTLE GATE S/B", " CASTLE GATE S/B"},
		{"OWNED BY: RIVER FOODS SDN BHD", ": RIVER FOODS SDN BHD"},
		{"Payment by EFT to Acme Contractors Ltd", ""}, // "Payment" is no owner word
		{"OWNED BY CASH", ""},                          // no company follows
	}
	for _, tc := range tests {
		got := ""
		if k := misreadOwnerMark(tc.line); k > 0 {
			got = tc.line[k:]
		}
		if got != tc.want {
			t.Errorf("misreadOwnerMark(%q) leaves %q, want %q", tc.line, got, tc.want)
		}
	}
}
