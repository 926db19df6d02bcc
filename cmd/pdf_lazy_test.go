package cmd_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/internal/pdftext"
)

// pdfChildEnv names the directory TestPDFEngineChild runs invx over.
const pdfChildEnv = "INVX_TEST_PDF_ENGINE_CHILD"

// A run over text alone never starts the PDF engine (megabytes of compiled
// WebAssembly and its memory, issue 17's peak RSS); a run with a PDF starts
// it and reads the PDF. Each run is a child process, this test binary run
// again on TestPDFEngineChild: the engine starts once per process, and other
// tests of this package start it.
func TestPDFEngineStartsOnlyForPDF(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile(filepath.Join("testdata", "input", "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pdf := pdfBytes(t, textPDF(t, string(text)))
	for _, tt := range []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{"text only", map[string][]byte{"a.txt": text}, "committed=1 pdf-engine-started=false"},
		{"text and a pdf", map[string][]byte{"a.txt": text, "a.pdf": pdf}, "committed=2 pdf-engine-started=true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			in := filepath.Join(dir, "in")
			if err := os.MkdirAll(in, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, b := range tt.files {
				if err := os.WriteFile(filepath.Join(in, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c := exec.Command(os.Args[0], "-test.run=^TestPDFEngineChild$", "-test.count=1")
			c.Env = append(os.Environ(), pdfChildEnv+"="+dir)
			out, err := c.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "child: "+tt.want+"\n") {
				t.Errorf("child output lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

// TestPDFEngineChild is the child of TestPDFEngineStartsOnlyForPDF: one
// invx run over $INVX_TEST_PDF_ENGINE_CHILD/in, then whether it started the
// engine.
func TestPDFEngineChild(t *testing.T) {
	dir := os.Getenv(pdfChildEnv)
	if dir == "" {
		t.Skip("run by TestPDFEngineStartsOnlyForPDF")
	}
	r := invx(t, false, "--db", filepath.Join(dir, "invx.db"), "run", "--json", "--schema", "invoice-v2", filepath.Join(dir, "in"))
	if r.code != 0 && r.code != 3 {
		t.Fatalf("run exit %d: %s", r.code, r.stderr)
	}
	var committed int
	if i := strings.Index(r.stdout, `"committed":`); i >= 0 {
		fmt.Sscanf(r.stdout[i+len(`"committed":`):], "%d", &committed)
	}
	fmt.Printf("child: committed=%d pdf-engine-started=%v\n", committed, pdftext.EngineStarted())
}
