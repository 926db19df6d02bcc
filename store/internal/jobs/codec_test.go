package jobs

import (
	"strings"
	"testing"
)

func TestPackRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"short", "x"},
		{"invoice", strings.Repeat("Invoice 42, EUR 1.234,50, Müller GmbH\n", 50)},
		{"not utf-8", "\xff\xfe\x00 bytes as written"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := (&Core{}).pack(kindText, []byte(tt.in))
			if len(z) == 0 {
				t.Fatal("pack wrote no frame: the column would look unset")
			}
			got, err := unpack(z, "the old column must not be read")
			if err != nil || got != tt.in {
				t.Fatalf("unpack = %q, %v; want %q", got, err, tt.in)
			}
			n, err := unpackedSize(z)
			if err != nil || n != int64(len(tt.in)) {
				t.Fatalf("unpackedSize = %d, %v; want %d", n, err, len(tt.in))
			}
		})
	}
	if got, err := unpack(nil, "old row"); err != nil || got != "old row" {
		t.Fatalf("unpack of a row written before 012 = %q, %v; want its TEXT column", got, err)
	}
	if _, err := unpack([]byte("not zstd"), ""); err == nil {
		t.Fatal("unpack of garbage succeeded")
	}
}
