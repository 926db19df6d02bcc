package pdftext

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

// newPDF starts an A4 document in points with Helvetica 10.
func newPDF(t testing.TB) *fpdf.Fpdf {
	t.Helper()
	f := fpdf.New("P", "pt", "A4", "")
	f.SetFont("Helvetica", "", 10)
	f.SetCompression(true)
	return f
}

// render writes f out and fails the test on any generator error.
func render(t testing.TB, f *fpdf.Fpdf) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatalf("generate pdf: %v", err)
	}
	// fpdf names an embedded file only in /UF but files its stream under
	// /EF /F; PDFium looks the stream up under the first named key, finds
	// nothing and returns no content. Real producers (ZUGFeRD, Factur-X) name
	// both. Filing the stream under /UF too (same length, offsets intact)
	// gives the test the layout real e-invoices have.
	return bytes.ReplaceAll(buf.Bytes(), []byte("/EF << /F "), []byte("/EF <</UF "))
}

// invoicePDF is a two-page invoice with label/value columns.
func invoicePDF(t testing.TB) *fpdf.Fpdf {
	t.Helper()
	f := newPDF(t)
	f.AddPage()
	f.Text(50, 60, "ACME Tools GmbH")
	f.Text(50, 90, "Invoice number:")
	f.Text(300, 90, "INV-2024-0042")
	f.Text(50, 105, "Total due:")
	f.Text(300, 105, "1,234.56 EUR")
	f.AddPage()
	f.Text(50, 60, "Page two: payment terms 30 days")
	return f
}

func TestReadTextLayout(t *testing.T) {
	t.Parallel()
	doc, err := Read(context.Background(), render(t, invoicePDF(t)), Limits{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if doc.Pages != 2 || doc.Truncated {
		t.Errorf("Pages = %d, Truncated = %v; want 2, false", doc.Pages, doc.Truncated)
	}
	pages := strings.Split(doc.Text, "\f")
	if len(pages) != 2 {
		t.Fatalf("got %d pages of text, want 2:\n%s", len(pages), doc.Text)
	}
	lines := nonBlank(pages[0])
	want := []string{"ACME Tools GmbH", "Invoice number:", "Total due:"}
	if len(lines) != 3 {
		t.Fatalf("page 1 lines = %q, want 3 lines", lines)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i, lines[i], w)
		}
	}
	// Values sit in one column, right of their labels, as pdftotext -layout puts them.
	c1, c2 := strings.Index(lines[1], "INV-2024-0042"), strings.Index(lines[2], "1,234.56 EUR")
	if c1 < len("Invoice number:")+2 || c1 != c2 {
		t.Errorf("value columns %d and %d, want equal and apart from the labels:\n%s", c1, c2, pages[0])
	}
	if got := strings.TrimSpace(pages[1]); got != "Page two: payment terms 30 days" {
		t.Errorf("page 2 = %q", got)
	}
}

func TestReadMaxPages(t *testing.T) {
	t.Parallel()
	doc, err := Read(context.Background(), render(t, invoicePDF(t)), Limits{MaxPages: 1})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if doc.Pages != 2 || !doc.Truncated || strings.Contains(doc.Text, "Page two") {
		t.Errorf("Pages=%d Truncated=%v text=%q; want 2, true, first page only", doc.Pages, doc.Truncated, doc.Text)
	}
}

func TestReadAttachment(t *testing.T) {
	t.Parallel()
	xml := []byte(`<?xml version="1.0" encoding="UTF-8"?><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>`)
	other := []byte("terms and conditions")
	f := invoicePDF(t)
	f.SetAttachments([]fpdf.Attachment{
		{Content: xml, Filename: "factur-x.xml", Description: "Factur-X invoice"},
		{Content: other, Filename: "terms.txt"},
	})
	doc, err := Read(context.Background(), render(t, f), Limits{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(doc.Attachments) != 2 || !bytes.Equal(doc.Attachments["terms.txt"], other) {
		t.Errorf("attachments = %v, want factur-x.xml and terms.txt", keys(doc.Attachments))
	}
	name, got, ok := doc.EInvoice()
	if !ok || name != "factur-x.xml" || !bytes.Equal(got, xml) {
		t.Errorf("EInvoice() = %q, %q, %v; want factur-x.xml with the XML bytes", name, got, ok)
	}
}

func TestReadAttachmentOverLimitLeftOut(t *testing.T) {
	t.Parallel()
	f := invoicePDF(t)
	f.SetAttachments([]fpdf.Attachment{{Content: bytes.Repeat([]byte("x"), 4096), Filename: "factur-x.xml"}})
	doc, err := Read(context.Background(), render(t, f), Limits{MaxAttachmentBytes: 1024})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if _, _, ok := doc.EInvoice(); ok {
		t.Errorf("a 4 KiB attachment passed a 1 KiB limit")
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	good := render(t, invoicePDF(t))
	tests := []struct {
		name   string
		pdf    func(t *testing.T) []byte
		limits Limits
		want   error
	}{
		{"image only", func(t *testing.T) []byte { return imageOnlyPDF(t) }, Limits{}, ErrNoTextLayer},
		{"user password", func(t *testing.T) []byte {
			f := invoicePDF(t)
			f.SetProtection(fpdf.CnProtectPrint, "secret", "owner")
			return render(t, f)
		}, Limits{}, ErrEncrypted},
		{"truncated", func(*testing.T) []byte { return good[:len(good)/3] }, Limits{}, ErrMalformed},
		{"garbage", func(*testing.T) []byte { return []byte("this is not a pdf at all") }, Limits{}, ErrMalformed},
		{"header then garbage", func(*testing.T) []byte { return []byte("%PDF-1.7\n\x00\x01garbage\n%%EOF\n") }, Limits{}, ErrMalformed},
		{"empty", func(*testing.T) []byte { return nil }, Limits{}, ErrMalformed},
		{"too large", func(*testing.T) []byte { return good }, Limits{MaxBytes: 100}, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, err := Read(context.Background(), tt.pdf(t), tt.limits)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Read err = %v, want %v", err, tt.want)
			}
			if tt.want != ErrNoTextLayer && doc != nil {
				t.Errorf("Read returned a Doc with %v", err)
			}
		})
	}
}

// A scanned invoice that embeds its e-invoice is still useful: the Doc comes with ErrNoTextLayer.
func TestReadNoTextLayerKeepsAttachments(t *testing.T) {
	t.Parallel()
	f := imageOnlyDoc(t)
	f.SetAttachments([]fpdf.Attachment{{Content: []byte("<x/>"), Filename: "xrechnung.xml"}})
	doc, err := Read(context.Background(), render(t, f), Limits{})
	if !errors.Is(err, ErrNoTextLayer) {
		t.Fatalf("err = %v, want ErrNoTextLayer", err)
	}
	if name, b, ok := doc.EInvoice(); !ok || name != "xrechnung.xml" || string(b) != "<x/>" {
		t.Errorf("EInvoice() = %q, %q, %v", name, b, ok)
	}
}

// Permissions-only encryption (no user password) opens in every viewer, so it is read.
func TestReadOwnerPasswordOnly(t *testing.T) {
	t.Parallel()
	f := invoicePDF(t)
	f.SetProtection(fpdf.CnProtectPrint, "", "owner")
	doc, err := Read(context.Background(), render(t, f), Limits{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !strings.Contains(doc.Text, "INV-2024-0042") {
		t.Errorf("text = %q, want the invoice number", doc.Text)
	}
}

func TestReadCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, render(t, invoicePDF(t)), Limits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func imageOnlyDoc(t testing.TB) *fpdf.Fpdf {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		img.Set(x, 10, color.Black)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatalf("encode png: %v", err)
	}
	f := newPDF(t)
	f.AddPage()
	f.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, &buf)
	f.ImageOptions("scan", 50, 50, 400, 200, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	return f
}

func imageOnlyPDF(t testing.TB) []byte { return render(t, imageOnlyDoc(t)) }

func nonBlank(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// An embedded file whose stream PDFium cannot locate is left out, never returned empty.
func TestReadUnlocatableAttachmentLeftOut(t *testing.T) {
	t.Parallel()
	f := invoicePDF(t)
	f.SetAttachments([]fpdf.Attachment{{Content: []byte("<x/>"), Filename: "factur-x.xml"}})
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatalf("generate pdf: %v", err)
	}
	doc, err := Read(context.Background(), buf.Bytes(), Limits{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if _, ok := doc.Attachments["factur-x.xml"]; ok {
		t.Errorf("attachments = %q, want the unlocatable file left out", doc.Attachments)
	}
}

func TestReadRawPDF(t *testing.T) {
	t.Parallel()
	doc, err := Read(context.Background(), rawPDF(t, []byte("BT /F1 12 Tf 72 700 Td (Total 42.00 EUR) Tj ET")), Limits{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if got := strings.TrimSpace(doc.Text); got != "Total 42.00 EUR" {
		t.Errorf("text = %q", got)
	}
}

// A document that outlasts Limits.Timeout is abandoned in time and its
// engine instance killed: with every slot taken by an abandoned document, the
// next one is still read at once, which it could not be if the killed
// instances kept running (each would hold its slot for many seconds).
//
// Not parallel: it needs every engine slot to itself.
func TestReadTimeoutKillsInstance(t *testing.T) {
	slow := slowPDF(t, 400_000)
	for range maxInstances {
		start := time.Now()
		_, err := Read(context.Background(), slow, Limits{Timeout: 100 * time.Millisecond})
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
		// Generous: a loaded CI machine took 4.3 s to tear an instance down
		// (ErrTimeout above and the read after the loop are what prove
		// the kill; this only catches a Read that waits for the document).
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("Read returned after %v, want soon after its 100ms timeout", d)
		}
	}
	if _, err := Read(context.Background(), rawPDF(t, []byte("BT /F1 12 Tf 72 700 Td (ok) Tj ET")), Limits{Timeout: 3 * time.Second}); err != nil {
		t.Fatalf("Read after timeouts: %v", err)
	}
}
