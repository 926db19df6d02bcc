package rules

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// equivLines lists the lines a fast scanner is held to its reference on:
// every line of the fixtures and development texts (and of the local dev
// set when present; its texts are never committed), each line upper- and
// lower-cased, and random lines drawn from an alphabet rich in currency
// symbols, letters, digits and separators.
func equivLines(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../../fixtures/*/*.txt", "../../fixtures/*/*/*.txt", "testdata/dev/*.txt",
		"/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatalf("glob %s: %v", pat, err)
		}
		files = append(files, m...)
	}
	if len(files) < 100 {
		t.Fatalf("only %d texts found; the comparison would prove little", len(files))
	}
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		for _, ln := range strings.Split(normalizeText(b), "\n") {
			lines = append(lines, ln, strings.ToUpper(ln), strings.ToLower(ln))
		}
	}
	alphabet := []string{"a", "e", "i", "l", "r", "s", "k", "m", "t", "R", "M", "S", "D", "B", "H", "K", "U", "E",
		"Z", "Ł", "ł", "č", "Č", "$", "€", "£", "¥", "￥", "₹", "＄", "(", ")", ".", ",", "-", "/", " ", "  ", "\t",
		"0", "1", "5", "9", "sdn", "SDN", "BHD", "EUR", "eur", "usd", "RM", "Rs.", "kr.", "SFr.", "US$", "in ", "AMT(",
		"AMOUNT(", "é", "ß", "\u00a0", "\u200b", "|", "¦", "│", "Ä", "ñ", "K", "ſ", "i̇", "元", "円"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		lines = append(lines, b.String())
	}
	return lines
}

// TestScanCurrenciesMatchesFind holds scanCurrencies to findCurrencies.
func TestScanCurrenciesMatchesFind(t *testing.T) {
	t.Parallel()
	bad := 0
	for _, ln := range equivLines(t) {
		want, got := findCurrencies(ln), scanCurrencies(ln)
		if !reflect.DeepEqual(want, got) {
			bad++
			if bad <= 5 {
				t.Errorf("line %q:\nfindCurrencies %v\nscanCurrencies %v", ln, want, got)
			}
		}
	}
}
