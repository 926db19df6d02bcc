package extract

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/invx/invx/internal/pdftext"
)

// Skip reasons of PDF inputs. Both are invoices that went unprocessed, so
// they need review (and make the run exit 3).
const (
	// SkipNoTextLayer: a scanned PDF without text and without an embedded
	// e-invoice; it needs OCR, which invx does not do.
	SkipNoTextLayer = "no_text_layer"
	// SkipBadPDF: an encrypted, malformed, oversized or endlessly slow PDF.
	SkipBadPDF = "unreadable_pdf"
)

// FormatPDF is the format of a PDF read from its text layer. A PDF that
// embeds an e-invoice takes the e-invoice's format, prefixed: "pdf/cii".
const FormatPDF = "pdf"

// readPDF takes a PDF: the embedded e-invoice when it carries one
// (factur-x.xml, zugferd-invoice.xml, ZUGFeRD-invoice.xml, xrechnung.xml),
// read exactly like a .xml file, else its text layer, which goes through
// the same normalisation as a .txt file. Either way the digest is sha256
// of the PDF's bytes, so the same file is one job however it is read.
func readPDF(raw []byte, _ string) (input, *inputError) {
	doc, err := pdftext.Read(context.Background(), raw, pdftext.Limits{})
	sum := sha256.Sum256(raw)
	digest := hex.EncodeToString(sum[:])
	if _, xml, ok := doc.EInvoice(); ok {
		if in, ierr := readXML(xml, EncodingUTF8); ierr == nil {
			in.digest, in.format = digest, FormatPDF+"/"+in.format
			return in, nil
		}
		// An attachment that is no e-invoice invx reads: the text layer
		// stands in for it, as it would for a PDF without one.
	}
	switch {
	case errors.Is(err, pdftext.ErrNoTextLayer):
		return input{}, &inputError{SkipNoTextLayer, pdftext.ErrNoTextLayer.Error()}
	case err != nil:
		return input{}, &inputError{SkipBadPDF, err.Error()}
	}
	text, err := Normalize([]byte(doc.Text))
	if err != nil {
		return input{}, &inputError{SkipBadPDF, "text layer: " + err.Error()}
	}
	return input{text: text, digest: digest, encoding: DecodedUTF8, format: FormatPDF}, nil
}
