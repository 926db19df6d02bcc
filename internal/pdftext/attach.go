package pdftext

import (
	"fmt"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// EInvoiceNames are the embedded file names under which ZUGFeRD 1 and 2,
// Factur-X and XRechnung carry the structured invoice, most specific first.
var EInvoiceNames = []string{"factur-x.xml", "zugferd-invoice.xml", "ZUGFeRD-invoice.xml", "xrechnung.xml"}

// EInvoice returns the first embedded file named in EInvoiceNames, if any.
func (d *Doc) EInvoice() (name string, xml []byte, ok bool) {
	if d == nil {
		return "", nil, false
	}
	for _, n := range EInvoiceNames {
		if b, ok := d.Attachments[n]; ok {
			return n, b, true
		}
	}
	return "", nil, false
}

// attachments returns the document's embedded files by name, leaving out any
// over maxBytes (an e-invoice is kilobytes; a huge one is not what we read).
// A name seen twice keeps its first file, as viewers show it.
func attachments(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, maxBytes int) (map[string][]byte, error) {
	res, err := inst.GetAttachments(&requests.GetAttachments{Document: doc})
	if err != nil {
		return nil, fmt.Errorf("%w: read embedded files: %v", ErrMalformed, err)
	}
	out := make(map[string][]byte, len(res.Attachments))
	for _, a := range res.Attachments {
		// Empty content is a file PDFium could not locate (see docs/pdf-libraries.md):
		// left out, so a caller never reads an empty e-invoice as the real one.
		if _, seen := out[a.Name]; seen || len(a.Content) == 0 || len(a.Content) > maxBytes {
			continue
		}
		out[a.Name] = a.Content
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
