package cmd_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"
)

// pdfBytes renders f. fpdf files an attachment's stream under /EF /F but
// names the file only in /UF, where PDFium looks it up; real Factur-X and
// ZUGFeRD producers name both, so the stream is filed under /UF too (same
// length, offsets intact).
func pdfBytes(t *testing.T, f *fpdf.Fpdf) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatalf("generate pdf: %v", err)
	}
	return bytes.ReplaceAll(buf.Bytes(), []byte("/EF << /F "), []byte("/EF <</UF "))
}

// textPDF lays out text one line per 14 points, as a text layer.
func textPDF(t *testing.T, text string) *fpdf.Fpdf {
	t.Helper()
	f := fpdf.New("P", "pt", "A4", "")
	f.SetFont("Courier", "", 9)
	f.AddPage()
	for i, line := range strings.Split(text, "\n") {
		f.Text(40, 40+float64(i)*14, line)
	}
	return f
}

// scanPDF is a page with an image and no text: a scan.
func scanPDF(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		img.Set(x, 10, color.Black)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	f := fpdf.New("P", "pt", "A4", "")
	f.AddPage()
	f.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, &buf)
	f.ImageOptions("scan", 50, 50, 400, 200, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	return pdfBytes(t, f)
}

// invx run over text, XML and PDF files commits each through its route: a
// PDF's text layer through rules like a .txt, a PDF with an embedded
// factur-x.xml through einvoice from that XML; the digest of a PDF is
// sha256 of its bytes. A scan without a text layer and a broken PDF are
// skipped with one clear reason each and make the run exit 3.
func TestRunPDFInputs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join("testdata", "input", "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	xml, err := os.ReadFile(filepath.Join("..", "fixtures", "einvoices", "cii_d16b.xml"))
	if err != nil {
		t.Fatal(err)
	}
	withXML := textPDF(t, "Rechnung RE-2026-881 (see the attached factur-x.xml)")
	withXML.SetAttachments([]fpdf.Attachment{{Content: xml, Filename: "factur-x.xml", Description: "Factur-X invoice"}})
	files := map[string][]byte{
		"text.pdf":    pdfBytes(t, textPDF(t, string(text))),
		"facturx.pdf": pdfBytes(t, withXML),
		"scan.pdf":    scanPDF(t),
		"broken.pdf":  []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(in, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(tmp, "invx.db")
	r := invx(t, false, "--db", db, "run", "--schema", "invoice-v2", in)
	if r.code != 3 {
		t.Fatalf("run exit %d, want 3 (a scan and a broken PDF skipped): %s", r.code, r.stderr)
	}
	for _, want := range []string{"scan.pdf: no text layer (needs OCR)", "broken.pdf: malformed PDF"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	for _, tt := range []struct{ file, format, route, number string }{
		{"text.pdf", "pdf", "rules", "NW-2026-0117"},
		{"facturx.pdf", "pdf/cii", "einvoice", "RE-2026-881"},
	} {
		job := showRouted(t, db, tt.file)
		if job.State != "succeeded" || job.Result == nil || job.Result.Document.InvoiceNumber != tt.number {
			t.Errorf("%s: state %s, result %+v; want %s committed", tt.file, job.State, job.Result, tt.number)
		}
		if job.SourceFormat != tt.format || job.Route != tt.route {
			t.Errorf("%s: format %q route %q, want %q %q", tt.file, job.SourceFormat, job.Route, tt.format, tt.route)
		}
		if sum := sha256.Sum256(files[tt.file]); job.SourceDigest != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: digest %s is not sha256 of the file's bytes", tt.file, job.SourceDigest)
		}
	}
	r = invx(t, false, "--db", db, "review", "--reason", "skipped", "--json")
	for _, want := range []string{`"no_text_layer"`, `"unreadable_pdf"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("review lacks %s:\n%s", want, r.stdout)
		}
	}
}
