package schema

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The per-string helpers of the validator have fast paths (ASCII first,
// fewer allocations); each is held to its frozen form in reference_test.go
// on every text below and on random texts built from the bytes and runes
// its rules turn on.

// helperTexts returns the fixtures' texts, each line of them, the test
// sources, and random texts of the characters the helpers treat specially.
func helperTexts(t testing.TB) []string {
	t.Helper()
	var texts []string
	err := filepath.WalkDir(filepath.Join("..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txt") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		texts = append(texts, string(b))
		texts = append(texts, strings.Split(string(b), "\n")...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 1000 {
		t.Fatalf("only %d fixture texts: fixtures/ moved", len(texts))
	}
	texts = append(texts, testSource, testSourceV2)
	texts = append(texts, strings.Split(testSourceV2, "\n")...)
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		texts = append(texts, randomText(r, r.IntN(40)))
	}
	return texts
}

// textPieces are what random texts are made of: digits, separators of
// numbers and dates, letters of both cases and of month names, white space
// of every kind, controls, bidirectional marks, invalid UTF-8 and
// multi-byte letters that fold to ASCII ones.
var textPieces = []string{
	"0", "1", "2", "3", "5", "9", "00", "12", "2026", "1234", "56",
	".", ",", " ", "-", "/", "'", "\u2019", "\u00a0", "\u202f", "\u2009", "\u2013", ",-",
	"a", "B", "x", "Z", "k", "\u212a", "s", "\u017f", "ß", "é", "É", "İ", "ı",
	"jan", "MAR", "März", "st", "th", "of", "de", "der", "DEL", "Total", "EUR", "€", "$",
	"\n", "\t", "\r", "\v", "\f", "\x00", "\x1f", "\x7f", "\u0085", "\u009f", "\u2028",
	"\u202a", "\u202e", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c", "\u200b",
	"\xff", "\xc3", "\xe2\x80",
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(textPieces[r.IntN(len(textPieces))])
	}
	return b.String()
}

func TestCheckTextMatchesReference(t *testing.T) {
	t.Parallel()
	for _, s := range helperTexts(t) {
		for _, limit := range []int{maxEvidenceBytes, 10} {
			got, want := checkText("p", s, limit), refcheckText("p", s, limit)
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Fatalf("checkText(%q, %d) = %v, reference %v", s, limit, got, want)
			}
		}
	}
}
