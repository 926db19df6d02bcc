package rules

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
)

// A perturbation changes how an invoice is laid out or encoded, never
// what it says, so no field may change because of it: the extractor stays
// right, or at worst finds nothing (null), but never reads a different
// wrong value, which a clerk would take for a fact.
type perturbation struct {
	name  string
	apply func(string) string
	// raw perturbations change the file's bytes, which the pipeline
	// normalises (line endings, BOM, NFC) before any provider sees them.
	raw bool
	// foldNumber compares invoice numbers without case (the text was
	// upper-cased).
	foldNumber bool
}

var (
	reColonSpaces = regexp.MustCompile(`: +`)
	reLabelColon  = regexp.MustCompile(`([A-Za-zÀ-ÿ.]):[ ]?`)
	// Column gaps are wide; two or three spaces can sit inside a scanned
	// name ("ACME  T00LING  LIMITED"), where a tab would split it.
	reColumnGap = regexp.MustCompile(`    +`)
)

var perturbations = []perturbation{
	// Encodings the pipeline normalises away: the result must not move.
	{name: "crlf", raw: true, apply: func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }},
	{name: "cr", raw: true, apply: func(s string) string { return strings.ReplaceAll(s, "\n", "\r") }},
	{name: "bom", raw: true, apply: func(s string) string { return "\uFEFF" + s }},
	{name: "nfd", raw: true, apply: norm.NFD.String},
	// Whitespace.
	{name: "indent", apply: func(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }},
	{name: "trailing spaces", apply: func(s string) string { return strings.ReplaceAll(s, "\n", "   \n") }},
	{name: "crlf leftovers", apply: func(s string) string { return strings.ReplaceAll(s, "\n", " \n") }},
	{name: "double spacing", apply: func(s string) string { return strings.ReplaceAll(s, "\n", "\n\n") }},
	{name: "tabs", apply: func(s string) string { return reColumnGap.ReplaceAllString(s, "\t") }},
	{name: "no space after colon", apply: func(s string) string { return reColonSpaces.ReplaceAllString(s, ":") }},
	{name: "wide colon", apply: func(s string) string { return reLabelColon.ReplaceAllString(s, "$1 :  ") }},
	{name: "no final newline", apply: func(s string) string { return strings.TrimRight(s, "\n") }},
	// Page furniture a PDF or print spool adds.
	{name: "page header and footer", apply: func(s string) string { return "Page 1 of 1\n\n" + s + "\n\nPage 1 of 1\n" }},
	{name: "page break", apply: pageBreak},
	{name: "upper", apply: strings.ToUpper, foldNumber: true},
}

// pageBreak splits the text at its middle blank line with a form feed and
// the lines a print spool writes around one.
func pageBreak(s string) string {
	mid := len(s) / 2
	i := strings.Index(s[mid:], "\n\n")
	if i < 0 {
		i = strings.LastIndex(s[:mid], "\n\n")
		if i < 0 {
			return s + "\n\f\n- Page 2 of 2 -\n"
		}
	} else {
		i += mid
	}
	return s[:i] + "\n\n- Page 1 of 2 -\n\f\n- Page 2 of 2 -\n" + s[i:]
}

// perturbDoc is one invoice with the expected value of each field it has.
type perturbDoc struct {
	name   string
	text   string // normalised
	want   devExpect
	fields []string // the fields want holds
}

// perturbCorpus is the development set, the fixture suite and a
// synthetic set from a fixed seed: a few hundred invoices in all. Under
// the race detector, which slows matching about tenfold, every twelfth.
func perturbCorpus(t *testing.T) []perturbDoc {
	t.Helper()
	var docs []perturbDoc
	sets := []struct{ pattern, expect string }{
		{"testdata/dev/*.txt", ".json"},
		{fixtureDir + "/*.txt", ".expect.json"},
		{fixtureDir + "/*/*.txt", ".expect.json"},
	}
	for _, set := range sets {
		files, err := filepath.Glob(set.pattern)
		if err != nil {
			t.Fatalf("glob %s: %v", set.pattern, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			eb, err := os.ReadFile(strings.TrimSuffix(f, ".txt") + set.expect)
			if err != nil {
				t.Fatal(err)
			}
			var want devExpect
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(eb, &want); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if err := json.Unmarshal(eb, &keys); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			d := perturbDoc{name: f, text: normalizeText(b), want: want}
			for _, field := range fieldOrder {
				if _, ok := keys[field]; ok {
					d.fields = append(d.fields, field)
				}
			}
			docs = append(docs, d)
		}
	}
	// Fewer than this means a set went missing, and an empty corpus would
	// pass every check below.
	if len(docs) < 120 {
		t.Fatalf("%d development and fixture invoices, want at least 120", len(docs))
	}
	r := rand.New(rand.NewSource(20260401))
	for i := range 100 {
		text, want := synthInvoice(r)
		docs = append(docs, perturbDoc{name: fmt.Sprintf("synthetic %d", i), text: text, want: want, fields: fieldOrder})
	}
	if raceOn {
		var some []perturbDoc
		for i := 0; i < len(docs); i += 12 {
			some = append(some, docs[i])
		}
		docs = some
	}
	return docs
}

// facts is fieldResults split in its got and want sides, supplier names
// folded as the eval package scores them.
func facts(res schema.InvoiceSummaryV1, want devExpect) (got, wanted map[string]string) {
	if res.Invoice.SupplierName != nil {
		s := compareName(*res.Invoice.SupplierName)
		res.Invoice.SupplierName = &s
	}
	if want.SupplierName != nil {
		s := compareName(*want.SupplierName)
		want.SupplierName = &s
	}
	got, wanted = map[string]string{}, map[string]string{}
	for field, r := range fieldResults(res, want) {
		wanted[field], got[field] = r[0], r[1]
	}
	return got, wanted
}

// TestPerturbations extracts every invoice of the corpus as it is and
// perturbed, and checks each field: unchanged, or now right, or now null;
// never a different wrong value. Raw perturbations must come out of the
// pipeline's normalisation as the very text they started from. A field
// that was right may turn null in at most 1% of the cases, so an
// extractor that gives up on a layout fails too.
func TestPerturbations(t *testing.T) {
	t.Parallel()
	docs := perturbCorpus(t)
	base := make([]map[string]string, len(docs))
	for i, d := range docs {
		base[i], _ = facts(extractCached(d.text), d.want)
	}
	for _, p := range perturbations {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			right, lost, changed := 0, 0, 0
			for i, d := range docs {
				text := p.apply(d.text)
				if p.raw {
					n, err := extract.Normalize([]byte(text))
					if err != nil {
						t.Fatalf("%s: normalise: %v", d.name, err)
					}
					changed++
					// The same text gives the same answer (TestDeterministic).
					if n != d.text {
						t.Errorf("%s: normalisation does not undo %s", d.name, p.name)
					}
					continue
				}
				if text == d.text {
					continue // nothing to perturb (no colon, no column gap, ...)
				}
				changed++
				res := Extract(text)
				checkInvariants(t, text, res)
				checkV2Invariants(t, text)
				got, want := facts(res, d.want)
				for _, field := range d.fields {
					g, w, b := got[field], want[field], base[i][field]
					if p.foldNumber && field == "invoice_number" {
						g, w, b = strings.ToUpper(g), strings.ToUpper(w), strings.ToUpper(b)
					}
					if b == w {
						right++
					}
					switch {
					case g == b, g == w:
					case g == "null" || field == "action_kinds" && subset(g, w):
						if b == w {
							lost++
						}
					default:
						t.Errorf("%s: %s: a different wrong value: want %s, got %s unperturbed and %s after %s",
							d.name, field, w, b, g, p.name)
					}
				}
			}
			// Each perturbation has something to change in most invoices.
			if changed*2 < len(docs) {
				t.Errorf("%s changed %d of %d invoices: it tests little", p.name, changed, len(docs))
			}
			if lost*100 > right {
				t.Errorf("%s: %d of %d right fields turned null (over 1%%)", p.name, lost, right)
			}
			t.Logf("%d invoices changed, %d right fields, %d turned null", changed, right, lost)
		})
	}
}

// subset reports whether every kind in the comma list a is in b: an action
// the extractor missed is a null, one it made up is a wrong value.
func subset(a, b string) bool {
	if a == "" {
		return true
	}
	have := map[string]bool{}
	for _, k := range strings.Split(b, ",") {
		have[k] = true
	}
	for _, k := range strings.Split(a, ",") {
		if !have[k] {
			return false
		}
	}
	return true
}
