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

func TestCutResult(t *testing.T) {
	t.Parallel()
	result := `{"title":"Invoice 7 from Smith & Sons <UK>","bullets":["Total GBP 12.00","Due 2026-01-01"]}`
	escaped := `{"title":"Invoice 7 from Smith \u0026 Sons \u003cUK\u003e","bullets":["Total GBP 12.00","Due 2026-01-01"]}`
	plain := `{"title":"Invoice 8 from Smith and Sons","bullets":["Total GBP 12.00","Due 2026-01-01","x"]}`
	tests := []struct {
		name, payload, result string
		wantAt                *int64
	}{
		{"verbatim", `{"event":"e","result":` + result + `}`, result, ptr(22)},
		{"html-escaped", `{"event":"e","result":` + escaped + `}`, result, ptr(-23)},
		{"verbatim wins over escaped", `{"a":` + escaped + `,"b":` + result + `}`, result, ptr(int64(len(`{"a":` + escaped + `,"b":`)))},
		{"no escaping to undo", `{"event":"e","result":` + plain + `}`, plain, ptr(22)},
		{"absent", `{"event":"e"}`, result, nil},
		{"short", `{"r":{"a":"&"}}`, `{"a":"&"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, at := cutResult([]byte(tt.payload), []byte(tt.result))
			if (at == nil) != (tt.wantAt == nil) || (at != nil && *at != *tt.wantAt) {
				t.Fatalf("offset = %v, want %v", deref(at), deref(tt.wantAt))
			}
			if at == nil && string(body) != tt.payload {
				t.Fatalf("uncut body = %q, want the payload", body)
			}
			got, err := spliceResult(string(body), at, tt.result)
			if err != nil || got != tt.payload {
				t.Fatalf("spliceResult = %q, %v; want %q", got, err, tt.payload)
			}
		})
	}
	for _, at := range []int64{-1000, 1000} {
		if _, err := spliceResult("{}", &at, result); err == nil {
			t.Errorf("offset %d outside a 2-byte body accepted", at)
		}
	}
}

func ptr(v int64) *int64 { return &v }

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// FuzzCutSplice: whatever is cut is put back byte for byte.
func FuzzCutSplice(f *testing.F) {
	f.Add([]byte(`{"r":{"t":"a & b <c> d e f g h i j k l m n o p q r s t u v w x y z 0123456789"}}`),
		[]byte(`{"t":"a & b <c> d e f g h i j k l m n o p q r s t u v w x y z 0123456789"}`))
	f.Add([]byte(`{"r":{"t":"a \u0026 b \u003cc\u003e d e f g h i j k l m n o p q r s t u v w x y z 0123456789"}}`),
		[]byte(`{"t":"a & b <c> d e f g h i j k l m n o p q r s t u v w x y z 0123456789"}`))
	f.Fuzz(func(t *testing.T, payload, result []byte) {
		body, at := cutResult(payload, result)
		got, err := spliceResult(string(body), at, string(result))
		if err != nil || got != string(payload) {
			t.Fatalf("splice(cut) = %q, %v; want %q", got, err, payload)
		}
	})
}
