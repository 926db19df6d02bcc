package synth

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	const n = 600
	dir := t.TempDir()
	if _, err := Write(dir, n, 250, 1); err != nil {
		t.Fatal(err)
	}
	seen := map[[32]byte]int{}
	langs := map[string]bool{}
	for i := range n {
		p := Path(dir, i, 250)
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(text, Doc(1, i)) {
			t.Fatalf("%s: differs from Doc(1, %d): not deterministic", p, i)
		}
		if !utf8.Valid(text) {
			t.Fatalf("%s: not valid UTF-8", p)
		}
		if len(text) < 700 || len(text) > 4096 {
			t.Errorf("%s: %d bytes, want about 1-3 KB", p, len(text))
		}
		h := sha256.Sum256(text)
		if j, ok := seen[h]; ok {
			t.Fatalf("documents %d and %d are equal", j, i)
		}
		seen[h] = i
		r := newInvoiceForTest(i)
		langs[r.l.code] = true
		if !strings.Contains(string(text), r.number) {
			t.Errorf("%s: invoice number %q not in the text", p, r.number)
		}
	}
	if len(langs) != 6 {
		t.Errorf("languages %v: want all 6", langs)
	}
	if got := filepath.Base(filepath.Dir(Path(dir, 599, 250))); got != "0002" {
		t.Errorf("folder of document 599 = %s, want 0002", got)
	}
}

func TestMoney(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		m     money
		minor int64
		want  string
	}{
		{"en", money{currencies["GBP"], nsEN, curPrefixSymbol}, 370368, "£3,703.68"},
		{"de", money{currencies["EUR"], nsEU, curSuffixSymbol}, 538535, "5.385,35 €"},
		{"nl prefix", money{currencies["EUR"], nsEU, curPrefixSymbol}, 400782, "€ 4.007,82"},
		{"jpy", money{currencies["JPY"], nsEN, curPrefixSymbol}, 534600, "¥534,600"},
		{"bhd", money{currencies["BHD"], nsEN, curPrefixCode}, 2380125, "BHD 2,380.125"},
		{"chf", money{currencies["CHF"], nsCH, curSuffixCode}, 123456789, "1'234'567.89 CHF"},
		{"fr nnbsp", money{currencies["EUR"], nsFRnb, curNone}, 495444, "4\u202f954,44"},
		{"small", money{currencies["EUR"], nsEU, curNone}, 5, "0,05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.m.amount(tt.minor); got != tt.want {
				t.Errorf("amount(%d) = %q, want %q", tt.minor, got, tt.want)
			}
		})
	}
}

func newInvoiceForTest(i int) *invoice {
	r := newRand(1, i)
	return newInvoice(r, i)
}
