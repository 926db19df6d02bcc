package schema

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzValidate checks the validator's contract on arbitrary input: it never
// panics, every error is a bare *ValidationError with a known category and
// a printable ASCII path and message (so no candidate bytes can leak
// through them raw), and every accepted document's canonical JSON is a
// fixed point that validates again to the same result.
//
// The seed corpus in testdata/fuzz/FuzzValidate holds a valid document and
// one document per rejection category.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(validDoc), testSource)
	f.Fuzz(func(t *testing.T, raw []byte, source string) {
		v := v1
		res, err := v.Validate(raw, source)
		if err != nil {
			ve, ok := err.(*ValidationError)
			if !ok {
				t.Fatalf("error %T %v, want *ValidationError", err, err)
			}
			if res != nil {
				t.Fatalf("result returned with error %v", err)
			}
			if !slices.Contains(allCategories, ve.Category) {
				t.Fatalf("unknown category %q", ve.Category)
			}
			if !printableASCII(ve.Path) || !printableASCII(ve.Msg) || ve.Path == "" || ve.Msg == "" {
				t.Fatalf("path %q or message %q is empty or not printable ASCII", ve.Path, ve.Msg)
			}
			return
		}

		// Accepted documents obey the limits the schema states.
		if len(res.Bullets) < minBullets || len(res.Bullets) > maxBullets {
			t.Fatalf("accepted %d bullets", len(res.Bullets))
		}
		if strings.TrimSpace(res.Title) == "" || len(res.Title) > maxTitleBytes {
			t.Fatalf("accepted title of %d bytes", len(res.Title))
		}
		if res.Facts.TotalMinor != nil && (*res.Facts.TotalMinor < 0 || *res.Facts.TotalMinor > maxSafeInteger) {
			t.Fatalf("accepted total_minor %d", *res.Facts.TotalMinor)
		}
		if res.Facts.Currency != nil {
			if _, ok := CurrencyExponent(*res.Facts.Currency); !ok {
				t.Fatalf("accepted currency %q", *res.Facts.Currency)
			}
		}
		// Nothing displayed carries a bidi control, and a U+FFFD in the
		// result was sent as one, never made from a lone surrogate.
		shown := []string{res.Title}
		shown = append(shown, res.Bullets...)
		for _, p := range []*string{res.Facts.SupplierName, res.Facts.InvoiceNumber} {
			if p != nil {
				shown = append(shown, *p)
			}
		}
		for _, a := range res.Actions {
			shown = append(shown, a.Evidence)
		}
		for _, s := range shown {
			if strings.ContainsFunc(s, isBidiControl) {
				t.Fatalf("accepted a bidi control in %q", s)
			}
		}
		if bytes.ContainsRune(res.JSON, '\uFFFD') && !bytes.ContainsRune(raw, '\uFFFD') &&
			!bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`)) {
			t.Fatalf("U+FFFD in the result but not in the answer: %q", raw)
		}
		ids := map[string]bool{}
		for _, a := range res.Actions {
			if !strings.Contains(source, a.Evidence) || strings.TrimSpace(a.Evidence) == "" {
				t.Fatalf("accepted evidence %q not in source", a.Evidence)
			}
			if !slices.Contains(v1Kinds, a.Kind) || a.ID == "" || ids[a.ID] {
				t.Fatalf("accepted action %+v", a)
			}
			ids[a.ID] = true
		}

		again, err := v.Validate(res.JSON, source)
		if err != nil {
			t.Fatalf("canonical JSON %q rejected: %v", res.JSON, err)
		}
		if !bytes.Equal(res.JSON, again.JSON) {
			t.Fatalf("canonical JSON not a fixed point:\n%s\n%s", res.JSON, again.JSON)
		}
		if diff := cmp.Diff(res, again); diff != "" {
			t.Fatalf("result of canonical JSON differs (-first +again):\n%s", diff)
		}
	})
}

func printableASCII(s string) bool {
	for i := range len(s) {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// TestFuzzSeedCorpus keeps the committed corpora honest: each seed is named
// after the outcome it exercises, and together a target's seeds cover every
// category its version can report.
func TestFuzzSeedCorpus(t *testing.T) {
	t.Parallel()
	// invoice-summary-v1 reports the categories that existed when it was
	// released; the rest came with invoice-v2.
	v1Categories := allCategories[:slices.Index(allCategories, CategoryEvidence)]
	tests := []struct {
		target     string
		version    string
		categories []Category
	}{
		{"FuzzValidate", V1, v1Categories},
		{"FuzzValidateV2", V2, allCategories},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			t.Parallel()
			v, err := Lookup(tt.version)
			if err != nil {
				t.Fatal(err)
			}
			checkSeedCorpus(t, filepath.Join("testdata", "fuzz", tt.target), v, tt.categories)
		})
	}
}

func checkSeedCorpus(t *testing.T, dir string, v *Version, categories []Category) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[Category]bool{}
	valid := 0
	for _, e := range entries {
		name := e.Name()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		raw, source := parseSeed(t, name, b)
		_, err = v.Validate(raw, source)
		key := strings.ReplaceAll(name, "-", "_")
		if strings.HasPrefix(key, "valid_") {
			valid++
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		i := slices.IndexFunc(categories, func(c Category) bool { return strings.HasPrefix(key, string(c)) })
		if i < 0 {
			t.Errorf("%s: name starts with neither valid- nor a category of %s", name, v.Name)
			continue
		}
		want := categories[i]
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Category != want {
			t.Errorf("%s: got %v, want category %s", name, err, want)
		}
		covered[want] = true
	}
	if valid == 0 {
		t.Error("no valid seed")
	}
	for _, c := range categories {
		if !covered[c] {
			t.Errorf("no seed for category %s", c)
		}
	}
}

// parseSeed reads a "go test fuzz v1" file of ([]byte, string).
func parseSeed(t testing.TB, name string, b []byte) ([]byte, string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "go test fuzz v1" {
		t.Fatalf("%s: not a go test fuzz v1 file with two values", name)
	}
	unquote := func(line, prefix string) string {
		inner, ok := strings.CutPrefix(line, prefix+"(")
		if !ok || !strings.HasSuffix(inner, ")") {
			t.Fatalf("%s: want %s(...), got %q", name, prefix, line)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(inner, ")"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return s
	}
	return []byte(unquote(lines[1], "[]byte")), unquote(lines[2], "string")
}
