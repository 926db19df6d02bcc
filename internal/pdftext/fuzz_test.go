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
	t := &testing.T{}
	f.Add(render(t, invoicePDF(t)))
	att := invoicePDF(t)
	att.SetAttachments([]fpdf.Attachment{{Content: []byte("<x/>"), Filename: "factur-x.xml"}})
	f.Add(render(t, att))
	f.Add(imageOnlyPDF(t))
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
