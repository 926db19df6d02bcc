package extract_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"

	"github.com/invx/invx/extract"
)

var update = flag.Bool("update", false, "rewrite golden files")

type keyCase struct {
	Name    string `json:"name"`
	Tenant  string `json:"tenant"`
	Schema  string `json:"schema_version"`
	Input   string `json:"-"` // may be invalid UTF-8, which JSON cannot hold
	Digest  string `json:"digest"`
	JobKey  string `json:"job_key"`
	ErrText string `json:"error,omitempty"`
}

// keyInputs are fixed forever: the golden file pins their digests and job
// keys, so a release that changes normalisation or key derivation (and with
// it every job key users have stored) fails here first.
var keyInputs = []keyCase{
	{Name: "plain", Tenant: "default", Input: "Invoice 1\nTotal 10.00 EUR\n"},
	{Name: "crlf", Tenant: "default", Input: "Invoice 1\r\nTotal 10.00 EUR\r\n"},
	{Name: "cr", Tenant: "default", Input: "Invoice 1\rTotal 10.00 EUR\r"},
	{Name: "bom", Tenant: "default", Input: "\ufeffInvoice 1\nTotal 10.00 EUR\n"},
	{Name: "bom+crlf", Tenant: "default", Input: "\ufeffInvoice 1\r\nTotal 10.00 EUR\r\n"},
	{Name: "nfc", Tenant: "default", Input: "Müller GmbH\n"},
	{Name: "nfd", Tenant: "default", Input: "Mu\u0308ller GmbH\n"},
	{Name: "other-tenant", Tenant: "acme", Input: "Invoice 1\nTotal 10.00 EUR\n"},
	{Name: "tenant-dots", Tenant: "acme.eu-1_x", Input: "Invoice 1\nTotal 10.00 EUR\n"},
	{Name: "no-final-newline", Tenant: "default", Input: "Invoice 1\nTotal 10.00 EUR"},
	{Name: "trailing-spaces-kept", Tenant: "default", Input: "Invoice 1  \nTotal 10.00 EUR\n"},
	{Name: "tabs", Tenant: "default", Input: "Invoice\t1\nTotal\t10.00\tEUR\n"},
	{Name: "yen", Tenant: "default", Input: "請求書\n合計 ¥120,000\n"},
	{Name: "nbsp", Tenant: "default", Input: "Total\u00a01\u202f234,56 €\n"},
	{Name: "german", Tenant: "default", Input: "Rechnung Nr. RE-2026-00417\nGesamtbetrag 1.234,56 EUR\n"},
	{Name: "french", Tenant: "default", Input: "Facture n° F2026-118\nTotal TTC 2 400,00 €\n"},
	{Name: "form-feed", Tenant: "default", Input: "Page 1\fPage 2\n"},
	{Name: "emoji", Tenant: "default", Input: "Thanks 🙏\n"},
	{Name: "single-char", Tenant: "default", Input: "x"},
	{Name: "long-line", Tenant: "default", Input: strings.Repeat("0123456789", 100)},
	{Name: "schema-v1-explicit", Tenant: "default", Schema: "invoice-summary-v1", Input: "Invoice 1\n"},
	{Name: "tenant-digits", Tenant: "0", Input: "Invoice 1\n"},
	{Name: "bad-utf8", Tenant: "default", Input: "Invoice \xff\n"},
	{Name: "nul", Tenant: "default", Input: "Invoice\x001\n"},
}

func computeKeys(t *testing.T) []keyCase {
	t.Helper()
	out := make([]keyCase, len(keyInputs))
	for i, c := range keyInputs {
		if c.Schema == "" {
			c.Schema = "invoice-summary-v1"
		}
		text, err := extract.Normalize([]byte(c.Input))
		if err != nil {
			c.ErrText = err.Error()
			out[i] = c
			continue
		}
		c.Digest = extract.Digest(text)
		key, err := extract.JobKey(c.Tenant, extract.Transformation, c.Schema, c.Digest)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		c.JobKey = key
		out[i] = c
	}
	return out
}

func TestJobKeysGolden(t *testing.T) {
	t.Parallel()
	got := computeKeys(t)
	for i := range got {
		got[i].Input = ""
	}
	path := filepath.Join("testdata", "keys.golden.json")
	if *update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./extract -run TestJobKeysGolden -update)", err)
	}
	var want []keyCase
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("job keys drifted (-want +got):\n%s", diff)
	}
}

func TestNormalizeEquivalences(t *testing.T) {
	t.Parallel()
	byName := map[string]keyCase{}
	for _, c := range computeKeys(t) {
		byName[c.Name] = c
	}
	same := [][]string{{"plain", "crlf", "cr", "bom", "bom+crlf"}, {"nfc", "nfd"}}
	for _, group := range same {
		for _, n := range group[1:] {
			if byName[n].JobKey != byName[group[0]].JobKey {
				t.Errorf("%s and %s should have one job key", group[0], n)
			}
		}
	}
	differ := [][2]string{{"plain", "other-tenant"}, {"plain", "no-final-newline"}, {"plain", "trailing-spaces-kept"}}
	for _, p := range differ {
		if byName[p[0]].JobKey == byName[p[1]].JobKey {
			t.Errorf("%s and %s must not share a job key", p[0], p[1])
		}
	}
	if !strings.Contains(byName["bad-utf8"].ErrText, "not valid UTF-8 at byte 8") {
		t.Errorf("bad utf8 error = %q", byName["bad-utf8"].ErrText)
	}
	if !strings.Contains(byName["nul"].ErrText, "binary") {
		t.Errorf("nul error = %q", byName["nul"].ErrText)
	}
}

// The key's fields are separated by NUL, which no field may contain, so
// moving bytes from one field to the next cannot produce the same key.
func TestJobKeyFieldsAreUnambiguous(t *testing.T) {
	t.Parallel()
	d := extract.Digest("x")
	a, err := extract.JobKey("ab", "c", "v", d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := extract.JobKey("a", "bc", "v", d)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatal("shifted fields gave one key")
	}
	for _, f := range [][4]string{{"a\x00b", "c", "v", d}, {"a", "c\x00", "v", d}, {"a", "c", "", d}, {"a", "c", "v", ""}} {
		if _, err := extract.JobKey(f[0], f[1], f[2], f[3]); err == nil {
			t.Errorf("JobKey(%q) accepted a NUL or empty field", f)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, c := range keyInputs {
		f.Add([]byte(c.Input))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		text, err := extract.Normalize(raw)
		if err != nil {
			return
		}
		if !utf8.ValidString(text) {
			t.Fatal("normalised text is not UTF-8")
		}
		if strings.ContainsRune(text, '\r') {
			t.Fatal("normalised text contains CR")
		}
		if strings.HasPrefix(text, "\ufeff") && !strings.HasPrefix(string(raw), "\ufeff\ufeff") {
			t.Fatal("BOM kept")
		}
		if !norm.NFC.IsNormalString(text) {
			t.Fatal("normalised text is not NFC")
		}
		again, err := extract.Normalize([]byte(text))
		if err != nil {
			t.Fatalf("normalised text fails normalisation: %v", err)
		}
		// A second BOM at the start is content after the first is dropped;
		// everything else must be a fixed point.
		if again != text && !strings.HasPrefix(text, "\ufeff") {
			t.Fatalf("not idempotent: %q -> %q", text, again)
		}
	})
}

// The ASCII shortcut must not take a text NFC would change or the UTF-8
// check would refuse: a non-ASCII byte anywhere in an eight-byte word, or
// in the tail, sends it through both (here an e with a combining acute
// accent, composed to one rune, and a lone 0xff).
func TestNormalizeComposesPastASCIIPrefixes(t *testing.T) {
	t.Parallel()
	for pad := range 17 {
		prefix := strings.Repeat("a", pad)
		got, err := extract.Normalize([]byte(prefix + "e\u0301\r\n"))
		if want := prefix + "\u00e9\n"; err != nil || got != want {
			t.Errorf("%d ASCII bytes before: Normalize = %q, %v; want %q", pad, got, err, want)
		}
		// A lone invalid byte in any lane is still refused.
		if got, err := extract.Normalize([]byte(prefix + "\xff" + prefix)); err == nil {
			t.Errorf("%d ASCII bytes then 0xff: Normalize = %q, want not valid UTF-8", pad, got)
		}
		got, err = extract.Normalize([]byte(prefix + "ok\r\n"))
		if want := prefix + "ok\n"; err != nil || got != want {
			t.Errorf("%d ASCII bytes: Normalize = %q, %v; want %q", pad, got, err, want)
		}
	}
}
