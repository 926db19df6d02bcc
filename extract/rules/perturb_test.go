package rules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// perturbations change the layout of a text without changing its facts.
var perturbations = map[string]func(string) string{
	"indent": func(s string) string {
		return "    " + strings.ReplaceAll(s, "\n", "\n    ")
	},
	"trailing spaces": func(s string) string {
		return strings.ReplaceAll(s, "\n", "   \n")
	},
	"no space after colon": func(s string) string {
		return regexp.MustCompile(`: +`).ReplaceAllString(s, ":")
	},
	"wide colon": func(s string) string {
		return regexp.MustCompile(`([A-Za-zÀ-ÿ.]):[ ]?`).ReplaceAllString(s, "$1 :  ")
	},
	"page header": func(s string) string {
		return "Page 1 of 1\n\n" + s + "\n\nPage 1 of 1\n"
	},
	"tabs": func(s string) string {
		return regexp.MustCompile(`  +`).ReplaceAllString(s, "\t")
	},
	"upper": strings.ToUpper,
	"double spacing": func(s string) string {
		return strings.ReplaceAll(s, "\n", "\n\n")
	},
	"crlf leftovers": func(s string) string {
		return strings.ReplaceAll(s, "\n", " \n")
	},
}

// TestPerturbations scores the development and fixture sets under layout
// changes that keep every fact; it reports, and fails only on a large drop.
func TestPerturbations(t *testing.T) {
	if os.Getenv("RULES_PERTURB") == "" {
		t.Skip("set RULES_PERTURB=1")
	}
	type doc struct {
		name string
		text string
		want devExpect
		keys map[string]json.RawMessage
	}
	var docs []doc
	for _, pattern := range []string{"testdata/dev/*.txt", fixtureDir + "/*.txt", fixtureDir + "/*/*.txt"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, _ := os.ReadFile(f)
			jp := strings.TrimSuffix(f, ".txt") + ".json"
			if strings.HasPrefix(f, fixtureDir) {
				jp = strings.TrimSuffix(f, ".txt") + ".expect.json"
			}
			eb, err := os.ReadFile(jp)
			if err != nil {
				t.Fatal(err)
			}
			var w devExpect
			var keys map[string]json.RawMessage
			_ = json.Unmarshal(eb, &w)
			_ = json.Unmarshal(eb, &keys)
			if w.SupplierName != nil {
				s := compareName(*w.SupplierName)
				w.SupplierName = &s
			}
			docs = append(docs, doc{f, normalizeText(b), w, keys})
		}
	}
	for pname, p := range perturbations {
		right, total := 0, 0
		for _, d := range docs {
			got := Extract(p(d.text))
			if got.Invoice.SupplierName != nil {
				s := compareName(*got.Invoice.SupplierName)
				got.Invoice.SupplierName = &s
			}
			want := d.want
			if (pname == "upper" || pname == "lower") && want.InvoiceNumber != nil && got.Invoice.InvoiceNumber != nil &&
				strings.EqualFold(*want.InvoiceNumber, *got.Invoice.InvoiceNumber) {
				want.InvoiceNumber = got.Invoice.InvoiceNumber
			}
			res := fieldResults(got, want)
			for _, field := range fieldOrder {
				if _, ok := d.keys[field]; !ok {
					continue
				}
				total++
				if res[field][0] == res[field][1] {
					right++
				} else {
					t.Logf("%s | %s: %s: want %s, got %s", pname, filepath.Base(d.name), field, res[field][0], res[field][1])
				}
			}
		}
		t.Logf("%-22s %d/%d", pname, right, total)
	}
}
