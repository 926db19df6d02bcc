package pdftext

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

// FuzzRead feeds mutated PDFs to Read: it must return, without panicking,
// either a Doc or one of its documented errors.
func FuzzRead(f *testing.F) {
	f.Add(render(f, invoicePDF(f)))
	att := invoicePDF(f)
	att.SetAttachments([]fpdf.Attachment{{Content: []byte("<x/>"), Filename: "factur-x.xml"}})
	f.Add(render(f, att))
	f.Add(imageOnlyPDF(f))
	f.Add(rawPDF(f, []byte("BT /F1 12 Tf 72 700 Td (Total 42.00 EUR) Tj ET")))
	f.Add([]byte("%PDF-1.7\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF"))
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := Read(context.Background(), b, Limits{Timeout: 10 * time.Second, MaxPages: 5})
		switch {
		case err == nil && doc == nil:
			t.Fatal("nil Doc without an error")
		case err == nil, errors.Is(err, ErrNoTextLayer), errors.Is(err, ErrMalformed),
			errors.Is(err, ErrEncrypted), errors.Is(err, ErrTimeout), errors.Is(err, ErrTooLarge):
		default:
			t.Fatalf("undocumented error: %v", err)
		}
	})
}
