package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSuite writes files (path -> content) under a fresh folder.
func writeSuite(t *testing.T, files map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "suite")
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestLoad(t *testing.T) {
	t.Parallel()
	root := writeSuite(t, map[string]string{
		"a.txt":             "Acme Ltd\r\nInvoice 1\r\n",
		"a.expect.json":     `{"supplier_name": "Acme Ltd", "total_minor": 100, "due_date": null, "action_kinds": ["review_tax"]}`,
		"sub/b.txt":         "\ufeffBeta GmbH\n",
		"sub/b.expect.json": `{}`,
		".hidden/c.txt":     "ignored",
		"README.md":         "ignored",
	})
	s, err := Load(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "suite" || len(s.Docs) != 2 {
		t.Fatalf("suite %q with %d documents, want suite with 2", s.Name, len(s.Docs))
	}
	a, b := s.Docs[0], s.Docs[1]
	if a.Name != "a.txt" || a.SubSuite != "suite" || b.Name != "sub/b.txt" || b.SubSuite != "suite/sub" {
		t.Errorf("names %q (%q), %q (%q)", a.Name, a.SubSuite, b.Name, b.SubSuite)
	}
	if a.Found.Text != "Acme Ltd\nInvoice 1\n" || b.Found.Text != "Beta GmbH\n" {
		t.Errorf("texts are not normalised as invx run does: %q, %q", a.Found.Text, b.Found.Text)
	}
	if v, ok := a.Expect["due_date"]; !ok || v != nil {
		t.Errorf("due_date = %v, %v; want an explicit null", v, ok)
	}
	if _, ok := a.Expect["currency"]; ok {
		t.Error("an absent key must not be scored")
	}
	if a.Expect["total_minor"] != int64(100) {
		t.Errorf("total_minor = %#v", a.Expect["total_minor"])
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"unknown key names the file", map[string]string{"x.txt": "X", "x.expect.json": `{"supplier": "X"}`},
			[]string{"x.expect.json", `unknown key "supplier"`}},
		{"bad type", map[string]string{"x.txt": "X", "x.expect.json": `{"total_minor": 12.5}`},
			[]string{"x.expect.json", "total_minor"}},
		{"kinds not an array", map[string]string{"x.txt": "X", "x.expect.json": `{"action_kinds": null}`},
			[]string{"x.expect.json", "action_kinds"}},
		{"not an object", map[string]string{"x.txt": "X", "x.expect.json": `[]`},
			[]string{"x.expect.json", "not a JSON object"}},
		{"text without expectation", map[string]string{"x.txt": "X", "sub/y.txt": "Y", "sub/y.expect.json": "{}"},
			[]string{"x.txt: no x.expect.json beside it"}},
		{"expectation without text", map[string]string{"x.txt": "X", "x.expect.json": "{}", "sub/z.expect.json": "{}"},
			[]string{"z.expect.json: no z.txt beside it"}},
		{"binary text", map[string]string{"x.txt": "X\x00Y", "x.expect.json": "{}"},
			[]string{"x.txt", "invx run would skip it"}},
		{"empty suite", map[string]string{"README.md": "nothing"}, []string{"no NAME.txt + NAME.expect.json pairs"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(context.Background(), writeSuite(t, tc.files))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
