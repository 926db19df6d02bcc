package einvoice

import "testing"

func TestMinor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		exp  int
		want int64
		ok   bool
	}{
		{"10686.2", 2, 1068620, true},
		{"1000", 2, 100000, true},
		{"-12.50", 2, -1250, true},
		{"+0.5", 2, 50, true},
		{".5", 2, 50, true},
		{"12.340", 2, 1234, true},
		{"12.345", 2, 0, false}, // no exact minor-unit form: never rounded
		{"1500", 0, 1500, true},
		{"1.250", 3, 1250, true},
		{"1,50", 2, 0, false},
		{"1e3", 2, 0, false},
		{"", 2, 0, false},
		{"9999999999999999", 2, 0, false}, // beyond 2^53
	}
	for _, tt := range tests {
		got, ok := Minor(tt.in, tt.exp)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Minor(%q, %d) = %d, %v; want %d, %v", tt.in, tt.exp, got, ok, tt.want, tt.ok)
		}
	}
}

func TestQuantityAndDate(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"20.000": "20.000", "+2": "2", ".5": "0.5", "007": "7", "-1.5": "-1.5", "-0": "0"} {
		if got, ok := Quantity(in); !ok || got != want {
			t.Errorf("Quantity(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	dates := []struct {
		f    Field
		want string
		ok   bool
	}{
		{Field{Value: "2026-03-01"}, "2026-03-01", true},
		{Field{Value: "2026-03-01Z"}, "2026-03-01", true},
		{Field{Value: "20260301", Attr: map[string]string{"format": "102"}}, "2026-03-01", true},
		{Field{Value: "202603", Attr: map[string]string{"format": "610"}}, "", false},
		{Field{Value: "2026-02-30"}, "", false},
	}
	for _, tt := range dates {
		if got, ok := Date(tt.f); got != tt.want || ok != tt.ok {
			t.Errorf("Date(%+v) = %q, %v; want %q, %v", tt.f, got, ok, tt.want, tt.ok)
		}
	}
}
